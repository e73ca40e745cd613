{#- dbt run-operation vulcan_compact: rewrites the state log as its minimal equivalent (one
    processed row per contiguous range). Replay gives the same intervals before and after.
    The compacted rows are staged in a table first; run it when no dbt run is writing state. -#}
{% macro vulcan_compact() %}
  {{ return(adapter.dispatch('vulcan_compact', 'dbt_vulcan')()) }}
{% endmacro %}

{% macro default__vulcan_compact() %}
  {% do dbt_vulcan.vulcan_load_state() %}
  {%- set state = dbt_vulcan.vulcan_state_relation() -%}
  {%- set stage = state.incorporate(path={'identifier': state.identifier ~ '__compact'}) -%}
  {%- set rows = adapter.vulcan_compact_rows() -%}
  {%- set drop_stage = 'drop table if exists ' ~ stage ~ (' purge' if dbt_vulcan.vulcan_state_file_format() == 'iceberg' else '') -%}
  {% do run_query(drop_stage) %}
  {%- for statement in dbt_vulcan.vulcan_create_state_table_sql(stage) -%}
    {% do run_query(statement) %}
  {%- endfor -%}
  {%- if rows.values_sql -%}
    {% do run_query('insert into ' ~ stage ~ ' values ' ~ rows.values_sql) %}
  {%- endif -%}
  {% do run_query('insert overwrite table ' ~ state ~ ' select * from ' ~ stage) %}
  {% do run_query(drop_stage) %}
  {% do adapter.vulcan_compacted(rows) %}
  {{ print('Compacted the state log: ' ~ rows.before ~ ' rows -> ' ~ rows.after ~ ' rows') }}
{% endmacro %}
