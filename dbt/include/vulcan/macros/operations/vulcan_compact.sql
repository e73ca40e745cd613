{#- dbt run-operation vulcan_compact: rewrites the state log as its minimal equivalent (one
    processed row per contiguous range). Replay gives the same intervals before and after.
    The log is read once and compacted here (_vulcan_op_compact); the compacted rows are staged
    in a table first; run it when no dbt run is writing state. -#}
{% macro vulcan_compact() %}
  {{ return(adapter.dispatch('vulcan_compact', 'dbt_vulcan')()) }}
{% endmacro %}

{% macro default__vulcan_compact() %}
  {% do dbt_vulcan.vulcan_create_state_table() %}
  {%- set state = dbt_vulcan.vulcan_state_relation() -%}
  {%- set stage = state.incorporate(path={'identifier': state.identifier ~ '__compact'}) -%}
  {%- set by_key = dbt_vulcan._vulcan_op_read_log() -%}
  {%- set before = by_key.values() | map('length') | sum -%}
  {%- set rows = dbt_vulcan._vulcan_op_compact(by_key) -%}
  {%- set drop_stage = 'drop table if exists ' ~ stage ~ (' purge' if dbt_vulcan.vulcan_state_file_format() == 'iceberg' else '') -%}
  {% do run_query(drop_stage) %}
  {%- for statement in dbt_vulcan.vulcan_create_state_table_sql(stage) -%}
    {% do run_query(statement) %}
  {%- endfor -%}
  {%- if rows -%}
    {% do run_query('insert into ' ~ stage ~ ' values ' ~ dbt_vulcan._vulcan_op_values_sql(rows)) %}
  {%- endif -%}
  {% do run_query('insert overwrite table ' ~ state ~ ' select * from ' ~ stage) %}
  {% do run_query(drop_stage) %}
  {{ print('Compacted the state log: ' ~ before ~ ' rows -> ' ~ rows | length ~ ' rows') }}
{% endmacro %}
