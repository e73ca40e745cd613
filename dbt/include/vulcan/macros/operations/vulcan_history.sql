{#- dbt run-operation vulcan_history --args '{select: ..., limit: 10}': recent runs per model. -#}
{% macro vulcan_history(select=none, limit=10) %}
  {{ return(adapter.dispatch('vulcan_history', 'dbt_vulcan')(select, limit)) }}
{% endmacro %}

{% macro default__vulcan_history(select, limit) %}
  {%- set found = dbt_vulcan._vulcan_operation_models(select) -%}
  {{ print(adapter.vulcan_history_report(found.nodes, limit)) }}
{% endmacro %}
