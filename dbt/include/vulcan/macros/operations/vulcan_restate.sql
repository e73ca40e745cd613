{#- dbt run-operation vulcan_restate --args '{select: daily_sales, start: 2025-01-03, end: 2025-01-05}'
    Records the range as removed (nothing else is touched): the next `dbt run` recomputes it.
    Kinds that only support full-history restatement are widened (with a warning) and rebuilt
    by the next run; models with disable_restatement: true are refused. -#}
{% macro vulcan_restate(select=none, start=none, end=none) %}
  {{ return(adapter.dispatch('vulcan_restate', 'dbt_vulcan')(select, start, end)) }}
{% endmacro %}

{% macro default__vulcan_restate(select, start, end) %}
  {%- set found = dbt_vulcan._vulcan_operation_models(select) -%}
  {%- set rows = adapter.vulcan_restate_rows(found.nodes, start, end) -%}
  {% do dbt_vulcan.vulcan_record_intervals(rows.values_sql) %}
  {%- for message in rows.messages -%}
    {{ print(message) }}
  {%- endfor -%}
{% endmacro %}
