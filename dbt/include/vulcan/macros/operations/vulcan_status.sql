{#- dbt run-operation vulcan_status --args '{select: ..., since: 2025-01-01, until: 2025-01-31}' -#}
{% macro vulcan_status(select=none, since=none, until=none) %}
  {{ return(adapter.dispatch('vulcan_status', 'dbt_vulcan')(select, since, until)) }}
{% endmacro %}

{% macro default__vulcan_status(select, since, until) %}
  {%- set found = dbt_vulcan._vulcan_operation_models(select) -%}
  {{ print(adapter.vulcan_status_report(found.nodes, found.exists, since, until)) }}
{% endmacro %}
