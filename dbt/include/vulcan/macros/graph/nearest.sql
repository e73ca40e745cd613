{#- The nearest dbt-vulcan models above a node on dbt's graph: the walk goes up `depends_on`
    through every other model (views, tables, ephemeral models) and stops at seeds, snapshots
    and sources, and at each dbt-vulcan model it keeps; with `with_start`, only those with
    `start` (intervals) are kept, and the walk passes the others. {unique_id: node}. -#}
{% macro vulcan_nearest_models(node, with_start=false) %}
  {%- set kinds = dbt_vulcan.vulcan_kinds() -%}
  {%- set found = {} -%}
  {%- set seen = {} -%}
  {%- set todo = ((node.get('depends_on') or {}).get('nodes') or []) | list -%}
  {#- a loop over a growing list: Jinja's for runs over what was appended while it runs -#}
  {%- for id in todo if id not in seen -%}
    {%- do seen.update({id: true}) -%}
    {%- set parent = graph.nodes.get(id) -%}
    {%- if parent is not none and parent.resource_type == 'model' -%}
      {%- set config = dbt_vulcan.vulcan_node_config(parent) -%}
      {%- if config.get('materialized') in kinds and (not with_start or config.get('start') is not none) -%}
        {%- do found.update({parent.unique_id: parent}) -%}
      {%- else -%}
        {%- do todo.extend(((parent.get('depends_on') or {}).get('nodes') or []) | list) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(found) }}
{% endmacro %}
