{#- Reads the whole log once per dbt invocation into the adapter's cache (creating the table
    on first use); later models of the same invocation read the cache. -#}

{% macro vulcan_load_state() %}
  {{ return(adapter.dispatch('vulcan_load_state', 'dbt_vulcan')()) }}
{% endmacro %}

{% macro default__vulcan_load_state() %}
  {%- set state = dbt_vulcan.vulcan_state_relation() -%}
  {%- set read_sql -%}
    select relation, model_id, interval_start, interval_end, row_type, fingerprint,
           invocation_id, recorded_at, seq, details
    from {{ state }}
  {%- endset -%}
  {% do adapter.vulcan_load_state(read_sql, dbt_vulcan.vulcan_create_state_table_sql()) %}
{% endmacro %}
