{#- dbt run-operation vulcan_history --args '{select: ..., limit: 10}': recent runs per model
    (the log's rows grouped by dbt invocation, latest first). One read of the state log. -#}
{% macro vulcan_history(select=none, limit=10) %}
  {%- set found = dbt_vulcan._vulcan_operation_models(select) -%}
  {%- set count = dbt_vulcan._vulcan_op_limit(limit) -%}
  {%- set keys = [] -%}
  {%- for node in found.nodes -%}{%- do keys.append(dbt_vulcan.vulcan_node_state_key(node)) -%}{%- endfor -%}
  {%- set by_key = found.virtual.by_key if found.virtual is not none else dbt_vulcan.vulcan_log_read(keys) -%}
  {{ print(dbt_vulcan._vulcan_op_format_history(found.nodes, by_key, count)) }}
{% endmacro %}

{#- `limit` as a whole number (Python's int(): an integer, a float truncated, or an integer
    string), else an error. -#}
{% macro _vulcan_op_limit(limit) %}
  {%- if limit is number -%}
    {{ return(limit | int) }}
  {%- elif limit is string and modules.re.fullmatch('\\s*[+-]?\\d+(_\\d+)*\\s*', limit) -%}
    {{ return(limit.replace('_', '') | trim | int) }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error('limit: ' ~ dbt_vulcan.vulcan_repr(limit) ~ ' is not a whole number') }}
{% endmacro %}

{#- What the history shows, per model (oracle: operations.history_runs): {name, runs}, its runs
    (the rows of one invocation) latest first, at most `limit`, each {at, invocation,
    processed (ranges), batches, ran (execution times of untracked runs), removed (ranges),
    restated}. -#}
{% macro _vulcan_op_history_runs(nodes, by_key, limit) %}
  {%- set models = [] -%}
  {%- for node in nodes -%}
    {%- set runs = {} -%}
    {%- set order = [] -%}
    {%- for row in by_key.get(dbt_vulcan.vulcan_node_state_key(node), []) -%}
      {%- if row.invocation_id not in runs -%}
        {%- do runs.update({row.invocation_id: []}) -%}
        {%- do order.append(row.invocation_id) -%}
      {%- endif -%}
      {%- do runs[row.invocation_id].append(row) -%}
    {%- endfor -%}
    {%- set recent = [] -%}
    {%- for invocation in order -%}
      {%- do recent.append({'invocation': invocation, 'rows': runs[invocation], 'at': runs[invocation][-1].at}) -%}
    {%- endfor -%}
    {%- set shown = [] -%}
    {%- for run in (recent | sort(attribute='at', reverse=true))[:limit] -%}
      {%- set processed, removed, ran = [], [], [] -%}
      {%- set flags = {'restated': false} -%}
      {%- for row in run.rows -%}
        {%- if row.row_type == 'processed' and row.start >= row.end -%}
          {%- do ran.append(row.start) -%}  {#- an untracked kind's run: an empty range -#}
        {%- elif row.row_type == 'processed' -%}
          {%- do processed.append([row.start, row.end]) -%}
        {%- elif row.row_type == 'removed' -%}
          {%- do removed.append([row.start, row.end]) -%}
        {%- endif -%}  {#- a write's or a stage's intent, a settled write: nothing processed or removed -#}
        {%- if dbt_vulcan.vulcan_log_details(row).get('restate') -%}{%- do flags.update({'restated': true}) -%}{%- endif -%}
      {%- endfor -%}
      {%- do shown.append({
        'at': run.at, 'invocation': run.invocation, 'processed': dbt_vulcan.vulcan_ranges_merge(processed),
        'batches': processed | length, 'ran': ran, 'removed': dbt_vulcan.vulcan_ranges_merge(removed),
        'restated': flags.restated,
      }) -%}
    {%- endfor -%}
    {%- do models.append({'name': node.name | string, 'runs': shown}) -%}
  {%- endfor -%}
  {{ return(models) }}
{% endmacro %}

{#- The history text: _vulcan_op_history_runs, one line per run. -#}
{% macro _vulcan_op_format_history(nodes, by_key, limit) %}
  {%- set ranges = dbt_vulcan.vulcan_ranges_text -%}
  {%- set ts = dbt_vulcan._vulcan_op_ts -%}
  {%- set lines = ['vulcan history'] -%}
  {%- for m in dbt_vulcan._vulcan_op_history_runs(nodes, by_key, limit) -%}
    {%- do lines.extend(['', m.name]) -%}
    {%- if not m.runs -%}
      {%- do lines.append('  no runs recorded') -%}
    {%- endif -%}
    {%- for run in m.runs -%}
      {%- set what = [] -%}
      {%- if run.processed -%}
        {%- do what.append('processed ' ~ ranges(run.processed, true) ~ ' (' ~ run.batches ~ ' batches)') -%}
      {%- endif -%}
      {%- for at in run.ran -%}
        {%- do what.append('ran the whole query (execution time ' ~ ts(at) ~ ')') -%}
      {%- endfor -%}
      {%- if run.removed -%}
        {%- do what.append(('restated' if run.restated else 'removed') ~ ' ' ~ ranges(run.removed, true)) -%}
      {%- endif -%}
      {%- do lines.append('  ' ~ ts(run.at) ~ '  ' ~ run.invocation ~ '  ' ~ what | join('; ')) -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return(lines | join('\n')) }}
{% endmacro %}

{#- epoch microseconds as `YYYY-MM-DD HH:MM:SS` -#}
{% macro _vulcan_op_ts(micros) %}
  {{ return(dbt_vulcan.vulcan_log_datetime(micros).strftime('%Y-%m-%d %H:%M:%S')) }}
{% endmacro %}
