{#- dbt run-operation vulcan_compact: rewrites the state log as its minimal equivalent (one
    processed row per contiguous range). Replay gives the same intervals before and after.
    The log is read once and compacted here (_vulcan_op_compact); run it when no dbt run is
    writing state. -#}
{% macro vulcan_compact() %}
  {% do dbt_vulcan.vulcan_create_state_table() %}
  {%- set state = dbt_vulcan.vulcan_state_relation() -%}
  {%- set file_format = dbt_vulcan.vulcan_state_file_format() -%}
  {%- set by_key = dbt_vulcan._vulcan_op_read_log() -%}
  {%- set before = by_key.values() | map('length') | sum -%}
  {%- set rows = dbt_vulcan._vulcan_op_compact(by_key) -%}
  {%- if file_format == 'parquet' -%}
    {#- the compacted rows are one new append; then the appends read are dropped (one made
        meanwhile is kept). Stopped between the two, the log holds both, which replays to the
        same intervals -#}
    {%- if rows -%}
      {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan._vulcan_op_values_sql(rows)) %}
    {%- endif -%}
    {%- for key, read in by_key | dictsort -%}
      {% do dbt_vulcan._vulcan_state_drop_appends(state, key, read) %}
    {%- endfor -%}
  {%- else -%}
    {#- Delta and Iceberg: staged, then swapped in by one overwrite (`create table .. like`
        would not keep their format); a table created before the state table was partitioned
        by relation is replaced by one that is, atomically (state/fold.sql) -#}
    {%- set stage = state.incorporate(path={'identifier': state.identifier ~ '__compact'}) -%}
    {%- set drop_stage = 'drop table if exists ' ~ stage ~ (' purge' if file_format == 'iceberg' else '') -%}
    {% do run_query(drop_stage) %}
    {%- for statement in dbt_vulcan.vulcan_create_state_table_sql(stage) -%}
      {% do run_query(statement) %}
    {%- endfor -%}
    {%- if rows -%}
      {% do run_query('insert into ' ~ stage ~ ' values ' ~ dbt_vulcan._vulcan_op_values_sql(rows)) %}
    {%- endif -%}
    {%- if dbt_vulcan._vulcan_state_by_relation(state) -%}
      {% do run_query('insert overwrite table ' ~ state ~ ' select * from ' ~ stage) %}
    {%- else -%}
      {% do run_query('create or replace table ' ~ state ~ '\n' ~ dbt_vulcan._vulcan_state_table_clauses(file_format) ~ '\nas select * from ' ~ stage) %}
      {{ print('Repartitioned the state table by relation: ' ~ state) }}
    {%- endif -%}
    {% do run_query(drop_stage) %}
  {%- endif -%}
  {{ print('Compacted the state log: ' ~ before ~ ' rows -> ' ~ rows | length ~ ' rows') }}
{% endmacro %}
