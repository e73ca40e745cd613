{#- dbt run-operation vulcan_history --args '{select: ..., limit: 10}': recent runs per model
    (the log's rows grouped by dbt invocation, latest first). One read of the state log. -#}
{% macro vulcan_history(select=none, limit=10) %}
  {%- set found = dbt_vulcan._vulcan_operation_models(select) -%}
  {%- set count = dbt_vulcan._vulcan_op_limit(limit) -%}
  {%- set keys = [] -%}
  {%- for node in found.nodes -%}{%- do keys.append(dbt_vulcan._vulcan_op_key(node)) -%}{%- endfor -%}
  {{ print(dbt_vulcan._vulcan_op_format_history(found.nodes, dbt_vulcan._vulcan_op_read_log(keys), count)) }}
{% endmacro %}

{#- `limit` as a whole number (Python's int(): an integer, a float truncated, or an integer
    string), else an error. -#}
{% macro _vulcan_op_limit(limit) %}
  {%- if limit is number -%}
    {{ return(limit | int) }}
  {%- elif limit is string and modules.re.fullmatch('\\s*[+-]?\\d+(_\\d+)*\\s*', limit) -%}
    {{ return(limit.replace('_', '') | trim | int) }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error('limit: ' ~ dbt_vulcan._vulcan_cfg_repr(limit) ~ ' is not a whole number') }}
{% endmacro %}

{#- The history text (operations.format_history): per model, its runs (rows of one invocation),
    latest first, at most `limit`. -#}
{% macro _vulcan_op_format_history(nodes, by_key, limit) %}
  {%- set ranges = dbt_vulcan._vulcan_op_ranges -%}
  {%- set lines = ['vulcan history'] -%}
  {%- for node in nodes -%}
    {%- do lines.extend(['', node.name | string]) -%}
    {%- set runs = {} -%}
    {%- set order = [] -%}
    {%- for row in by_key.get(dbt_vulcan._vulcan_op_key(node), []) -%}
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
    {%- if not recent -%}
      {%- do lines.append('  no runs recorded') -%}
    {%- endif -%}
    {%- for run in (recent | sort(attribute='at', reverse=true))[:limit] -%}
      {%- set processed, removed, what = [], [], [] -%}
      {%- set restated, ran = [], [] -%}
      {%- for row in run.rows -%}
        {%- if row.row_type == 'processed' and row.start >= row.end -%}
          {%- do ran.append(row.start) -%}  {#- an untracked kind's run: an empty range -#}
        {%- elif row.row_type == 'processed' -%}
          {%- do processed.append([row.start, row.end]) -%}
        {%- else -%}
          {%- do removed.append([row.start, row.end]) -%}
        {%- endif -%}
        {%- if dbt_vulcan._vulcan_op_details(row).get('restate') -%}{%- do restated.append(true) -%}{%- endif -%}
      {%- endfor -%}
      {%- if processed -%}
        {%- do what.append('processed ' ~ ranges(processed, true) ~ ' (' ~ processed | length ~ ' batches)') -%}
      {%- endif -%}
      {%- for at in ran -%}
        {%- do what.append('ran the whole query (execution time ' ~ dbt_vulcan._vulcan_op_dt(at).strftime('%Y-%m-%d %H:%M:%S') ~ ')') -%}
      {%- endfor -%}
      {%- if removed -%}
        {%- do what.append(('restated' if restated else 'removed') ~ ' ' ~ ranges(removed, true)) -%}
      {%- endif -%}
      {%- do lines.append('  ' ~ dbt_vulcan._vulcan_op_dt(run.at).strftime('%Y-%m-%d %H:%M:%S') ~ '  ' ~ run.invocation ~ '  ' ~ what | join('; ')) -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return(lines | join('\n')) }}
{% endmacro %}
