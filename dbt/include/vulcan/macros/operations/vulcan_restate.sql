{#- dbt run-operation vulcan_restate --args '{select: daily_sales, start: 2025-01-03, end: 2025-01-05}'
    Records the range as removed (nothing else is touched): the next `dbt run` recomputes it.
    `select` takes dbt's graph operators: `raw_events+` restates the model and every dbt-vulcan
    model downstream of it, each aligned to its own interval unit. Kinds that only support
    full-history restatement are widened (with a warning) and rebuilt by the next run; a model
    with disable_restatement: true, or one of those kinds with forward_only: true (a rebuild
    would erase the history it keeps; a time range with forward_only is restated by range,
    which rebuilds nothing), is refused when a term names it, and skipped (one line says so)
    when only a graph operator reached it. Every refusal is raised before anything is
    recorded. -#}
{% macro vulcan_restate(select=none, start=none, end=none) %}
  {%- set found = dbt_vulcan._vulcan_operation_models(select) -%}
  {%- set planned = dbt_vulcan._vulcan_op_restatements(found.nodes, start, end, found.named if select else none, found.virtual) -%}
  {%- set values = [] -%}
  {%- set messages = [] -%}
  {%- for item in planned -%}
    {%- if item.skipped -%}
      {%- set why = 'its restatement would rebuild its whole history; ' if item.skipped == 'forward_only' else '' -%}
      {%- do messages.append('Skipped ' ~ item.name ~ ': ' ~ item.skipped ~ ': true (' ~ why ~ 'reached through a graph operator, not named in select)') -%}
    {%- else -%}
      {%- set details = '{"restate": true, "full": ' ~ ('true' if item.full else 'false') ~ '}' -%}
      {%- do values.append(dbt_vulcan.vulcan_state_values(item.relation, [[item.start, item.end]], 'removed', '', details, item.model_id)) -%}
      {%- if item.warning -%}{%- do messages.append('Warning: ' ~ item.warning) -%}{%- endif -%}
      {%- do messages.append('Restated ' ~ item.name ~ ': ' ~ ('whole history' if item.full else item.start ~ ' - ' ~ item.end) ~ '; the next dbt run recomputes it') -%}
    {%- endif -%}
  {%- endfor -%}
  {% do dbt_vulcan.vulcan_record_intervals(values | join(',\n')) %}
  {%- for message in messages -%}
    {{ print(message) }}
  {%- endfor -%}
{% endmacro %}

{#- What vulcan_restate records per model (operations.restatements), in the order of `nodes`:
    [{relation (schema and identifier), name, model_id, start, end ('YYYY-MM-DD
    HH:MM:SS[.ffffff]'), full, warning, skipped}]; the range aligned to the model's interval
    unit, or the whole history from the model's start for the kinds that only support that.
    `named`: the unique ids the selection named (none: every model); a model with
    disable_restatement that is not named is skipped (`skipped`: 'disable_restatement', no
    range), one that is named is refused; so is a model with forward_only whose kind only
    supports full-history restatement (`skipped`: 'forward_only'): the next run would rebuild
    it. With the virtual layer (`virtual`: vulcan_virtual_targets) the relation is the physical
    table this environment uses; another environment cannot restate a version prod's view
    points at (its runs never write there). -#}
{% macro _vulcan_op_restatements(nodes, start, end, named=none, virtual=none) %}
  {%- if start is none or end is none -%}
    {{ exceptions.raise_compiler_error('vulcan_restate: both start and end are required (dates)') }}
  {%- endif -%}
  {%- set low = dbt_vulcan.vulcan_cfg_parse_time(start, 'start') -%}
  {%- if low.error -%}{{ exceptions.raise_compiler_error(low.error) }}{%- endif -%}
  {%- set high = dbt_vulcan.vulcan_cfg_parse_time(end, 'end', true) -%}
  {%- if high.error -%}{{ exceptions.raise_compiler_error(high.error) }}{%- endif -%}
  {%- if low.time >= high.time -%}
    {{ exceptions.raise_compiler_error('start: ' ~ dbt_vulcan.vulcan_repr(start) ~ ' is not before end ' ~ dbt_vulcan.vulcan_repr(end)) }}
  {%- endif -%}
  {%- set fmt = dbt_vulcan.vulcan_format_ts -%}
  {%- set out = [] -%}
  {%- set problems = [] -%}
  {%- for node in nodes if node.config.materialized in dbt_vulcan.vulcan_kinds() -%}
    {%- set kind = node.config.materialized -%}
    {%- set checked = dbt_vulcan.vulcan_cfg_run(node, kind) -%}
    {%- set owner = "model '" ~ node.name ~ "' (" ~ kind ~ ')' -%}
    {%- set chosen_table = virtual.resolved[node.unique_id] if virtual is not none else none -%}
    {%- set relation = {'schema': chosen_table.relation.schema, 'identifier': chosen_table.relation.identifier} if chosen_table is not none else {'schema': node.schema, 'identifier': node.alias or node.name} -%}
    {%- if checked.message -%}
      {%- do problems.append(checked.message) -%}
    {%- elif chosen_table is not none and chosen_table.reuse -%}
      {%- do problems.append(owner ~ ": environment '" ~ chosen_table.env ~ "' uses prod's version (" ~ chosen_table.key ~ '), which only prod restates: run vulcan_restate with the prod target, or change the model in this environment first') -%}
    {%- elif checked.settings.disable_restatement and named is not none and node.unique_id not in named -%}
      {%- do out.append({
        'relation': relation,
        'name': node.name, 'model_id': node.unique_id, 'start': none, 'end': none,
        'full': false, 'warning': none, 'skipped': 'disable_restatement',
      }) -%}
    {%- elif checked.settings.disable_restatement -%}
      {%- do problems.append('disable_restatement: true does not allow restating ' ~ owner ~ '; set disable_restatement false to allow it') -%}
    {%- elif checked.settings.forward_only and kind != 'incremental_by_time_range' and named is not none and node.unique_id not in named -%}
      {%- do out.append({
        'relation': relation,
        'name': node.name, 'model_id': node.unique_id, 'start': none, 'end': none,
        'full': false, 'warning': none, 'skipped': 'forward_only',
      }) -%}
    {%- elif checked.settings.forward_only and kind != 'incremental_by_time_range' -%}
      {%- do problems.append('forward_only: true does not allow restating ' ~ owner ~ ': it only supports full-history restatement, which rebuilds the table and would erase the history forward_only keeps; set forward_only false to allow it') -%}
    {%- else -%}
      {%- set cfg = checked.settings -%}
      {%- set geometry = dbt_vulcan.vulcan_unit_geometry(cfg.interval_unit, cfg.week_start) -%}
      {%- set requested = [dbt_vulcan.vulcan_unit_floor(low.time, geometry), dbt_vulcan.vulcan_unit_ceil(high.time, geometry)] -%}
      {%- set full = kind != 'incremental_by_time_range' -%}
      {%- set chosen = requested -%}
      {%- set warning = none -%}
      {%- if full -%}
        {%- set first = dbt_vulcan.vulcan_unit_floor(dbt_vulcan.vulcan_parse_ts(cfg.start), geometry) if cfg.start else modules.datetime.datetime(1900, 1, 1) -%}
        {%- set chosen = [first, modules.datetime.datetime(9999, 12, 31)] -%}
        {%- if not (requested[0] <= chosen[0] and requested[1] >= chosen[1]) -%}
          {%- set shown = dbt_vulcan.vulcan_range_text(dbt_vulcan.vulcan_micros(requested[0]), dbt_vulcan.vulcan_micros(requested[1]), cfg.interval_unit in ('day', 'week', 'month', 'quarter', 'year')) -%}
          {%- set warning = owner ~ ' only supports full-history restatement: the requested range ' ~ shown ~ ' was widened to the whole history from ' ~ fmt(first) -%}
        {%- endif -%}
      {%- endif -%}
      {%- do out.append({
        'relation': relation,
        'name': node.name, 'model_id': node.unique_id, 'start': fmt(chosen[0]), 'end': fmt(chosen[1]),
        'full': full, 'warning': warning, 'skipped': none,
      }) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if problems -%}
    {%- set lines = [] -%}
    {%- for p in problems -%}{%- do lines.append('  - ' ~ p) -%}{%- endfor -%}
    {{ exceptions.raise_compiler_error('vulcan_restate refused:\n' ~ lines | join('\n')) }}
  {%- endif -%}
  {{ return(out) }}
{% endmacro %}
