{#- Appends rows to the log (never UPDATE or DELETE). `values_sql` comes from
    vulcan_state_values (plan.sql): every value is escaped there. -#}

{% macro vulcan_record_intervals(values_sql) %}
  {{ return(adapter.dispatch('vulcan_record_intervals', 'dbt_vulcan')(values_sql)) }}
{% endmacro %}

{% macro default__vulcan_record_intervals(values_sql) %}
  {%- if values_sql -%}
    {% call statement('vulcan_record_intervals') -%}
      insert into {{ dbt_vulcan.vulcan_state_relation() }} values {{ values_sql }}
    {%- endcall %}
  {%- endif -%}
{% endmacro %}

{#- The `vulcan` adapter runs the INSERT under a process-wide lock: dbt threads share one Spark
    session, and concurrent INSERTs into one parquet table collide on Hadoop's shared
    `_temporary` directory. -#}
{% macro vulcan__vulcan_record_intervals(values_sql) %}
  {%- if values_sql -%}
    {% do adapter.vulcan_append_state('insert into ' ~ dbt_vulcan.vulcan_state_relation() ~ ' values ' ~ values_sql) %}
  {%- endif -%}
{% endmacro %}
