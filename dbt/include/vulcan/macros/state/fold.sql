{#- The fold: a relation's log kept short, so that what a run reads (and plans from) stays
    bounded however many runs the model has had.

    A model run whose read returned at least `vulcan_state_fold_rows` rows (a var, default 100;
    0 turns folding off) replaces them by their compacted equivalent, as `vulcan_compact` does
    for the whole log: one processed row per replayed range, carrying the latest processed
    row's fingerprint, time and details (state/log.sql, vulcan_log_compact). Replaying
    the folded rows gives the same intervals, so the plan, made from the rows read, is the same
    either way.

    Safe like every other state write, with dbt's threads and with a crash at any point:
    - parquet: the folded rows are appended (a partition of their own), then the appends the
      read's rows came from are dropped (only this relation's partitions; an append made after
      the read is not among them). A run stopped between the two leaves both, which replays to
      the same intervals (every folded row re-adds a range that no later row removed); the next
      fold drops both.
    - Delta and Iceberg: one statement, one commit: the relation's partition (the state table
      is partitioned by relation, create_state_table.sql) is overwritten with the folded rows
      and the rows recorded after the newest row read. A static partition overwrite: no
      row-level scan (Iceberg refuses one whose table another thread of the same Spark session
      commits to meanwhile), and another thread's append or fold, in its own partition, never
      conflicts with it. A state table created before that layout is not folded (one line says
      so); `dbt run-operation vulcan_compact` repartitions it.
    - nothing pending is lost: a log with a restatement not yet recomputed, a write not yet
      settled (engine/write_check.sql) or a stage a stopped run may have left (engine/stage.sql)
      is not folded (the run that recomputes or settles it
      comes first), nor one whose compaction would not halve it (a
      fragmented history).

    Not on a rebuild (its reset row supersedes the log anyway). Returns whether it folded. -#}
{% macro vulcan_fold_state(key, rows, model_name, rebuild=false) %}
  {%- set limit = dbt_vulcan.vulcan_state_fold_rows() -%}
  {%- if rebuild or limit == 0 or rows | length < limit -%}{{ return(false) }}{%- endif -%}
  {{ return(dbt_vulcan._vulcan_fold_long_log(key, rows, model_name)) }}
{% endmacro %}

{#- The fold of a log past the limit, in its own macro: a run below it compiles none of it. -#}
{% macro _vulcan_fold_long_log(key, rows, model_name) %}
  {%- set summary = dbt_vulcan.vulcan_log_summary(rows) -%}
  {%- if summary.pending_restatements or summary.pending_full or summary.pending_writes or summary.pending_stages -%}
    {{ log("Model '" ~ model_name ~ "': the state log (" ~ rows | length ~ " rows) is not folded while a restatement, a write or a stage is pending", info=false) }}
    {{ return(false) }}
  {%- endif -%}
  {%- set folded = dbt_vulcan.vulcan_log_compact({key: rows}) -%}
  {%- if folded | length * 2 > rows | length -%}{{ return(false) }}{%- endif -%}
  {%- set state = dbt_vulcan.vulcan_state_relation() -%}
  {%- if dbt_vulcan.vulcan_state_file_format() == 'parquet' -%}
    {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_log_values_sql(folded)) %}
    {% do dbt_vulcan.vulcan_state_drop_appends(state, key, rows) %}
  {%- elif dbt_vulcan.vulcan_state_by_relation(state) -%}
    {% do run_query(dbt_vulcan._vulcan_state_fold_overwrite_sql(state, key, rows, folded)) %}
    {% do dbt_vulcan.vulcan_state_rewritten(key) %}
  {%- else -%}
    {{ log("Model '" ~ model_name ~ "': the state log holds " ~ rows | length ~ " rows and is not folded: " ~ state ~ " predates the state table's partitioning by relation. Run `dbt run-operation vulcan_compact` once, while no dbt run writes state, to repartition and compact it.", info=true) }}
    {{ return(false) }}
  {%- endif -%}
  {{ log("Model '" ~ model_name ~ "': state log folded, " ~ rows | length ~ " rows -> " ~ folded | length, info=false) }}
  {{ return(true) }}
{% endmacro %}

