{#- Shared by the operations: the selected dbt-vulcan models, which of them a term named (not
    only reached through a graph operator) and whether their tables exist. Run-operations do
    not run the on-run-start hook, so the state table is created here. -#}
{#- With the virtual layer (environments/), a model's table is the physical table this
    environment uses (`virtual`: vulcan_virtual_targets, whose one read holds the log rows the
    operation needs), and it exists when the log has rows of it. -#}
{% macro _vulcan_operation_models(select, execution_time=none) %}
  {% do dbt_vulcan.vulcan_create_state_table() %}
  {%- set selected = dbt_vulcan._vulcan_select(graph.nodes.values() | list, select) -%}
  {%- set exists = {} -%}
  {%- set virtual = none -%}
  {%- if dbt_vulcan.vulcan_virtual() -%}
    {%- set virtual = dbt_vulcan.vulcan_virtual_targets(selected.nodes, execution_time or dbt_vulcan.vulcan_run_vars(none, {}).execution_time) -%}
    {%- for node in selected.nodes -%}
      {% do exists.update({node.unique_id: virtual.by_key.get(virtual.resolved[node.unique_id].key, []) | length > 0}) %}
    {%- endfor -%}
  {%- else -%}
    {%- for node in selected.nodes -%}
      {%- set relation = adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias or node.name) -%}
      {% do exists.update({node.unique_id: relation is not none}) %}
    {%- endfor -%}
  {%- endif -%}
  {{ return({'nodes': selected.nodes, 'named': selected.named, 'exists': exists, 'virtual': virtual}) }}
{% endmacro %}

{#- The one read of the log for the operations: {by_key: the rows of `found`'s models and of the
    upstream models they wait for (planning/upstream.sql), parents: {unique_id: those upstream
    nodes}}; with the virtual layer, the read vulcan_virtual_targets made. -#}
{% macro _vulcan_op_read_with_upstream(found) %}
  {%- set keys = [] -%}
  {%- set parents = {} -%}
  {%- for node in found.nodes -%}
    {%- do keys.append(dbt_vulcan.vulcan_node_state_key(node)) -%}
    {%- do parents.update({node.unique_id: dbt_vulcan.vulcan_upstream_models(node)}) -%}
    {%- do keys.extend(dbt_vulcan.vulcan_upstream_keys(parents[node.unique_id])) -%}
  {%- endfor -%}
  {%- set by_key = found.virtual.by_key if found.virtual is not none else dbt_vulcan.vulcan_log_read(keys | unique | list) -%}
  {{ return({'by_key': by_key, 'parents': parents}) }}
{% endmacro %}

