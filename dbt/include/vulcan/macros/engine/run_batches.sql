{#- The batch loop every batched kind shares: for each planned batch, render the model's SQL
    with the batch's time tokens (wrapped in the output filter when the kind has a time column),
    call the kind's write strategy for the table format, then record the batch's interval in
    the state log (an untracked run: the run, as an empty range) and print a progress line.

    A strategy is a macro `vulcan_<kind>_<file_format>(args)`; `args` holds relation, model,
    cfg, batch, sql, query (unwrapped), filter, time_type, dirty, removed_rows, plan, per_run,
    write_marked (the batch's write is bracketed in the log: engine/write_check.sql; a parquet
    strategy then leaves its stage to the bracket),
    projection (the columns `sql` selects when not the query's own: engine/materialize.sql)
    (a dict a strategy may keep values in from one batch to the next), plus the entries of
    `extra`: `created` (the table was just (re)created: its first batch writes into an empty
    table, engine/materialize.sql) and the kind's own per-run values.

    A model with audits (or grains) first stages each batch's rows in a table and audits them
    (audits/audits.sql); a failing blocking audit raises before the strategy runs,
    so neither the table nor the state log is touched. The strategy then gets
    `args.sql = select * from <stage>`: the batch is computed once. Without audits the loop
    runs no extra statement.

    A Python model's batch SQL reads the temporary view of the DataFrame it returned for the
    batch (engine/python_batch.sql); the views are dropped after each batch. -#}
{% macro vulcan_run_batches(kind, strategy_kind, relation, plan, cfg, time_type, projection=none, action='insert', extra=none) %}
  {%- set strategy = dbt_vulcan.vulcan_strategy_macro(strategy_kind, cfg.file_format) -%}
  {%- set recorded_details = {'time_type': time_type, 'layout': dbt_vulcan.vulcan_layout(cfg)} -%}
  {%- if plan.get('safety') -%}{%- do recorded_details.update({'safety': plan.safety}) -%}{%- endif -%}
  {%- if plan.get('ts_bounds') -%}{%- do recorded_details.update({'ts_bounds': plan.ts_bounds}) -%}{%- endif -%}
  {%- if plan.get('settings_key') -%}{%- do recorded_details.update({'settings_key': plan.settings_key}) -%}{%- endif -%}
  {%- if plan.get('columns') -%}{%- do recorded_details.update({'columns': plan.columns}) -%}{%- endif -%}
  {%- if plan.get('timestamp_partitions') is not none -%}{%- do recorded_details.update({'timestamp_partitions': plan.timestamp_partitions}) -%}{%- endif -%}
  {%- set details = tojson(recorded_details) -%}
  {#- the settings this run validated ride on its first recorded row (planning/model_state.sql) -#}
  {%- if plan.get('settings_key') and plan.get('settings_record') is mapping -%}
    {%- do recorded_details.update(plan.settings_record) -%}
  {%- endif -%}
  {%- set first_details = tojson(recorded_details) -%}
  {%- set run_batches = [] if flags.EMPTY else plan.batches -%}
  {%- set stage = dbt_vulcan.vulcan_audit_stage_relation(relation) -%}
  {%- set audits = dbt_vulcan.vulcan_audits(cfg) if run_batches and (cfg.audits or cfg.grains) else [] -%}
  {%- set per_run = {} -%}
  {%- for batch in run_batches -%}
    {%- set started = modules.datetime.datetime.now() -%}
    {%- set query = dbt_vulcan.vulcan_python_batch_query(compiled_code, batch, plan.execution_time) if model.language == 'python' else compiled_code -%}
    {%- set rendered = dbt_vulcan.vulcan_batch_query(query, cfg, batch, time_type, plan.execution_time, projection) -%}
    {%- set batch_sql = rendered.sql -%}
    {%- if audits -%}
      {%- set batch_sql = dbt_vulcan.vulcan_audit_batch(stage, audits, rendered.sql, batch, cfg.file_format) -%}
    {%- endif -%}
    {%- set interval = [[batch.start, batch.end]] -%}
    {%- set args = {
      'relation': relation, 'model': model, 'cfg': cfg, 'batch': batch, 'plan': plan,
      'sql': batch_sql, 'query': rendered.query, 'filter': rendered.filter,
      'time_type': time_type, 'dirty': batch.dirty, 'per_run': per_run, 'projection': projection,
      'removed_rows': dbt_vulcan.vulcan_state_values(relation, interval, 'removed', plan.fingerprint) if batch.dirty else none,
    } -%}
    {%- if extra -%}{%- do args.update(extra) -%}{%- endif -%}
    {#- a write that is not idempotent (extra.write_check) is bracketed by a `writing` row
        (engine/write_check.sql); not the first batch into a table this run created: a rerun
        finds that table without state and rebuilds it -#}
    {%- set marked = args.get('write_check') and batch.tracked and not (args.get('created') and batch.index == 1) -%}
    {%- if marked -%}
      {%- set writing_details = fromjson(first_details if loop.first else details) -%}
      {%- do writing_details.update({'write_mark': dbt_vulcan.vulcan_write_mark(relation, cfg)}) -%}
      {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_state_values(relation, interval, 'writing', plan.fingerprint, tojson(writing_details))) %}
    {%- endif -%}
    {%- do args.update({'write_marked': marked}) -%}
    {% do strategy(args) %}
    {#- a tracked batch records its interval; an untracked run (one batch over the whole
        query) records the run itself: an empty range at the execution time, which adds no
        interval but gives the model a last run and a fingerprint (status, history, plan) -#}
    {%- set recorded = interval if batch.tracked else [[plan.execution_time, plan.execution_time]] -%}
    {%- set row_details = first_details if loop.first else details -%}
    {#- the table's columns in its order (and their types), when the write read them
        (engine/in_table_order.sql) -#}
    {%- if per_run.get('table_columns') -%}
      {%- set with_columns = fromjson(row_details) -%}
      {%- do with_columns.update({'table_columns': per_run.table_columns}) -%}
      {%- if per_run.get('table_types') -%}{%- do with_columns.update({'table_types': per_run.table_types}) -%}{%- endif -%}
      {%- set row_details = tojson(with_columns) -%}
    {%- endif -%}
    {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_state_values(relation, recorded, 'processed', plan.fingerprint, row_details)) %}
    {%- if marked -%}{% do dbt_vulcan.vulcan_write_recorded(relation, cfg) %}{%- endif -%}
    {%- if audits -%}
      {% do dbt_vulcan.vulcan_drop_audit_stage(stage, cfg.file_format) %}
    {%- endif -%}
    {% do dbt_vulcan._vulcan_log_batch(relation, batch, action, started) %}
    {% do dbt_vulcan.vulcan_python_release() %}
  {%- endfor -%}
  {% do dbt_vulcan.vulcan_python_release() %}
  {%- if plan.fingerprint_changed and not run_batches -%}
    {{ log('Model ' ~ model.name ~ ' changed since its intervals were recorded; processed intervals are kept (restate them to recompute).', info=True) }}
  {%- endif -%}
  {% do store_raw_result('main', message=dbt_vulcan._vulcan_summary(run_batches), code='OK', rows_affected=-1) %}
  {{ return(run_batches) }}
{% endmacro %}

{% macro _vulcan_summary(batches) %}
  {%- set n = batches | sum(attribute='intervals') -%}
  {%- set b = batches | length -%}
  {%- if batches and not batches[0].tracked -%}
    {{ return(b ~ ' batch' ~ ('es' if b != 1 else '')) }}
  {%- endif -%}
  {{ return(n ~ ' interval' ~ ('s' if n != 1 else '') ~ ' in ' ~ b ~ ' batch' ~ ('es' if b != 1 else '')) }}
{% endmacro %}
