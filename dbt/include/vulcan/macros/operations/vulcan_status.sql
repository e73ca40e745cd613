{#- dbt run-operation vulcan_status --args '{select: ..., since: 2025-01-01, until: 2025-01-31}'
    Per model: processed coverage and its gaps (within since .. until), missing intervals and
    the latest run, and what the missing intervals wait for (the upstream models that have not
    processed them, the signals not ready for them: planning/upstream.sql). One read of the
    state log, and one statement per signal of a model with missing intervals. With the virtual
    layer, then the version each environment's view points at (environments/differences.sql). -#}
{% macro vulcan_status(select=none, since=none, until=none) %}
  {%- set found = dbt_vulcan._vulcan_operation_models(select) -%}
  {%- set run = dbt_vulcan.vulcan_run_vars(none, {}) -%}
  {%- set window = {'since': none, 'until': none} -%}
  {%- for name, value, is_end in [('since', since, false), ('until', until, true)] if value -%}
    {%- set parsed = dbt_vulcan.vulcan_cfg_parse_time(value, name, is_end) -%}
    {%- if parsed.error -%}{{ exceptions.raise_compiler_error(parsed.error) }}{%- endif -%}
    {%- do window.update({name: parsed.time}) -%}
  {%- endfor -%}
  {%- set read = dbt_vulcan._vulcan_op_read_with_upstream(found) -%}
  {%- set by_key, parents = read.by_key, read.parents -%}
  {%- set reports = dbt_vulcan._vulcan_op_reports(found.nodes, found.exists, by_key, run, {}) -%}
  {#- what each model's missing intervals wait for (planning/upstream.sql) -#}
  {%- set waiting = {} -%}
  {%- for node in found.nodes -%}
    {%- set r = reports[loop.index0] -%}
    {%- if not r.error and r.tracked and r.missing -%}
      {%- set cfg = dbt_vulcan.vulcan_cfg_run(node, node.config.materialized).settings -%}
      {%- set held = {'waiting': []} -%}
      {%- set signals = dbt_vulcan.vulcan_signal_waits(cfg, dbt_vulcan._vulcan_op_relation(node, found), r.missing[0][0], r.missing[-1][1], run.execution_time) -%}
      {%- for w in dbt_vulcan.vulcan_upstream_waits(cfg, parents[node.unique_id], by_key) + signals -%}
        {%- set since = [] -%}
        {%- for u in w.unready -%}
          {%- for m in r.missing if u[0] < m[1] and u[1] > m[0] -%}{%- do since.append(u[0]) -%}{%- endfor -%}
        {%- endfor -%}
        {%- if since -%}{%- do held.waiting.append({'name': w.name, 'since': since | min}) -%}{%- endif -%}
      {%- endfor -%}
      {%- if held.waiting -%}{%- do waiting.update({r.name: dbt_vulcan.vulcan_held_back_reason(held)}) -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set text = dbt_vulcan._vulcan_op_format_status(reports, window.since, window.until, waiting) -%}
  {%- if found.virtual is not none -%}
    {%- set text = text ~ '\n\n' ~ dbt_vulcan.vulcan_environment_versions(found) -%}
  {%- endif -%}
  {{ print(text) }}
{% endmacro %}

{#- What the status shows, per report (oracle: operations.status_facts): the report's name,
    kind, error, tracked and missing, with `covered` (its processed ranges within since ..
    until), `gaps` (between them) and the latest run's time and invocation (none: never).
    `since`, `until`: datetimes or none. -#}
{% macro _vulcan_op_status_facts(reports, since, until) %}
  {%- set low = dbt_vulcan.vulcan_micros(since or modules.datetime.datetime(1900, 1, 1)) -%}
  {%- set high = dbt_vulcan.vulcan_micros(until or modules.datetime.datetime(9999, 12, 31)) -%}
  {%- set facts = [] -%}
  {%- for r in reports -%}
    {%- set covered = [] -%}
    {%- for s, e in (r.get('processed') or []) if e > low and s < high -%}
      {%- do covered.append([[s, low] | max, [e, high] | min]) -%}
    {%- endfor -%}
    {%- set merged = dbt_vulcan.vulcan_ranges_merge(covered) -%}
    {%- set gaps = [] -%}
    {%- for piece in merged[1:] -%}
      {%- do gaps.append([merged[loop.index0][1], piece[0]]) -%}
    {%- endfor -%}
    {%- set latest = r.get('latest') -%}
    {%- do facts.append({
      'name': r.name, 'kind': r.kind, 'error': r.get('error'), 'tracked': r.get('tracked'),
      'date_grain': r.get('date_grain'), 'covered': merged, 'gaps': gaps, 'missing': r.get('missing') or [],
      'last_run': none if latest is none else latest.at,
      'invocation': none if latest is none else latest.invocation_id,
    }) -%}
  {%- endfor -%}
  {{ return(facts) }}
{% endmacro %}

{#- The status text: _vulcan_op_status_facts, a few lines per model; `waiting`: {name: what its
    missing intervals wait for}. -#}
{% macro _vulcan_op_format_status(reports, since, until, waiting={}) %}
  {%- set ranges = dbt_vulcan.vulcan_ranges_text -%}
  {%- set lines = ['vulcan status'] -%}
  {%- for f in dbt_vulcan._vulcan_op_status_facts(reports, since, until) -%}
    {%- do lines.extend(['', f.name ~ ' [' ~ f.kind ~ ']']) -%}
    {%- if f.error -%}
      {%- do lines.append('  error: ' ~ f.error) -%}
    {%- else -%}
      {%- if f.tracked -%}
        {%- do lines.append('  coverage: ' ~ ranges(f.covered, f.date_grain)) -%}
        {%- do lines.append('  gaps:     ' ~ ranges(f.gaps, f.date_grain)) -%}
        {%- do lines.append('  missing:  ' ~ ranges(f.missing, f.date_grain)) -%}
        {%- if waiting.get(f.name) -%}{%- do lines.append('  ' ~ waiting[f.name]) -%}{%- endif -%}
      {%- else -%}
        {%- do lines.append('  intervals: not tracked (each run computes the whole query; no start)') -%}
      {%- endif -%}
      {%- if f.last_run is not none -%}
        {%- do lines.append('  last run: ' ~ dbt_vulcan._vulcan_op_ts(f.last_run) ~ ' (invocation ' ~ f.invocation ~ ')') -%}
      {%- else -%}
        {%- do lines.append('  last run: never') -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(lines | join('\n')) }}
{% endmacro %}
