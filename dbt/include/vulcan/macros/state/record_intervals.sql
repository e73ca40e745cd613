{#- Appends rows to the log (never UPDATE or DELETE), then tells the adapter's cache.
    `rows` come from adapter.vulcan_state_rows(...): values are built and escaped in Python. -#}

{% macro vulcan_record_intervals(rows) %}
  {{ return(adapter.dispatch('vulcan_record_intervals', 'dbt')(rows)) }}
{% endmacro %}

{% macro default__vulcan_record_intervals(rows) %}
  {%- if rows.values_sql -%}
    {% call statement('vulcan_record_intervals') -%}
      insert into {{ vulcan_state_relation() }} values {{ rows.values_sql }}
    {%- endcall %}
    {% do adapter.vulcan_state_recorded(rows) %}
  {%- endif -%}
{% endmacro %}
