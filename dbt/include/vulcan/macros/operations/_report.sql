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
      {%- set missing = dbt_vulcan.vulcan_missing_intervals(cfg, state.processed, not present or full, run.execution_time) if tracked else [] -%}
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
