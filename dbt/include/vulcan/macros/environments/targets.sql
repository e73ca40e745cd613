{#- The virtual layer for the run-operations: the physical table of each selected model in this
    environment, from one read of the log, as a model run of this environment would choose it
    (environments/resolve.sql). -#}

{#- {by_key: the rows of the models' and their ancestors' keys, each model's also under its own
     relation's key (vulcan_node_state_key, where the operations look), resolved: {unique_id:
     the choice}, ctx: the merged context}. `execution_time`: the dev window's reference. -#}
{% macro vulcan_virtual_targets(nodes, execution_time) %}
  {%- set ctx = none -%}
  {%- set merged = {'ctx': none} -%}
  {%- for node in nodes -%}
    {%- set one = dbt_vulcan.vulcan_virtual_context(node, execution_time) -%}
    {%- if merged.ctx is none -%}
      {%- do merged.update({'ctx': one}) -%}
    {%- else -%}
      {%- do merged.ctx.nodes.update(one.nodes) -%}
      {%- do merged.ctx['keys'].extend(one['keys']) -%}
      {%- do merged.ctx.prefixes.extend(one.prefixes) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if merged.ctx is none -%}{{ return({'by_key': {}, 'resolved': {}, 'ctx': none}) }}{%- endif -%}
  {%- set ctx = merged.ctx -%}
  {%- set by_key = dbt_vulcan.vulcan_log_read(ctx['keys'] | unique | list, none, ctx.prefixes) -%}
  {%- do dbt_vulcan.vulcan_virtual_versions(ctx, by_key) -%}
  {%- set done = {} -%}
  {%- set resolved = {} -%}
  {%- for id in ctx.nodes -%}
    {%- do resolved.update({id: dbt_vulcan.vulcan_virtual_resolve(ctx, id, by_key, none, done)}) -%}
  {%- endfor -%}
  {%- for id, chosen in resolved.items() -%}
    {%- do by_key.update({dbt_vulcan.vulcan_node_state_key(ctx.nodes[id].node): by_key.get(chosen.key, [])}) -%}
  {%- endfor -%}
  {{ return({'by_key': by_key, 'resolved': resolved, 'ctx': ctx}) }}
{% endmacro %}

{#- Every model's pointer rows in this project's physical schema, by pointer key (one read of
    the log's `pointer` rows; another physical schema's, of a project sharing the state
    table, are left out): what vulcan_plan compares environments with, what
    vulcan_drop_environment removes and the janitor keeps. -#}
{% macro vulcan_pointer_rows() %}
  {%- set prefix = dbt_vulcan.vulcan_state_key(none, dbt_vulcan.vulcan_physical_schema(), '') -%}
  {%- set out = {} -%}
  {%- for key, rows in dbt_vulcan.vulcan_log_read(none, 'pointer').items() if key.startswith(prefix) -%}
    {%- do out.update({key: rows}) -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}
