{#- dbt run-operation vulcan_plan --args '{select: "daily_sales tag:sales", start: ..., end: ..., execution_time: ...}'
    Per model: processed coverage, missing intervals, the batches the next `dbt run` (with the
    same vars) executes, pending restatements, and models changed since they were recorded. -#}
{% macro vulcan_plan(select=none, start=none, end=none, execution_time=none) %}
  {{ return(adapter.dispatch('vulcan_plan', 'dbt_vulcan')(select, start, end, execution_time)) }}
{% endmacro %}

{% macro default__vulcan_plan(select, start, end, execution_time) %}
  {%- set found = dbt_vulcan._vulcan_operation_models(select) -%}
  {{ print(adapter.vulcan_plan_report(found.nodes, found.exists, start, end, execution_time)) }}
{% endmacro %}
