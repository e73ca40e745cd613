{#- INCREMENTAL_BY_TIME_RANGE: the model's missing intervals (plus lookback) are computed from the
    interval state log, grouped into batches, and each batch is rendered with its time tokens,
    wrapped in the automatic output filter on `time_column`, written with the file format's
    strategy (strategies/time_range_<format>.sql) and then recorded as processed. -#}

{% materialization incremental_by_time_range, adapter='vulcan', supported_languages=['sql'] %}
  {%- set kind = 'incremental_by_time_range' -%}
  {%- set cfg = adapter.vulcan_model_config(model, kind) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set full_refresh = should_full_refresh() and existing_relation is not none -%}
  {%- if full_refresh and cfg.forward_only -%}
    {{ exceptions.raise_compiler_error("Model '" ~ model.name ~ "' is forward_only: --full-refresh would rebuild its history. Restate a range instead (vulcan_restate), or set forward_only: false.") }}
  {%- endif -%}
  {%- set rebuild = existing_relation is none or full_refresh or existing_relation.type != 'table' -%}

  {{ run_hooks(pre_hooks) }}

  {% do vulcan_load_state() %}
  {%- set plan = adapter.vulcan_plan(model, kind, target_relation, rebuild, _vulcan_run_vars()) -%}
  {%- set time_type = plan.time_type -%}
  {%- set schema_sql = adapter.vulcan_schema_sql(model, kind, compiled_code, plan.execution_time) -%}
  {%- set query_columns = none -%}
  {%- if rebuild or plan.fingerprint_changed or not time_type -%}
    {%- set query_columns = get_column_schema_from_query(schema_sql) -%}
    {%- set time_type = adapter.vulcan_time_type(model, kind, query_columns) -%}
  {%- endif -%}
  {%- set projection = none -%}

  {%- if rebuild -%}
    {%- if plan.has_state -%}
      {% do vulcan_record_intervals(adapter.vulcan_state_rows(target_relation, model, [plan.all_time], 'removed', plan.fingerprint)) %}
    {%- endif -%}
    {%- if existing_relation is not none and (existing_relation.type != 'table' or cfg.file_format == 'parquet') -%}
      {% do adapter.drop_relation(existing_relation) %}
    {%- endif -%}
    {% do vulcan_create_empty_table(target_relation, schema_sql, cfg,
                                    replace=existing_relation is not none and existing_relation.type == 'table') %}
  {%- elif plan.fingerprint_changed -%}
    {%- set projection = vulcan_apply_schema_change(target_relation, query_columns, cfg) -%}
  {%- endif -%}

  {%- set strategy = adapter.vulcan_strategy_macro(context, 'time_range', cfg.file_format) -%}
  {%- set details = tojson({'time_type': time_type}) -%}
  {%- set run_batches = [] if flags.EMPTY else plan.batches -%}
  {%- for batch in run_batches -%}
    {%- set started = modules.datetime.datetime.now() -%}
    {%- set rendered = adapter.vulcan_batch_sql(model, kind, compiled_code, batch, time_type, plan.execution_time, projection) -%}
    {%- set interval = [[batch.start, batch.end]] -%}
    {%- set args = {
      'relation': target_relation, 'model': model, 'cfg': cfg, 'batch': batch,
      'sql': rendered.sql, 'filter': rendered.filter, 'time_type': time_type,
      'dirty': batch.dirty,
      'removed_rows': adapter.vulcan_state_rows(target_relation, model, interval, 'removed', plan.fingerprint) if batch.dirty else none,
    } -%}
    {% do strategy(args) %}
    {% do vulcan_record_intervals(adapter.vulcan_state_rows(target_relation, model, interval, 'processed', plan.fingerprint, details)) %}
    {% do _vulcan_log_batch(target_relation, batch, 'insert', started) %}
  {%- endfor -%}

  {%- if plan.fingerprint_changed and not run_batches -%}
    {{ log('Model ' ~ model.name ~ ' changed since its intervals were recorded; processed intervals are kept (restate them to recompute).', info=True) }}
  {%- endif -%}
  {% do store_raw_result('main', message=_vulcan_summary(plan, run_batches), code='OK', rows_affected=-1) %}

  {{ run_hooks(post_hooks) }}
  {% do persist_docs(target_relation, model) %}
  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}

{% macro _vulcan_summary(plan, batches) %}
  {%- set n = batches | sum(attribute='intervals') -%}
  {{ return(n ~ ' interval' ~ ('s' if n != 1 else '') ~ ' in ' ~ batches | length ~ ' batch' ~ ('es' if batches | length != 1 else '')) }}
{% endmacro %}
