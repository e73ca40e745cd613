{#- Per selected model, what plan and status report (operations.build_reports):
    {name, kind, key, tracked, date_grain, processed, missing, batches, pending_restatements,
     full_restatement (a pending full restatement the next run rebuilds for: not with
     forward_only), changed, exists, latest, error, held (what the plan holds back for its
     upstream models: planning/upstream.sql)}; ranges in epoch microseconds.

    `by_key`: the log (vulcan_log_read); `plans`: {unique_id: vulcan_model_plan(..)} of
    the models whose batches are reported (plan), or {} (status: batches empty, nothing
    changed). A model whose config is invalid gets its error and nothing else. -#}
{% macro _vulcan_op_reports(nodes, exists, by_key, run, plans) %}
  {%- set reports = [] -%}
  {%- for node in nodes -%}
    {%- set kind = node.config.materialized -%}
    {%- set key = dbt_vulcan.vulcan_node_state_key(node) -%}
    {%- set checked = dbt_vulcan.vulcan_cfg_run(node, kind) -%}
    {%- if checked.message -%}
      {%- do reports.append({'name': node.name, 'kind': kind, 'key': key, 'tracked': false, 'changed': false, 'error': checked.message}) -%}
    {%- else -%}
      {%- set cfg = checked.settings -%}
      {%- set state = dbt_vulcan.vulcan_log_summary(by_key.get(key, [])) -%}
      {%- set present = exists.get(node.unique_id, false) -%}
      {%- set tracked = cfg.start is not none -%}
      {%- set plan = plans.get(node.unique_id) or {} -%}
      {#- a pending full restatement rebuilds the model, unless forward_only keeps its history -#}
      {%- set full = state.pending_full and not cfg.forward_only -%}
      {%- set missing = dbt_vulcan._vulcan_op_missing(cfg, state.processed, not present or full, run.execution_time) if tracked else [] -%}
      {%- do reports.append({
        'name': node.name, 'kind': kind, 'key': key, 'tracked': tracked,
        'date_grain': cfg.interval_unit in ('day', 'week', 'month', 'quarter', 'year'),
        'processed': state.processed, 'missing': missing, 'batches': plan.get('batches', []),
        'pending_restatements': state.pending_restatements, 'full_restatement': full,
        'changed': plan.get('fingerprint_changed', false), 'exists': present,
        'latest': state.latest, 'error': none, 'held': plan.get('held'),
      }) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(reports) }}
{% endmacro %}

{#- The model's expected intervals not fully processed, merged (the oracle's planning.plan_intervals'
    `missing`), without enumerating intervals: the expected intervals span one range from the
    model's start to min(end, what is due) (_vulcan_plan_bounds); every gap of `processed`
    inside it is widened to the intervals it touches. `rebuild`: the table is (re)built, so
    nothing counts as processed. -#}
{% macro _vulcan_op_missing(cfg, processed, rebuild, execution_time) %}
  {%- set geometry = dbt_vulcan._vulcan_unit_geometry(cfg.interval_unit, cfg.week_start) -%}
  {%- if cfg.allow_partials -%}
    {%- set due_end = execution_time -%}
  {%- else -%}
    {%- set due_end = dbt_vulcan._vulcan_unit_floor(dbt_vulcan.vulcan_parse_ts(dbt_vulcan.vulcan_cron_last_tick(cfg.cron, execution_time)), geometry) -%}
  {%- endif -%}
  {%- set b = dbt_vulcan._vulcan_plan_bounds({
    'start': cfg.start, 'end': cfg.end, 'unit': cfg.interval_unit, 'week_start': cfg.week_start,
    'due_end': dbt_vulcan.vulcan_format_ts(due_end), 'allow_partials': cfg.allow_partials,
  }) -%}
  {%- set low, high = b.span_lo, b.span_hi -%}
  {%- if high <= low -%}{{ return([]) }}{%- endif -%}
  {%- if rebuild -%}{{ return([[low, high]]) }}{%- endif -%}
  {%- set gaps = [] -%}
  {%- set cursor = {'at': low} -%}
  {%- for r in processed if r[1] > cursor.at and r[0] < high -%}
    {%- if r[0] > cursor.at -%}{%- do gaps.append([cursor.at, r[0]]) -%}{%- endif -%}
    {%- do cursor.update({'at': [cursor.at, r[1]] | max}) -%}
  {%- endfor -%}
  {%- if cursor.at < high -%}{%- do gaps.append([cursor.at, high]) -%}{%- endif -%}
  {%- set missing = [] -%}
  {%- for gap in gaps -%}
    {%- set first = dbt_vulcan._vulcan_plan_index(dbt_vulcan.vulcan_log_datetime(gap[0]), b) -%}
    {%- set last = dbt_vulcan._vulcan_plan_index(dbt_vulcan.vulcan_log_datetime(gap[1]), b) -%}
    {%- set last_start = dbt_vulcan._vulcan_plan_micros(dbt_vulcan._vulcan_plan_start_of(last, b)) -%}
    {%- set end = gap[1] if last_start == gap[1] else dbt_vulcan._vulcan_plan_micros(dbt_vulcan._vulcan_plan_start_of(last + 1, b)) -%}
    {%- do missing.append([dbt_vulcan._vulcan_plan_micros(dbt_vulcan._vulcan_plan_start_of(first, b)), [end, high] | min]) -%}
  {%- endfor -%}
  {{ return(dbt_vulcan.vulcan_ranges_merge(missing)) }}
{% endmacro %}
