{#- dbt run-operation vulcan_compact: rewrites the state log as its minimal equivalent (one
    processed row per contiguous range). Replay gives the same intervals before and after.
    A relation with a restatement pending (vulcan_restate, not recomputed by a run yet) is
    left as it is, as the fold leaves it: the next dbt run recomputes (or rebuilds) it, then a
    compaction compacts it; the summary line names those relations.
    The log is read once and compacted here (vulcan_log_compact); run it when no dbt run is
    writing state. -#}
{% macro vulcan_compact() %}
  {% do dbt_vulcan.vulcan_create_state_table() %}
  {%- set state = dbt_vulcan.vulcan_state_relation() -%}
  {%- set file_format = dbt_vulcan.vulcan_state_file_format() -%}
  {%- set by_key = dbt_vulcan.vulcan_log_read() -%}
  {%- set before = by_key.values() | map('length') | sum -%}
  {%- set kept = [] -%}
  {%- set rows = dbt_vulcan.vulcan_log_compact(by_key, kept) -%}
  {%- if file_format == 'parquet' -%}
    {#- the compacted rows are one new append; then the appends read are dropped (one made
        meanwhile is kept). Stopped between the two, the log holds both, which replays to the
        same intervals. A relation left as it is is neither appended nor dropped -#}
    {%- set written = [] -%}
    {%- for row in rows if row.relation not in kept -%}{%- do written.append(row) -%}{%- endfor -%}
    {%- if written -%}
      {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_log_values_sql(written)) %}
    {%- endif -%}
    {%- for key, read in by_key | dictsort if key not in kept -%}
      {% do dbt_vulcan.vulcan_state_drop_appends(state, key, read) %}
    {%- endfor -%}
  {%- else -%}
    {#- Delta and Iceberg: staged, then swapped in by one overwrite (`create table .. like`
        would not keep their format); a table created before the state table was partitioned
        by relation is replaced by one that is, atomically (state/fold.sql). A relation left
        as it is is staged with its rows as read -#}
    {%- set stage = state.incorporate(path={'identifier': state.identifier ~ '__compact'}) -%}
    {%- set drop_stage = 'drop table if exists ' ~ stage ~ (' purge' if file_format == 'iceberg' else '') -%}
    {% do run_query(drop_stage) %}
    {%- for statement in dbt_vulcan.vulcan_create_state_table_sql(stage) -%}
      {% do run_query(statement) %}
    {%- endfor -%}
    {%- if rows -%}
      {% do run_query('insert into ' ~ stage ~ ' values ' ~ dbt_vulcan.vulcan_log_values_sql(rows)) %}
    {%- endif -%}
    {%- if dbt_vulcan.vulcan_state_by_relation(state) -%}
      {% do run_query('insert overwrite table ' ~ state ~ ' select * from ' ~ stage) %}
    {%- else -%}
      {% do run_query('create or replace table ' ~ state ~ '\n' ~ dbt_vulcan.vulcan_state_table_clauses(file_format) ~ '\nas select * from ' ~ stage) %}
      {{ print('Repartitioned the state table by relation: ' ~ state) }}
    {%- endif -%}
    {% do run_query(drop_stage) %}
  {%- endif -%}
  {% do dbt_vulcan.vulcan_state_rewritten() %}
  {%- set left = '' -%}
  {%- if kept -%}
    {%- set left = ' (' ~ kept | length ~ (' relation left as it is' if kept | length == 1 else ' relations left as they are') ~ ' while a restatement is pending: ' ~ kept | join(', ') ~ ')' -%}
  {%- endif -%}
  {{ print('Compacted the state log: ' ~ before ~ ' rows -> ' ~ rows | length ~ ' rows' ~ left) }}
{% endmacro %}
