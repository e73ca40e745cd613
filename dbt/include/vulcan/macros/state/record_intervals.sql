{#- Appends rows to the log (never UPDATE or DELETE). `rows` come from
    adapter.vulcan_state_rows(...): values are built and escaped in Python. The adapter runs
    the INSERT under a process-wide lock (dbt threads share one Spark session) and then adds
    the rows to the invocation's cache. -#}

{% macro vulcan_record_intervals(rows) %}
  {{ return(adapter.dispatch('vulcan_record_intervals', 'dbt_vulcan')(rows)) }}
{% endmacro %}

{% macro default__vulcan_record_intervals(rows) %}
  {%- if rows.values_sql -%}
    {%- set insert_sql -%}
      insert into {{ vulcan_state_relation() }} values {{ rows.values_sql }}
    {%- endset -%}
    {% do adapter.vulcan_append_state(insert_sql, rows) %}
  {%- endif -%}
{% endmacro %}
