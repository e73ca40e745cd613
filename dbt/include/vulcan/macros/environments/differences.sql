{#- What vulcan_plan shows first with the virtual layer: how this environment's models differ
    from another environment's (prod, or `compare_to`), as SQLMesh's plan shows it.

    Per selected model, against the version the other environment's view points at: added (it
    has none), directly modified (the model's own code or row-shaping config differs), or
    indirectly modified (only models above it differ); a direct change that only adds columns
    is marked non-breaking (the models below keep their versions and are not listed); models the other environment has but
    this project no longer defines are removed (one more read: every pointer row). The same
    environment compared with itself shows nothing. -#}
{% macro vulcan_environment_differences(found, compare_to=none) %}
  {%- set ctx = found.virtual.ctx -%}
  {%- set other = (compare_to or dbt_vulcan.vulcan_prod_environment()) | string | lower -%}
  {%- if ctx is none or other == ctx.env -%}{{ return('') }}{%- endif -%}
  {%- set groups = {'Added': [], 'Directly Modified': [], 'Indirectly Modified': [], 'Removed': []} -%}
  {%- set known = {} -%}
  {%- for node in found.nodes -%}
    {%- set info = ctx.nodes[node.unique_id] -%}
    {%- set theirs = found.virtual.resolved[node.unique_id].pointers.get(other) -%}
    {%- if theirs is none -%}
      {%- do groups['Added'].append(node.name) -%}
    {%- elif theirs.version != info.version or theirs.own -%}
      {%- set direct = theirs.identity != dbt_vulcan.vulcan_node_identity(node) -%}
      {%- set label = node.name ~ (' (non-breaking)' if direct and not theirs.own and theirs.lineage == info.lineage else '') -%}
      {%- do groups['Directly Modified' if direct else 'Indirectly Modified'].append(label) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for node in graph.nodes.values() if dbt_vulcan.vulcan_is_virtual_node(node) -%}
    {%- do known.update({dbt_vulcan.vulcan_pointer_key(node): true}) -%}
  {%- endfor -%}
  {%- for key, rows in dbt_vulcan.vulcan_pointer_rows().items() if key not in known -%}
    {%- if dbt_vulcan.vulcan_pointers(rows).get(other) is not none -%}
      {%- do groups['Removed'].append(key.split('.')[-1]) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set lines = ['Differences from the `' ~ other ~ '` environment (this environment: `' ~ ctx.env ~ '`):'] -%}
  {%- set shown = [] -%}
  {%- for name in ['Added', 'Directly Modified', 'Indirectly Modified', 'Removed'] if groups[name] -%}
    {%- do shown.append(name) -%}
  {%- endfor -%}
  {%- if not shown -%}
    {%- do lines.append('No differences: every model points at the same version.') -%}
  {%- else -%}
    {%- do lines.append('Models:') -%}
    {%- for name in shown -%}
      {%- set last = loop.last -%}
      {%- do lines.append(('└── ' if last else '├── ') ~ name ~ ':') -%}
      {%- for model_name in groups[name] | sort -%}
        {%- do lines.append(('    ' if last else '│   ') ~ ('└── ' if loop.last else '├── ') ~ model_name) -%}
      {%- endfor -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return(lines | join('\n') ~ '\n\n') }}
{% endmacro %}

{#- What vulcan_status shows last with the virtual layer: per selected model, the version this
    environment runs and its physical table (prod's, this environment's own, or shared), then
    the version each environment's view points at. -#}
{% macro vulcan_environment_versions(found) %}
  {%- set ctx = found.virtual.ctx -%}
  {%- set lines = ['Versions (this environment: `' ~ ctx.env ~ '`, prod: `' ~ ctx.prod ~ '`):'] -%}
  {%- for node in found.nodes -%}
    {%- set chosen = found.virtual.resolved[node.unique_id] -%}
    {%- set how = "prod's, read only" if chosen.reuse else ('this environment only' if chosen.own else 'shared') -%}
    {%- do lines.append('  ' ~ node.name ~ ': ' ~ chosen.version ~ ' in ' ~ chosen.key ~ ' (' ~ how ~ ')') -%}
    {%- set views = [] -%}
    {%- for env, p in chosen.pointers | dictsort -%}
      {%- do views.append(env ~ ' -> ' ~ p.version ~ (' (its own table)' if p.own else '')) -%}
    {%- endfor -%}
    {%- do lines.append('    views: ' ~ (views | join(', ') if views else 'none yet')) -%}
  {%- endfor -%}
  {{ return(lines | join('\n')) }}
{% endmacro %}
