{#- Shared by the operations: the selected dbt-vulcan models, whether their tables exist,
    and the state log loaded once. -#}
{% macro _vulcan_operation_models(select) %}
  {% do dbt_vulcan.vulcan_load_state() %}
  {%- set nodes = adapter.vulcan_select_models(graph.nodes.values() | list, select) -%}
  {%- set exists = {} -%}
  {%- for node in nodes -%}
    {%- set relation = adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias) -%}
    {% do exists.update({node.unique_id: relation is not none}) %}
  {%- endfor -%}
  {{ return({'nodes': nodes, 'exists': exists}) }}
{% endmacro %}
