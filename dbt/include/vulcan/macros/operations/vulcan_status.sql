{#- dbt run-operation vulcan_status --args '{select: ..., since: 2025-01-01, until: 2025-01-31}'
    Per model: processed coverage and its gaps (within since .. until), missing intervals and
    the latest run. One read of the state log. -#}
{% macro vulcan_status(select=none, since=none, until=none) %}
  {%- set found = dbt_vulcan._vulcan_operation_models(select) -%}
  {%- set run = dbt_vulcan.vulcan_run_vars(none, {}) -%}
  {%- set window = {'since': none, 'until': none} -%}
  {%- for name, value, is_end in [('since', since, false), ('until', until, true)] if value -%}
    {%- set parsed = dbt_vulcan._vulcan_cfg_parse_time(value, name, is_end) -%}
    {%- if parsed.error -%}{{ exceptions.raise_compiler_error(parsed.error) }}{%- endif -%}
    {%- do window.update({name: parsed.time}) -%}
  {%- endfor -%}
  {%- set keys = [] -%}
  {%- for node in found.nodes -%}{%- do keys.append(dbt_vulcan._vulcan_op_key(node)) -%}{%- endfor -%}
  {%- set by_key = dbt_vulcan._vulcan_op_read_log(keys) -%}
  {%- set reports = dbt_vulcan._vulcan_op_reports(found.nodes, found.exists, by_key, run, {}) -%}
  {{ print(dbt_vulcan._vulcan_op_format_status(reports, window.since, window.until)) }}
{% endmacro %}

{#- The status text (operations.format_status); `since`, `until`: datetimes or none. -#}
{% macro _vulcan_op_format_status(reports, since, until) %}
  {%- set ranges = dbt_vulcan._vulcan_op_ranges -%}
  {%- set low = dbt_vulcan._vulcan_micros(since or modules.datetime.datetime(1900, 1, 1)) -%}
  {%- set high = dbt_vulcan._vulcan_micros(until or modules.datetime.datetime(9999, 12, 31)) -%}
  {%- set lines = ['vulcan status'] -%}
  {%- for r in reports -%}
    {%- do lines.extend(['', r.name ~ ' [' ~ r.kind ~ ']']) -%}
    {%- if r.error -%}
      {%- do lines.append('  error: ' ~ r.error) -%}
    {%- else -%}
      {%- set covered = [] -%}
      {%- for s, e in r.processed if e > low and s < high -%}
        {%- do covered.append([[s, low] | max, [e, high] | min]) -%}
      {%- endfor -%}
      {%- set merged = dbt_vulcan._vulcan_op_merge(covered) -%}
      {%- set gaps = [] -%}
      {%- for piece in merged[1:] -%}
        {%- do gaps.append([merged[loop.index0][1], piece[0]]) -%}
      {%- endfor -%}
      {%- if r.tracked -%}
        {%- do lines.append('  coverage: ' ~ ranges(covered, r.date_grain)) -%}
        {%- do lines.append('  gaps:     ' ~ ranges(gaps, r.date_grain)) -%}
        {%- do lines.append('  missing:  ' ~ ranges(r.missing, r.date_grain)) -%}
      {%- else -%}
        {%- do lines.append('  intervals: not tracked (each run computes the whole query; no start)') -%}
      {%- endif -%}
      {%- if r.latest is not none -%}
        {%- do lines.append('  last run: ' ~ dbt_vulcan._vulcan_op_dt(r.latest.at).strftime('%Y-%m-%d %H:%M:%S') ~ ' (invocation ' ~ r.latest.invocation_id ~ ')') -%}
      {%- else -%}
        {%- do lines.append('  last run: never') -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(lines | join('\n')) }}
{% endmacro %}
