{#- Written but not recorded, for a write that is not idempotent. A batch whose write applied
    twice would count twice (an accumulating `when_matched`, `target.n + source.n`) is bracketed
    in the state log: before the write, a `writing` row over its interval carries a mark of the
    table as it was; after it, the `processed` row settles it (engine/run_batches.sql). A crash
    or a failed append between the two leaves the `writing` row pending
    (state/log.sql, vulcan_log_summary). The model's next run settles it before planning,
    from the table itself (vulcan_settle_writes, called by engine/begin.sql): the write
    committed -> `processed` is recorded and the run does not apply it again; it did not ->
    `abandoned`, and the interval is due again. One append settles every pending write; a run
    with none pays nothing.

    The mark and the test of a commit, per table format: `vulcan_write_check_<file_format>(args)`
    (found like a write strategy, engine/strategy.sql), args = {relation, action, stage, mark,
    replayed}:
      action 'mark'       -> the mark (a mapping, recorded in the `writing` row's details)
      action 'committed'  -> whether the write after `mark` committed
      action 'recorded'   -> the batch is recorded: what the mark kept can go
    Delta: the table's version; committed when the commit right after it is a MERGE. Iceberg:
    its current snapshot; committed when a snapshot whose parent it is appends or overwrites
    data. Parquet: the stage the batch is swapped in from (engine/stage.sql), kept until the
    batch is recorded; committed when the next run found it complete and replayed its swap
    (`replayed`: vulcan_recover_interrupted_write's list). -#}

{% macro vulcan_write_mark(relation, cfg) %}
  {%- set check = dbt_vulcan.vulcan_strategy_macro('write_check', cfg.file_format) -%}
  {{ return(check({'relation': relation, 'action': 'mark', 'stage': dbt_vulcan.vulcan_stage_relation(relation)})) }}
{% endmacro %}

{% macro vulcan_write_recorded(relation, cfg) %}
  {%- set check = dbt_vulcan.vulcan_strategy_macro('write_check', cfg.file_format) -%}
  {% do check({'relation': relation, 'action': 'recorded', 'stage': dbt_vulcan.vulcan_stage_relation(relation)}) %}
{% endmacro %}

{#- Settles the pending writes of `rows` (the relation's log as read, in replay order; the
    settling rows are appended to it too, so the plan made from it sees them). -#}
{% macro vulcan_settle_writes(relation, cfg, rows, replayed) %}
  {%- if not (rows | selectattr('row_type', 'equalto', 'writing') | list) -%}{{ return(none) }}{%- endif -%}
  {%- set pending = dbt_vulcan.vulcan_log_summary(rows).pending_writes -%}
  {%- if pending -%}
    {% do dbt_vulcan._vulcan_settle_pending(relation, cfg, rows, pending, replayed) %}
  {%- endif -%}
{% endmacro %}

{#- The settling of `pending` (the writes the log left open), in its own macro: a run with
    none compiles none of it. -#}
{% macro _vulcan_settle_pending(relation, cfg, rows, pending, replayed) %}
  {%- set check = dbt_vulcan.vulcan_strategy_macro('write_check', cfg.file_format) -%}
  {%- set now = dbt_vulcan.vulcan_micros(modules.datetime.datetime.utcnow()) -%}
  {#- the rows carry their own append (parquet): a fold of this run, which reads them with the
      rest, drops it with the others -#}
  {%- set append_id = dbt_vulcan.vulcan_state_append_id() if dbt_vulcan.vulcan_state_file_format() == 'parquet' else '' -%}
  {%- set settled = [] -%}
  {%- for w in pending -%}
    {%- set mark = dbt_vulcan.vulcan_log_details(w).get('write_mark') -%}
    {%- set committed = mark is mapping and check({'relation': relation, 'action': 'committed', 'mark': mark, 'replayed': replayed}) -%}
    {%- set row = {} -%}
    {%- do row.update(w) -%}
    {%- do row.update({'row_type': 'processed' if committed else 'abandoned', 'invocation_id': invocation_id, 'at': now, 'seq': loop.index, 'append_id': append_id}) -%}
    {%- do settled.append(row) -%}
    {%- set range = dbt_vulcan.vulcan_range_text(w.start, w.end, false) -%}
    {%- if committed -%}
      {{ log("Model '" ~ cfg.model ~ "': the batch " ~ range ~ " of a run that stopped before recording it had committed; recorded now, not applied again.", info=True) }}
    {%- else -%}
      {{ log("Model '" ~ cfg.model ~ "': the batch " ~ range ~ " of a run that stopped had not committed; it runs again.", info=True) }}
    {%- endif -%}
  {%- endfor -%}
  {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_log_values_sql(settled), append_id) %}
  {% do rows.extend(settled) %}
{% endmacro %}

{% macro vulcan_write_check_delta(args) %}
  {%- if args.action == 'mark' -%}
    {%- set latest = run_query('describe history ' ~ args.relation ~ ' limit 1').rows -%}
    {{ return({'version': latest[0]['version'] | int}) }}
  {%- elif args.action == 'committed' -%}
    {%- set after = (args.mark.get('version') | int) + 1 -%}
    {%- set history = run_query('describe history ' ~ args.relation ~ ' limit 1000').rows -%}
    {%- for row in history if row['version'] | int == after -%}
      {{ return(row['operation'] == 'MERGE') }}
    {%- endfor -%}
    {%- if history and history[-1]['version'] | int > after -%}
      {{ exceptions.raise_compiler_error(args.relation ~ ': a run stopped between a batch\'s write and its record, and the table has had more than 1000 commits since (version ' ~ after ~ ' is not in its latest 1000), so whether that write committed cannot be told. Nothing was written. Restate the model (`dbt run-operation vulcan_restate`) to rebuild its history.') }}
    {%- endif -%}
    {{ return(false) }}
  {%- endif -%}
{% endmacro %}

{% macro vulcan_write_check_iceberg(args) %}
  {%- if args.action == 'mark' -%}
    {%- set latest = run_query('select snapshot_id from ' ~ args.relation ~ '.snapshots order by committed_at desc limit 1').rows -%}
    {{ return({'snapshot': (latest[0][0] | string) if latest else none}) }}
  {%- elif args.action == 'committed' -%}
    {%- set parent = args.mark.get('snapshot') -%}
    {% do run_query('refresh table ' ~ args.relation) %}
    {%- set children = run_query('select operation from ' ~ args.relation ~ '.snapshots where parent_id ' ~ ('= ' ~ (parent | int) if parent else 'is null')).rows -%}
    {{ return(children | map(attribute=0) | select('in', ['append', 'overwrite']) | list | length > 0) }}
  {%- endif -%}
{% endmacro %}

{% macro vulcan_write_check_parquet(args) %}
  {%- if args.action == 'mark' -%}
    {{ return({'stage': args.stage.identifier | lower}) }}
  {%- elif args.action == 'committed' -%}
    {{ return((args.mark.get('stage') or '') in (args.replayed or [])) }}
  {%- elif args.action == 'recorded' -%}
    {% do dbt_vulcan.vulcan_stage_drop(args.stage) %}
  {%- endif -%}
{% endmacro %}