{#- Removes relation `key`'s rows `rows` (read just before) from the log, keeping any appended
    after the read: the janitor's, for a physical table it dropped. Returns false (nothing
    removed) for a Delta or Iceberg state table from before its partitioning by relation. -#}
{% macro vulcan_state_remove_relation(key, rows) %}
  {%- set state = dbt_vulcan.vulcan_state_relation() -%}
  {%- if not rows -%}{{ return(true) }}{%- endif -%}
  {%- if dbt_vulcan.vulcan_state_file_format() == 'parquet' -%}
    {% do dbt_vulcan.vulcan_state_drop_appends(state, key, rows) %}
  {%- elif dbt_vulcan.vulcan_state_by_relation(state) -%}
    {% do run_query(dbt_vulcan._vulcan_state_fold_overwrite_sql(state, key, rows, [])) %}
    {% do dbt_vulcan.vulcan_state_rewritten(key) %}
  {%- else -%}
    {{ return(false) }}
  {%- endif -%}
  {{ return(true) }}
{% endmacro %}

{#- Parquet: drops the appends (partitions) the rows `rows` of relation `key` came from, 500 a
    statement. -#}
{% macro vulcan_state_drop_appends(state, key, rows) %}
  {%- set q = dbt_vulcan.vulcan_sql_string -%}
  {%- for chunk in rows | map(attribute='append_id') | select | unique | sort | batch(500) -%}
    {%- set specs = [] -%}
    {%- for append_id in chunk -%}
      {%- do specs.append('partition (relation = ' ~ q(key) ~ ', append_id = ' ~ q(append_id) ~ ')') -%}
    {%- endfor -%}
    {% do run_query('alter table ' ~ state ~ ' drop if exists ' ~ specs | join(', ')) %}
  {%- endfor -%}
  {% do dbt_vulcan.vulcan_state_rewritten(key) %}
{% endmacro %}

{#- Delta and Iceberg: the overwrite of relation `key`'s partition by `folded` and the rows
    recorded after the newest of `rows`. The stored time is 'YYYY-MM-DD HH:MM:SS', with
    '.ffffff' unless the microseconds are 0, so against the newest time written in full it
    compares as text as it does as a time. -#}
{% macro _vulcan_state_fold_overwrite_sql(state, key, rows, folded) %}
  {%- set q = dbt_vulcan.vulcan_sql_string -%}
  {%- set names = dbt_vulcan._vulcan_state_row() | map(attribute=0) | list -%}
  {%- set kept = names[1:] | join(', ') -%}
  {%- set newest = dbt_vulcan.vulcan_log_datetime(rows | map(attribute='at') | max).strftime('%Y-%m-%d %H:%M:%S.%f') -%}
  {%- set parts = [] -%}
  {%- if folded -%}
    {%- do parts.append('select ' ~ kept ~ ' from values ' ~ dbt_vulcan.vulcan_log_values_sql(folded) ~ ' as vulcan_rows(' ~ names | join(', ') ~ ')') -%}
  {%- endif -%}
  {%- do parts.append('select ' ~ kept ~ ' from ' ~ state ~ ' where relation = ' ~ q(key) ~ ' and recorded_at > ' ~ q(newest)) -%}
  {{ return('insert overwrite table ' ~ state ~ ' partition (relation = ' ~ q(key) ~ ')\n' ~ parts | join('\nunion all\n')) }}
{% endmacro %}

{#- Whether a Delta or Iceberg state table is partitioned by relation (one created by an
    earlier dbt-vulcan is not). -#}
{% macro vulcan_state_by_relation(state) %}
  {%- set partitioned = [] -%}
  {%- set st = {'section': false} -%}
  {%- for row in run_query('describe table ' ~ state).rows -%}
    {%- set name = (row[0] or '') | string | trim -%}
    {%- if name.startswith('#') and 'col_name' not in name -%}
      {%- do st.update({'section': 'partition' in name.lower()}) -%}
    {%- elif name.startswith('#') -%}
    {%- elif st.section and name -%}
      {#- Spark: '# Partition Information' then the columns; a v2 table: '# Partitioning'
          then 'Part 0' with the transform ('relation') as its type -#}
      {%- do partitioned.append(((row[1] or '') | string | trim) if name.startswith('Part ') else name) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return('relation' in partitioned) }}
{% endmacro %}

{#- The var `vulcan_state_fold_rows` (default 100): a whole number of rows, 0 turns folding off. -#}
{% macro vulcan_state_fold_rows() %}
  {%- set value = var('vulcan_state_fold_rows', 100) -%}
  {%- set text = value | string | trim -%}
  {%- if value is boolean or not (value is number or value is string) or not modules.re.match('^[0-9]{1,9}$', text) -%}
    {{ exceptions.raise_compiler_error('vulcan_state_fold_rows: ' ~ (text | tojson) ~ ' is not a whole number of rows (a run whose state log has that many rows or more folds it; 0 never folds)') }}
  {%- endif -%}
  {{ return(text | int) }}
{% endmacro %}
