{#- dbt run-operation vulcan_plan --args '{select: "daily_sales tag:sales", start: ..., end: ..., execution_time: ...}'
    Per model: processed coverage, missing intervals, the batches the next `dbt run` (with the
    same vars) executes, pending restatements, and models changed since they were recorded.
    The batches come from vulcan_model_plan, the planner the materializations run, so the
    prediction is what the next run executes. With the virtual layer (`vulcan_virtual`), the
    plan starts with the differences between this environment (the target) and prod, or the
    environment `compare_to` names: models added, directly modified, indirectly modified and
    removed (environments/differences.sql). -#}
{% macro vulcan_plan(select=none, start=none, end=none, execution_time=none, compare_to=none) %}
  {%- set run = dbt_vulcan.vulcan_run_vars(none, {'vulcan_start': start, 'vulcan_end': end, 'vulcan_execution_time': execution_time}) -%}
  {%- set found = dbt_vulcan._vulcan_operation_models(select, run.execution_time) -%}
  {%- set read = dbt_vulcan._vulcan_op_read_with_upstream(found) -%}
  {%- set by_key, parents = read.by_key, read.parents -%}
  {%- set reports = dbt_vulcan._vulcan_op_reports(found.nodes, found.exists, by_key, run, {}) -%}
  {#- planned in DAG order, as `dbt run` of the same selection runs them: a model waits for
      what its selected parents will have processed once their own planned batches ran -#}
  {%- set as_run = {} -%}
  {%- do as_run.update(by_key) -%}
  {%- set plans = {} -%}
  {%- for node in found.nodes -%}
    {%- set checked = dbt_vulcan.vulcan_cfg_run(node, node.config.materialized) -%}
    {#- with the virtual layer: a version prod uses is not written by another environment, and
        another environment backfills from its dev window (environments/) -#}
    {%- set reused = found.virtual is not none and found.virtual.resolved[node.unique_id].reuse -%}
    {%- if not checked.message and not reused -%}
      {%- set key = dbt_vulcan.vulcan_node_state_key(node) -%}
      {%- set relation = dbt_vulcan._vulcan_op_relation(node, found) -%}
      {%- set cfg = dbt_vulcan.vulcan_windowed_cfg(checked.settings, found.virtual.ctx) if found.virtual is not none else checked.settings -%}
      {%- set state = {'rows': as_run.get(key, []), 'parents': parents[node.unique_id], 'by_key': as_run, 'waits': none, 'cron': none, 'settings_key': none, 'record': none} -%}
      {%- set plan = dbt_vulcan.vulcan_model_plan(cfg, relation, not found.exists[node.unique_id], node, run, state) -%}
      {%- do plans.update({node.unique_id: plan}) -%}
      {%- do as_run.update({key: as_run.get(key, []) + dbt_vulcan._vulcan_plan_rows_as_run(key, plan)}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for r in reports -%}
    {%- set plan = plans.get(found.nodes[loop.index0].unique_id) -%}
    {%- if plan is not none and not r.error -%}
      {%- do r.update({'batches': plan.batches, 'changed': plan.fingerprint_changed, 'held': plan.held}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set text = dbt_vulcan._vulcan_op_format_plan(reports, run.execution_time) -%}
  {%- if found.virtual is not none -%}
    {%- set text = dbt_vulcan.vulcan_environment_differences(found, compare_to) ~ text -%}
  {%- endif -%}
  {{ print(text) }}
{% endmacro %}

{#- The log rows a model's planned batches would add once run: a rebuild's reset marker, then
    each batch processed (what the children of a selected model plan with). -#}
{% macro _vulcan_plan_rows_as_run(key, plan) %}
  {%- set out = [] -%}
  {%- set base = {'relation': key, 'model_id': '', 'fingerprint': plan.fingerprint, 'invocation_id': 'vulcan_plan', 'at': 9223372036854775807, 'append_id': ''} -%}
  {%- if plan.rebuild -%}
    {%- set row = {'row_type': 'removed', 'start': dbt_vulcan.vulcan_micros(modules.datetime.datetime(1900, 1, 1)), 'end': dbt_vulcan.vulcan_micros(modules.datetime.datetime(9999, 12, 31)), 'seq': 0, 'details': '{"reset": true, "rebuilt": true}'} -%}
    {%- do row.update(base) -%}
    {%- do out.append(row) -%}
  {%- endif -%}
  {%- for b in plan.batches if b.tracked -%}
    {%- set row = {'row_type': 'processed', 'start': dbt_vulcan.vulcan_micros(dbt_vulcan.vulcan_parse_ts(b.start)), 'end': dbt_vulcan.vulcan_micros(dbt_vulcan.vulcan_parse_ts(b.end)), 'seq': loop.index, 'details': ''} -%}
    {%- do row.update(base) -%}
    {%- do out.append(row) -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- The plan's text (operations.format_plan). -#}
{% macro _vulcan_op_format_plan(reports, execution_time) %}
  {%- set ranges = dbt_vulcan.vulcan_ranges_text -%}
  {%- set lines = ['vulcan plan (execution time ' ~ dbt_vulcan.vulcan_format_ts(execution_time) ~ ')', ''] -%}
  {%- set backfill = [] -%}
  {%- for r in reports if not r.error and r.tracked and r.batches -%}{%- do backfill.append(r) -%}{%- endfor -%}
  {%- if backfill -%}
    {%- do lines.append('Models needing backfill (missing dates):') -%}
    {%- for r in backfill -%}
      {%- set due = [] -%}
      {%- for b in r.batches -%}
        {%- do due.append([dbt_vulcan.vulcan_micros(dbt_vulcan.vulcan_parse_ts(b.start)), dbt_vulcan.vulcan_micros(dbt_vulcan.vulcan_parse_ts(b.end))]) -%}
      {%- endfor -%}
      {%- do lines.append(('└──' if loop.last else '├──') ~ ' ' ~ r.name ~ ': ' ~ ranges(due, r.date_grain)) -%}
    {%- endfor -%}
  {%- else -%}
    {%- do lines.append('No missing intervals: every tracked model is up to date.') -%}
  {%- endif -%}
  {%- set rebuilds = [] -%}
  {%- for r in reports if not r.error and (not r.exists or r.full_restatement) -%}{%- do rebuilds.append(r) -%}{%- endfor -%}
  {%- if rebuilds -%}
    {%- do lines.extend(['', 'Models the next run builds from scratch:']) -%}
    {%- for r in rebuilds -%}
      {%- do lines.append('  ' ~ r.name ~ ' (' ~ r.kind ~ '): ' ~ ('table missing' if not r.exists else 'full-history restatement pending')) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set changed = [] -%}
  {%- for r in reports if r.changed -%}{%- do changed.append(r) -%}{%- endfor -%}
  {%- if changed -%}
    {%- do lines.extend(['', 'Models changed since their intervals were recorded:']) -%}
    {%- for r in changed -%}
      {%- do lines.append('  ' ~ r.name ~ ': processed intervals are kept; restate to recompute') -%}
    {%- endfor -%}
  {%- endif -%}
  {%- do lines.extend(['', 'Details:']) -%}
  {%- for r in reports if not r.error -%}
    {%- do lines.append('  ' ~ r.name ~ ' [' ~ r.kind ~ ']') -%}
    {%- if not r.tracked -%}
      {%- do lines.append('    not interval-tracked (no start): the next run processes the query once') -%}
    {%- else -%}
      {%- do lines.append('    processed: ' ~ ranges(r.processed, r.date_grain)) -%}
      {%- do lines.append('    missing:   ' ~ ranges(r.missing, r.date_grain)) -%}
      {%- if r.pending_restatements -%}
        {%- do lines.append('    restated, pending: ' ~ ranges(r.pending_restatements, r.date_grain)) -%}
      {%- endif -%}
      {%- if r.held and r.held.intervals -%}
        {%- do lines.append('    held back: ' ~ ranges(r.held.ranges, r.date_grain) ~ ', ' ~ dbt_vulcan.vulcan_held_back_reason(r.held)) -%}
      {%- endif -%}
      {%- set count = r.batches | length -%}
      {%- do lines.append('    next run: ' ~ count ~ ' batch' ~ ('es' if count != 1 else '')) -%}
      {%- for b in r.batches -%}
        {%- do lines.append('      [' ~ b['index'] ~ '/' ~ b['count'] ~ '] ' ~ b.label) -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for r in reports if r.error -%}
    {%- do lines.extend(['', 'Error in ' ~ r.name ~ ': ' ~ r.error]) -%}
  {%- endfor -%}
  {{ return(lines | join('\n')) }}
{% endmacro %}