{#- The dbt-vulcan models (resource type model, materialized as one of the kinds) that `select`
    selects, as `dbt ls --select` would, among `nodes` (the dbt graph's nodes); `select`: terms
    separated by spaces, or a list of them; every dbt-vulcan model when it is empty.

    A term is a model name or `tag:<tag>`, with dbt's graph operators: `name+` (and all its
    descendants), `+name` (and all its ancestors), `name+N` / `N+name` (N levels), `+name+`,
    `@name` (its descendants and all the ancestors of those and of itself). The graph is every
    node's `depends_on.nodes`, whatever its resource type (a view or a seed between two
    dbt-vulcan models does not break the chain); what is kept is the dbt-vulcan models. A term
    that selects no dbt-vulcan model is an error naming the models; so is `@` with `+`.

    {nodes: the models in DAG order (a model after every model it depends on): by their level
    (the most dbt-vulcan models on one chain of dependencies above them), then name and
    unique id; named: the unique ids of those a term's name or tag matched itself}. The
    oracle: tests/oracle/operations.py (selection). -#}
{% macro _vulcan_select(nodes, select) %}
  {%- set kinds = dbt_vulcan.vulcan_kinds() -%}
  {%- set by_id = {} -%}
  {%- set candidates = [] -%}
  {%- for node in nodes -%}
    {%- do by_id.update({node.unique_id: node}) -%}
    {%- if node.resource_type == 'model' and (node.config or {}).get('materialized') in kinds -%}
      {%- do candidates.append(node) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if select is none or select == '' or select == [] -%}
    {%- set terms = [] -%}
  {%- elif select is string -%}
    {%- set terms = select.split() -%}
  {%- elif select is iterable and select is not mapping -%}
    {%- set terms = [] -%}
    {%- for term in select -%}{%- do terms.append(term | string) -%}{%- endfor -%}
  {%- else -%}
    {%- set terms = [select | string] -%}
  {%- endif -%}
  {%- set vulcan_ids = {} -%}
  {%- for node in candidates -%}{%- do vulcan_ids.update({node.unique_id: true}) -%}{%- endfor -%}
  {%- set graph = {} -%}
  {%- set chosen = {} -%}
  {%- set named = [] -%}
  {%- set unknown = [] -%}
  {%- for term in terms -%}
    {%- set parsed = modules.re.fullmatch('(@)?(?:(\\d*)\\+)?(.+?)(?:\\+(\\d*))?', term) -%}
    {%- set at, up, base, down = parsed.groups() -%}
    {%- if at and (up is not none or down is not none) -%}
      {{ exceptions.raise_compiler_error("select: '@' and '+' cannot be combined in " ~ term) }}
    {%- endif -%}
    {%- set found = [] -%}
    {%- for node in nodes -%}
      {%- if (base.startswith('tag:') and base[4:] in (node.tags or [])) or (not base.startswith('tag:') and node.name == base) -%}
        {%- do found.append(node.unique_id) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- set reached = {} -%}
    {%- for id in found -%}{%- do reached.update({id: true}) -%}{%- endfor -%}
    {%- if found and (at or up is not none or down is not none) -%}
      {%- if not graph -%}{%- do graph.update(dbt_vulcan._vulcan_select_graph(nodes, by_id)) -%}{%- endif -%}
      {%- if at -%}
        {%- set below = dbt_vulcan._vulcan_select_reach(found, graph.children, none) -%}
        {%- do reached.update(dbt_vulcan._vulcan_select_reach(below | list, graph.parents, none)) -%}
      {%- endif -%}
      {%- if up is not none -%}
        {%- do reached.update(dbt_vulcan._vulcan_select_reach(found, graph.parents, (up | int) if up else none)) -%}
      {%- endif -%}
      {%- if down is not none -%}
        {%- do reached.update(dbt_vulcan._vulcan_select_reach(found, graph.children, (down | int) if down else none)) -%}
      {%- endif -%}
    {%- endif -%}
    {%- set kept = [] -%}
    {%- for id in reached if id in vulcan_ids -%}{%- do kept.append(id) -%}{%- endfor -%}
    {%- if not kept -%}{%- do unknown.append(term) -%}{%- endif -%}
    {%- for id in kept -%}{%- do chosen.update({id: true}) -%}{%- endfor -%}
    {%- for id in found if id in vulcan_ids and id not in named -%}{%- do named.append(id) -%}{%- endfor -%}
  {%- endfor -%}
  {%- if unknown -%}
    {%- set names = candidates | map(attribute='name') | sort(case_sensitive=true) | join(', ') -%}
    {{ exceptions.raise_compiler_error('select: no dbt-vulcan model matches ' ~ unknown | join(', ') ~ '; models: ' ~ (names or '(none)')) }}
  {%- endif -%}
  {%- set picked = [] -%}
  {%- for node in candidates if not terms or node.unique_id in chosen -%}{%- do picked.append(node) -%}{%- endfor -%}
  {%- if picked | length > 1 -%}
    {%- if not graph -%}{%- do graph.update(dbt_vulcan._vulcan_select_graph(nodes, by_id)) -%}{%- endif -%}
    {%- set levels = dbt_vulcan._vulcan_select_levels(graph, vulcan_ids) -%}
    {%- set keyed = [] -%}
    {%- for node in picked -%}
      {%- do keyed.append([levels.get(node.unique_id, 0), node.name | string, node.unique_id | string, loop.index0]) -%}
    {%- endfor -%}
    {%- set ordered = [] -%}
    {%- for key in keyed | sort -%}{%- do ordered.append(picked[key[3]]) -%}{%- endfor -%}
    {%- set picked = ordered -%}
  {%- endif -%}
  {{ return({'nodes': picked, 'named': named}) }}
{% endmacro %}

{#- The dbt graph among `nodes`: {parents, children}, each {unique id: [unique id, ...]} from
    the nodes' depends_on.nodes (an edge to a node not in `nodes`, e.g. a source, is left out). -#}
{% macro _vulcan_select_graph(nodes, by_id) %}
  {%- set parents = {} -%}
  {%- set children = {} -%}
  {%- for node in nodes -%}
    {%- do parents.setdefault(node.unique_id, []) -%}
    {%- do children.setdefault(node.unique_id, []) -%}
  {%- endfor -%}
  {%- for node in nodes -%}
    {%- for parent in ((node.depends_on or {}).get('nodes') or []) if parent in by_id and parent not in parents[node.unique_id] -%}
      {%- do parents[node.unique_id].append(parent) -%}
      {%- do children[parent].append(node.unique_id) -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return({'parents': parents, 'children': children}) }}
{% endmacro %}

{#- {unique id: true} for `start` (ids) and what `edges` reach from them in at most `depth`
    steps (none: any number). -#}
{% macro _vulcan_select_reach(start, edges, depth) %}
  {%- set seen = {} -%}
  {%- for id in start -%}{%- do seen.update({id: true}) -%}{%- endfor -%}
  {%- set st = {'frontier': start | list} -%}
  {%- for _ in range(edges | length if depth is none else depth) -%}
    {%- if not st.frontier -%}{% break %}{%- endif -%}
    {%- set next = [] -%}
    {%- for id in st.frontier -%}
      {%- for other in edges.get(id, []) if other not in seen -%}
        {%- do seen.update({other: true}) -%}
        {%- do next.append(other) -%}
      {%- endfor -%}
    {%- endfor -%}
    {%- do st.update({'frontier': next}) -%}
  {%- endfor -%}
  {{ return(seen) }}
{% endmacro %}

{#- {unique id: level} over the whole graph: a node's level is the largest, over its parents,
    of the parent's level plus one when the parent is a dbt-vulcan model (`vulcan_ids`); 0 for
    a node with no parent. Computed generation by generation (Kahn's order). -#}
{% macro _vulcan_select_levels(graph, vulcan_ids) %}
  {%- set is_vulcan = {} -%}
  {%- for id in vulcan_ids -%}{%- do is_vulcan.update({id: 1}) -%}{%- endfor -%}
  {%- set levels = {} -%}
  {%- set waiting = {} -%}
  {%- set ready = [] -%}
  {%- for id, parents in graph.parents.items() -%}
    {%- do levels.update({id: 0}) -%}
    {%- do waiting.update({id: parents | length}) -%}
    {%- if not parents -%}{%- do ready.append(id) -%}{%- endif -%}
  {%- endfor -%}
  {%- set st = {'frontier': ready} -%}
  {%- for _ in range(levels | length) -%}
    {%- if not st.frontier -%}{% break %}{%- endif -%}
    {%- set next = [] -%}
    {%- for id in st.frontier -%}
      {%- set level = levels[id] + is_vulcan.get(id, 0) -%}
      {%- for child in graph.children[id] -%}
        {%- if level > levels[child] -%}{%- do levels.update({child: level}) -%}{%- endif -%}
        {%- do waiting.update({child: waiting[child] - 1}) -%}
        {%- if waiting[child] == 0 -%}{%- do next.append(child) -%}{%- endif -%}
      {%- endfor -%}
    {%- endfor -%}
    {%- do st.update({'frontier': next}) -%}
  {%- endfor -%}
  {{ return(levels) }}
{% endmacro %}

{#- A model's table as a relation (what `{{ this }}` names when it runs) -#}
{% macro _vulcan_op_relation(node, found) %}
  {%- if found.virtual is not none -%}{{ return(found.virtual.resolved[node.unique_id].relation) }}{%- endif -%}
  {{ return(api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias or node.name, type='table')) }}
{% endmacro %}
