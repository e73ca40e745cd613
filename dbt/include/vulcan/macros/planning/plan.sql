{#- What one model run does: its batches, from the config, the state log and the run's vars.

    vulcan_model_plan(cfg, relation, rebuild, node=model, run=vulcan_run_vars(), state=none)
    returns
      batches            [{index, count, start, end, intervals, label, dirty, tracked}]
                         (start/end 'YYYY-MM-DD HH:MM:SS[.ffffff]', UTC)
      fingerprint        a hash of what decides the model's rows (its code, the keys that shape
                         its output); previous_fingerprint: the latest processed row's
      fingerprint_changed, execution_time, time_type (time_data_type, else the one the log
                         recorded), layout (the table's, as the log recorded it: vulcan_layout),
                         previous_details (the latest processed row's details, a mapping),
                         has_state, rebuild, all_time, first_interval
      settings_key, settings_record  what the run records for its settings
                         (planning/model_state.sql: the key; {settings: YAML text, cron} when
                         this run validated them)

    One plain read of the relation's log rows (vulcan_log_read; a materialization's
    `state` is vulcan_begin's, which made that read), then Jinja: a kind with
    `start` is planned by range arithmetic (plan_intervals.sql); without `start` the run is one
    batch over all time up to the execution time, nothing recorded. The replay gives the latest
    processed row (its fingerprint, details) and a pending full restatement, which makes the run
    a rebuild unless the model has forward_only (its history is kept, as from --full-refresh:
    it runs incrementally, and a materialization's run says so in one line). The Python
    planner (tests/oracle/planning.py, plan_model) is the test oracle. -#}
{% macro vulcan_model_plan(cfg, relation, rebuild, node=none, run=none, state=none) %}
  {%- set node = node if node is not none else model -%}
  {%- set run = run if run is not none else dbt_vulcan.vulcan_run_vars(cfg.model) -%}
  {%- set geometry = dbt_vulcan.vulcan_unit_geometry(cfg.interval_unit, cfg.week_start) -%}
  {%- set epoch = modules.datetime.datetime(1970, 1, 1) -%}
  {%- set first_start = dbt_vulcan.vulcan_parse_ts(cfg.start) if cfg.start else epoch -%}
  {%- set fmt = dbt_vulcan.vulcan_format_ts -%}
  {#- the one read of the log: the relation's rows (it refreshes an Iceberg state first) -#}
  {%- if state is none -%}
    {% do dbt_vulcan.vulcan_create_state_table() %}
    {%- set key = dbt_vulcan.vulcan_relation_key(relation) -%}
    {%- set parents = dbt_vulcan.vulcan_upstream_models(node) if cfg.start is not none else [] -%}
    {%- set by_key = dbt_vulcan.vulcan_log_read([key] + dbt_vulcan.vulcan_upstream_keys(parents)) -%}
    {%- set rows = by_key.get(key, []) -%}
    {%- set waits = dbt_vulcan.vulcan_upstream_waits(cfg, parents, by_key) -%}
  {%- else -%}
    {%- set rows = state.rows -%}
    {%- if state.get('waits') is none -%}
      {%- do state.update({'waits': dbt_vulcan.vulcan_upstream_waits(cfg, state.parents, state.by_key)}) -%}
    {%- endif -%}
    {%- set waits = state.waits -%}
  {%- endif -%}
  {%- set batches = [] -%}
  {%- set held = {'ranges': [], 'intervals': 0, 'waiting': []} -%}
  {%- if cfg.start is none -%}
    {%- set summary = dbt_vulcan.vulcan_log_summary(rows) -%}
    {%- set plan_rebuild = rebuild or (summary.pending_full and not cfg.forward_only) -%}
    {%- set window = dbt_vulcan._vulcan_plan_window(cfg, run, geometry, epoch, plan_rebuild) -%}
    {%- do batches.append({
      'index': 1, 'count': 1, 'start': fmt(window[0]), 'end': fmt(window[1]), 'intervals': 0,
      'label': dbt_vulcan._vulcan_range_label(window[0], window[1], geometry), 'dirty': false, 'tracked': false,
    }) -%}
  {%- else -%}
    {%- set cron = state.cron if state is not none and state.cron is mapping else cfg.cron -%}
    {%- set due_end = dbt_vulcan.vulcan_due_end(cfg, cron, run.execution_time, geometry) -%}
    {%- set explicit = none -%}
    {%- if run.start is not none and not rebuild -%}
      {%- set explicit = [fmt(dbt_vulcan.vulcan_unit_floor(run.start, geometry)), fmt(dbt_vulcan.vulcan_unit_ceil(run.end, geometry))] -%}
    {%- endif -%}
    {%- set p = {
      'start': cfg.start, 'end': cfg.end, 'unit': cfg.interval_unit, 'week_start': cfg.week_start,
      'due_end': fmt(due_end), 'allow_partials': cfg.allow_partials, 'lookback': cfg.lookback,
      'batch_size': cfg.batch_size, 'explicit': explicit, 'rebuild': rebuild,
      'forward_only': cfg.forward_only, 'upstream': waits,
    } -%}
    {%- set planned = dbt_vulcan.vulcan_plan_intervals(rows, p) -%}
    {#- the signals (ready_when, ready_intervals): each asked once, over what is due, only
        when something is and the signal is set -#}
    {%- if planned.batches and (cfg.get('ready_when') or cfg.get('ready_intervals')) -%}
      {%- set signals = dbt_vulcan.vulcan_signal_waits(cfg, relation, planned.batches[0].start, planned.batches[-1].end, run.execution_time) -%}
      {%- if signals -%}
        {%- do p.update({'upstream': waits + signals}) -%}
        {%- set planned = dbt_vulcan.vulcan_plan_intervals(rows, p) -%}
      {%- endif -%}
    {%- endif -%}
    {%- set summary = planned.summary -%}
    {%- set plan_rebuild = planned.rebuild -%}
    {%- do held.update(planned.held) -%}
    {%- for row in planned.batches -%}
      {%- set b_start, b_end = dbt_vulcan._vulcan_plan_datetime(row.start), dbt_vulcan._vulcan_plan_datetime(row.end) -%}
      {%- do batches.append({
        'index': loop.index, 'count': planned.batches | length,
        'start': fmt(b_start), 'end': fmt(b_end), 'intervals': row.intervals,
        'label': dbt_vulcan._vulcan_range_label(b_start, b_end, geometry),
        'dirty': row.dirty, 'tracked': true,
      }) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- if summary.pending_full and cfg.forward_only and not rebuild and state is not none -%}
    {{ log("Model '" ~ cfg.model ~ "': a whole-history restatement is pending, but forward_only: true keeps its history: it runs incrementally (set forward_only: false to rebuild it)", info=True) }}
  {%- endif -%}
  {%- set latest = summary.latest -%}
  {%- set previous = latest.fingerprint if latest is not none and not plan_rebuild else none -%}
  {%- set details = dbt_vulcan.vulcan_log_details(latest) if latest is not none else {} -%}
  {%- set recorded_type = details.get('time_type') -%}
  {%- set fingerprint = dbt_vulcan.vulcan_fingerprint(node.raw_code, cfg, dbt_vulcan.vulcan_contract_signature(node)) -%}
  {{ return({
    'batches': batches,
    'intervals': batches | sum(attribute='intervals'),
    'fingerprint': fingerprint,
    'previous_fingerprint': previous,
    'fingerprint_changed': previous is not none and previous != fingerprint,
    'execution_time': fmt(run.execution_time),
    'time_type': cfg.time_data_type or (recorded_type if recorded_type is string else none),
    'layout': details.get('layout'),
    'previous_details': details,
    'has_state': rows | length > 0,
    'rebuild': plan_rebuild,
    'all_time': dbt_vulcan.vulcan_all_time(),
    'first_interval': [fmt(first_start), fmt(dbt_vulcan._vulcan_unit_add(first_start, geometry))],
    'held': held,
    'settings_key': state.settings_key if state is not none else none,
    'settings_record': state.record if state is not none else none,
  }) }}
{% endmacro %}

{#- The one batch of a kind without `start`: all time up to the execution time; a kind with a
    time column there (tracked) runs over its window: the vars' range when given, else from
    the start of the execution time's interval unit, `lookback` units back, to the execution
    time. A rebuild (the table built from nothing: new, --full-refresh, a full-history
    restatement) has no window: all time, the vars' range ignored (as a time range kind's). -#}
{% macro _vulcan_plan_window(cfg, run, geometry, epoch, rebuild=false) %}
  {%- if not cfg.get('time_column') or rebuild -%}{{ return([epoch, run.execution_time]) }}{%- endif -%}
  {%- if run.start is not none -%}{{ return([run.start, run.end]) }}{%- endif -%}
  {%- set index = dbt_vulcan._vulcan_plan_index(run.execution_time, geometry) -%}
  {{ return([dbt_vulcan._vulcan_plan_start_of(index - (cfg.lookback or 0), geometry), run.execution_time]) }}
{% endmacro %}

{#- A hash of what decides a model's rows: its code, the config keys that shape its output
    (tracked: also its key and hash column) and an enforced contract's columns and types
    (`contract`: vulcan_contract_signature; none leaves the hash of a model without a contract
    as it was). tests/oracle/planning.py's fingerprint is the same. -#}
{% macro vulcan_fingerprint(raw_code, cfg, contract=none) %}
  {%- set shaping = {} -%}
  {%- for name in ['kind', 'time_column', 'time_format', 'time_data_type', 'unique_key', 'when_matched', 'merge_filter'] -%}
    {%- do shaping.update({name: cfg.get(name)}) -%}
  {%- endfor -%}
  {%- if cfg.kind == 'tracked' -%}
    {%- do shaping.update({'group_key': cfg.group_key, 'content_hash_column': cfg.content_hash_column}) -%}
  {%- endif -%}
  {%- if contract is not none -%}{%- do shaping.update({'contract': contract}) -%}{%- endif -%}
  {{ return(local_md5((raw_code | string).strip() ~ '\n' ~ tojson(shaping, sort_keys=true))[:16]) }}
{% endmacro %}

{#- The run's vars (`--vars`, or `raw` with the same names: an operation's args), parsed, never
    pasted into SQL: {execution_time, start, end, range_from} as naive UTC datetimes;
    execution_time defaults to the invocation's start (`run_started_at`). A run's explicit range
    comes from vulcan_start/vulcan_end or from dbt's own `--event-time-start` /
    `--event-time-end` (also DBT_EVENT_TIME_START/END: the window a scheduler passes to
    microbatch models; both exclusive of the end, read from `invocation_args_dict`, so a new
    window is not a new `--vars` and dbt keeps its partial parse); range_from names the one
    given ('vars', 'flags' or none), and both at once are an error. Every invalid var is named
    at once (_vulcan_run_vars_parsed: a run given none compiles none of it). -#}
{% macro vulcan_run_vars(model_name=none, raw=none) %}
  {%- if raw is none -%}
    {%- set flags = invocation_args_dict or {} -%}
    {%- set raw = {
      'vulcan_execution_time': var('vulcan_execution_time', none),
      'vulcan_start': var('vulcan_start', none),
      'vulcan_end': var('vulcan_end', none),
      'event_time_start': flags.get('event_time_start'),
      'event_time_end': flags.get('event_time_end'),
    } -%}
  {%- endif -%}
  {%- set given = {} -%}
  {%- for name in ['vulcan_execution_time', 'vulcan_start', 'vulcan_end', 'event_time_start', 'event_time_end'] if raw.get(name) is not none and raw.get(name) != '' -%}
    {%- do given.update({name: raw.get(name)}) -%}
  {%- endfor -%}
  {%- set parsed = dbt_vulcan._vulcan_run_vars_parsed(model_name, given) if given else {} -%}
  {%- set from_flags = 'event_time_start' in parsed -%}
  {{ return({
    'execution_time': parsed.get('vulcan_execution_time') or (run_started_at or modules.datetime.datetime.utcnow()).replace(tzinfo=none),
    'start': parsed.get('event_time_start') if from_flags else parsed.get('vulcan_start'),
    'end': parsed.get('event_time_end') if from_flags else parsed.get('vulcan_end'),
    'range_from': 'flags' if from_flags else ('vars' if 'vulcan_start' in parsed else none),
  }) }}
{% endmacro %}

{#- The vars `given` (a non-empty value each), parsed: {name: naive UTC datetime}; a start and
    an end come together (one alone is an error), the start before the end. -#}
{% macro _vulcan_run_vars_parsed(model_name, given) %}
  {%- set errors = [] -%}
  {%- set parsed = {} -%}
  {#- dbt's --event-time-end is exclusive as given (a date is its midnight): never a date-only
      end that includes its day, as vulcan_end is -#}
  {%- for name, is_end in [('vulcan_execution_time', false), ('vulcan_start', false), ('vulcan_end', true), ('event_time_start', false), ('event_time_end', false)] if name in given -%}
    {%- set result = dbt_vulcan.vulcan_cfg_parse_time(given[name], name, is_end) -%}
    {%- if result.error -%}{%- do errors.append(result.error) -%}{%- else -%}{%- do parsed.update({name: result.time}) -%}{%- endif -%}
  {%- endfor -%}
  {%- for start, end in [('vulcan_start', 'vulcan_end'), ('event_time_start', 'event_time_end')] -%}
    {%- if start in given and end not in given -%}{%- do errors.append(end ~ ': required when ' ~ start ~ ' is given') -%}{%- endif -%}
    {%- if end in given and start not in given -%}{%- do errors.append(start ~ ': required when ' ~ end ~ ' is given') -%}{%- endif -%}
    {%- if start in parsed and end in parsed and parsed[start] >= parsed[end] -%}
      {%- do errors.append(start ~ ': ' ~ dbt_vulcan.vulcan_repr(given[start]) ~ ' is not before ' ~ end) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if ('vulcan_start' in given or 'vulcan_end' in given) and ('event_time_start' in given or 'event_time_end' in given) -%}
    {%- do errors.append('vulcan_start/vulcan_end and --event-time-start/--event-time-end both give the range to process: give one of them') -%}
  {%- endif -%}
  {%- if errors -%}
    {%- set lines = [] -%}{%- for e in errors -%}{%- do lines.append('  - ' ~ e) -%}{%- endfor -%}
    {{ exceptions.raise_compiler_error(("Model '" ~ model_name ~ "': " if model_name else '') ~ 'Invalid --vars:\n' ~ lines | join('\n')) }}
  {%- endif -%}
  {{ return(parsed) }}
{% endmacro %}

{# ------------------------------------------------------------------------------ helpers #}

{#- The exclusive end of what is due at `execution_time` (a datetime): the execution time itself
    with allow_partials, else the last cron tick at or before it, floored to the interval unit
    (`cron`: the schedule as given or as vulcan_cron_parse read it; `geometry`:
    vulcan_unit_geometry of the model's unit). The plan of a run and the reports of the
    operations both take it from here. -#}
{% macro vulcan_due_end(cfg, cron, execution_time, geometry) %}
  {%- if cfg.allow_partials -%}{{ return(execution_time) }}{%- endif -%}
  {{ return(dbt_vulcan.vulcan_unit_floor(dbt_vulcan.vulcan_parse_ts(dbt_vulcan.vulcan_cron_last_tick(cron, execution_time)), geometry)) }}
{% endmacro %}

{#- Unit geometry: {delta, origin} (microseconds) for fixed units, {months} for calendar ones. -#}
{% macro vulcan_unit_geometry(unit, week_start=0) %}
  {{ return(dbt_vulcan._vulcan_plan_bounds({'unit': unit, 'week_start': week_start, 'start': '1970-01-01', 'due_end': '1970-01-01'})) }}
{% endmacro %}

{% macro vulcan_unit_floor(dt, b) %}
  {{ return(dbt_vulcan._vulcan_plan_start_of(dbt_vulcan._vulcan_plan_index(dt, b), b)) }}
{% endmacro %}

{% macro vulcan_unit_ceil(dt, b) %}
  {%- set floor = dbt_vulcan.vulcan_unit_floor(dt, b) -%}
  {{ return(floor if floor == dt else dbt_vulcan._vulcan_unit_add(floor, b)) }}
{% endmacro %}

{#- the unit boundary one unit after floor(dt) -#}
{% macro _vulcan_unit_add(dt, b) %}
  {{ return(dbt_vulcan._vulcan_plan_start_of(dbt_vulcan._vulcan_plan_index(dt, b) + 1, b)) }}
{% endmacro %}

{#- 'YYYY-MM-DD - YYYY-MM-DD' (inclusive days) for day-or-coarser units on midnight bounds,
    else the two timestamps (timeutil.format_range). -#}
{% macro _vulcan_range_label(start, end, b) %}
  {%- set date_grain = b.months is defined or b.delta >= 86400000000 -%}
  {%- set midnight = start.time() == modules.datetime.time() and end.time() == modules.datetime.time() -%}
  {%- if date_grain and midnight -%}
    {%- set last_day = [(end - modules.datetime.timedelta(days=1)).date(), start.date()] | max -%}
    {{ return(start.date().isoformat() ~ ' - ' ~ last_day.isoformat()) }}
  {%- endif -%}
  {{ return(dbt_vulcan.vulcan_format_ts(start) ~ ' - ' ~ dbt_vulcan.vulcan_format_ts(end)) }}
{% endmacro %}

{#- All of time, as the planner bounds it. -#}
{% macro vulcan_all_time() %}
  {{ return(['1900-01-01 00:00:00', '9999-12-31 00:00:00']) }}
{% endmacro %}
