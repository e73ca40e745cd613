{#- A model run's batches, planned in Jinja by range arithmetic over the rows of ONE plain read
    of the interval state log (state/log.sql, vulcan_log_read: the relation's rows,
    times as epoch microseconds, in replay order; no aggregate, window, join or array function).

    vulcan_plan_intervals(rows, p) returns {batches, rebuild, summary}:
      batches   [{start, end (epoch microseconds, UTC wall clock; end exclusive), intervals,
                dirty}] in order. dirty: the batch overlaps a range the log ever recorded as
                processed (it may still hold rows, even if removed since); never on a rebuild
      rebuild   p.rebuild, or the log holds a full-history restatement with no reset marker
                after it and p.forward_only is not set: the run rebuilds (as the oracle's
                planning.plan_model)
      summary   vulcan_log_summary of the rows: the replayed processed ranges, the latest
                processed row (its fingerprint and details), pending restatements

    `p`, already validated:
      start          model start 'YYYY-MM-DD HH:MM:SS[.ffffff]' (floored to the unit)
      end            exclusive model end (same format), or none
      unit           five_minute, quarter_hour, half_hour, hour, day, week, month, quarter, year
      week_start     0 = Monday .. 6 = Sunday (week unit)
      due_end        exclusive end of what is due (same format): the floor of the last cron tick,
                     or the execution time itself with allow_partials
      allow_partials a last partial interval up to min(end, due_end) is included
      lookback       int >= 0: an interval also runs when one of the `lookback` intervals after
                     it is missing
      batch_size     int >= 1, or none (one batch per contiguous run of intervals)
      explicit       none, or [low, high] aligned to unit boundaries: the run is exactly the
                     expected intervals inside it, processed or not (ignored on a rebuild)
      rebuild        ignore the log: all history is due
      forward_only   (optional) the model keeps its history: a pending full-history
                     restatement does not make the run a rebuild

    The semantics are the oracle's (tests/oracle: planning.plan_intervals over state.replay,
    planning.plan_model), which it is tested against (tests/unit/macros/planning/test_planner_macros.py, random
    configs and logs). Nothing enumerates intervals: the work grows with the log's rows and the
    processed set's fragments (one range for a model that runs in order) and with the batches
    planned, never with the number of intervals. Interval k (relative to the model's first)
    starts at _vulcan_plan_start_of(first + k); the processed ranges' gaps inside the expected
    span become runs of interval indexes [i, j], `lookback` more before each, overlapping or
    adjacent runs merged; then each run is cut into batches of at most batch_size. -#}
{% macro vulcan_plan_intervals(rows, p) %}
  {%- set b = dbt_vulcan._vulcan_plan_bounds(p) -%}
  {%- set lookback = dbt_vulcan._vulcan_plan_int(p.get('lookback', 0), 'lookback', 0) -%}
  {%- set batch_size = none if p.get('batch_size') is none else dbt_vulcan._vulcan_plan_int(p.get('batch_size'), 'batch_size', 1) -%}
  {%- set summary = dbt_vulcan.vulcan_log_summary(rows) -%}
  {%- set rebuild = (p.get('rebuild') or (summary.pending_full and not p.get('forward_only'))) and true -%}
  {%- set runs = [] -%}
  {%- set last = b.total - 1 -%}
  {%- if b.total == 0 -%}
    {#- nothing is expected yet -#}
  {%- elif rebuild -%}
    {%- do runs.append([0, last]) -%}
  {%- elif b.explicit -%}
    {#- an explicit range: exactly the expected intervals inside it -#}
    {%- set i = [dbt_vulcan._vulcan_plan_k(b.explicit_lo, b), 0] | max -%}
    {%- set j = [dbt_vulcan._vulcan_plan_k(b.explicit_hi - 1, b), last] | min -%}
    {%- if i <= j -%}{%- do runs.append([i, j]) -%}{%- endif -%}
  {%- else -%}
    {#- every interval meeting a gap of the processed ranges inside the expected span, and the
        `lookback` intervals before it -#}
    {%- for g in dbt_vulcan._vulcan_plan_gaps(summary.processed, b.span_lo, b.span_hi) -%}
      {%- set i = [dbt_vulcan._vulcan_plan_k(g[0], b) - lookback, 0] | max -%}
      {%- set j = dbt_vulcan._vulcan_plan_k(g[1] - 1, b) -%}
      {%- if runs and i <= runs[-1][1] + 1 -%}
        {%- set previous = runs.pop() -%}
        {%- do runs.append([previous[0], [previous[1], j] | max]) -%}
      {%- else -%}
        {%- do runs.append([i, j]) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {#- the intervals an upstream model has not made ready are held back (upstream.sql), whatever
      chose them -#}
  {%- set cut = dbt_vulcan._vulcan_plan_hold_back(runs, p.get('upstream') or [], b) -%}
  {%- set runs = cut.runs -%}
  {#- what was processed since the table was last built from nothing (the `rebuilt` row a
      rebuild records once its empty table exists, engine/prepare_target.sql): a batch meeting
      it is dirty -#}
  {%- set touched = [] -%}
  {%- if runs and not rebuild -%}
    {%- for row in rows if row.row_type == 'processed' or (row.row_type == 'removed' and 'rebuilt' in row.details) -%}
      {%- if row.row_type == 'processed' -%}
        {%- do touched.append([row.start, row.end]) -%}
      {%- elif dbt_vulcan.vulcan_log_details(row).get('rebuilt') -%}
        {%- do touched.clear() -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set ever = dbt_vulcan.vulcan_ranges_merge(touched) -%}
  {%- set batches = [] -%}
  {%- for run in runs -%}
    {%- set size = run[1] - run[0] + 1 if batch_size is none else batch_size -%}
    {%- set count = (run[1] - run[0]) // size + 1 -%}
    {#- Jinja's range() stops at 100,000 items: the chunks in blocks of that many -#}
    {%- for block in range((count + 99999) // 100000) -%}
      {%- for n in range(block * 100000, [count, block * 100000 + 100000] | min) -%}
        {%- set i = run[0] + n * size -%}
        {%- set j = [run[1], i + size - 1] | min -%}
        {%- set start = dbt_vulcan._vulcan_plan_start_us(i, b) -%}
        {%- set end = dbt_vulcan._vulcan_plan_end_us(j, b) -%}
        {%- set st = {'dirty': false} -%}
        {%- for x in ever if not st.dirty and x[0] < end and x[1] > start -%}{%- do st.update({'dirty': true}) -%}{%- endfor -%}
        {%- do batches.append({'start': start, 'end': end, 'intervals': j - i + 1, 'dirty': st.dirty}) -%}
      {%- endfor -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return({'batches': batches, 'rebuild': rebuild, 'summary': summary, 'held': cut.held}) }}
{% endmacro %}

{#- The gaps of `processed` (merged ranges in order, epoch microseconds) inside [low, high). -#}
{% macro _vulcan_plan_gaps(processed, low, high) %}
  {%- set gaps = [] -%}
  {%- set st = {'cursor': low} -%}
  {%- for r in processed if r[1] > low and r[0] < high -%}
    {%- if r[0] > st.cursor -%}{%- do gaps.append([st.cursor, r[0]]) -%}{%- endif -%}
    {%- do st.update({'cursor': [st.cursor, r[1]] | max}) -%}
  {%- endfor -%}
  {%- if st.cursor < high -%}{%- do gaps.append([st.cursor, high]) -%}{%- endif -%}
  {{ return(gaps) }}
{% endmacro %}

{#- The model's expected intervals not fully processed at `execution_time`, merged (the
    oracle's planning.plan_intervals' `missing`; the operations' plan and status report it),
    without enumerating intervals: the expected intervals span one range from the model's start
    to min(end, what is due: vulcan_due_end); every gap of `processed` inside it (the same gaps
    a run's plan fills) is widened to the intervals it touches. `rebuild`: the table is
    (re)built, so nothing counts as processed. -#}
{% macro vulcan_missing_intervals(cfg, processed, rebuild, execution_time) %}
  {%- set geometry = dbt_vulcan.vulcan_unit_geometry(cfg.interval_unit, cfg.week_start) -%}
  {%- set due_end = dbt_vulcan.vulcan_due_end(cfg, cfg.cron, execution_time, geometry) -%}
  {%- set b = dbt_vulcan._vulcan_plan_bounds({
    'start': cfg.start, 'end': cfg.end, 'unit': cfg.interval_unit, 'week_start': cfg.week_start,
    'due_end': dbt_vulcan.vulcan_format_ts(due_end), 'allow_partials': cfg.allow_partials,
  }) -%}
  {%- set low, high = b.span_lo, b.span_hi -%}
  {%- if high <= low -%}{{ return([]) }}{%- endif -%}
  {%- if rebuild -%}{{ return([[low, high]]) }}{%- endif -%}
  {%- set missing = [] -%}
  {%- for gap in dbt_vulcan._vulcan_plan_gaps(processed, low, high) -%}
    {%- set first = dbt_vulcan._vulcan_plan_index(dbt_vulcan.vulcan_log_datetime(gap[0]), b) -%}
    {%- set last = dbt_vulcan._vulcan_plan_index(dbt_vulcan.vulcan_log_datetime(gap[1]), b) -%}
    {%- set last_start = dbt_vulcan._vulcan_plan_micros(dbt_vulcan._vulcan_plan_start_of(last, b)) -%}
    {%- set end = gap[1] if last_start == gap[1] else dbt_vulcan._vulcan_plan_micros(dbt_vulcan._vulcan_plan_start_of(last + 1, b)) -%}
    {%- do missing.append([dbt_vulcan._vulcan_plan_micros(dbt_vulcan._vulcan_plan_start_of(first, b)), [end, high] | min]) -%}
  {%- endfor -%}
  {{ return(dbt_vulcan.vulcan_ranges_merge(missing)) }}
{% endmacro %}

{#- `runs` (relative interval indexes [i, j]) without the intervals that meet a range an
    upstream model has not made ready: {runs, held: {ranges (merged epoch microseconds),
    intervals, waiting: [{name, since: where the parent's first unready range meeting a held
    interval starts}]}} (the oracle's planning.hold_back). -#}
{% macro _vulcan_plan_hold_back(runs, upstream, b) %}
  {%- set held = {'ranges': [], 'intervals': 0, 'waiting': []} -%}
  {%- if not runs or not upstream -%}{{ return({'runs': runs, 'held': held}) }}{%- endif -%}
  {%- set low = dbt_vulcan._vulcan_plan_start_us(runs[0][0], b) -%}
  {%- set high = dbt_vulcan._vulcan_plan_end_us(runs[-1][1], b) -%}
  {%- set blocked = [] -%}
  {%- for w in upstream -%}
    {%- for r in w.unready if r[1] > low and r[0] < high -%}
      {%- do blocked.append([dbt_vulcan._vulcan_plan_k([r[0], low] | max, b), dbt_vulcan._vulcan_plan_k([r[1], high] | min - 1, b), w.name, r[0]]) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if not blocked -%}{{ return({'runs': runs, 'held': held}) }}{%- endif -%}
  {{ return(dbt_vulcan._vulcan_plan_cut_blocked(runs, upstream, blocked, b)) }}
{% endmacro %}

{#- The cut itself, when some run meets a blocked range (its own macro: a run whose upstream
    is ready compiles none of it); `blocked`: [first index, last index, parent, since]. -#}
{% macro _vulcan_plan_cut_blocked(runs, upstream, blocked, b) %}
  {%- set held = {'ranges': [], 'intervals': 0, 'waiting': []} -%}
  {%- set merged = [] -%}
  {%- for x in blocked | sort(attribute='0') -%}
    {%- if merged and x[0] <= merged[-1][1] + 1 -%}
      {%- set previous = merged.pop() -%}
      {%- do merged.append([previous[0], [previous[1], x[1]] | max]) -%}
    {%- else -%}
      {%- do merged.append([x[0], x[1]]) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set kept = [] -%}
  {%- set cut = [] -%}
  {%- for run in runs -%}
    {%- set st = {'at': run[0]} -%}
    {%- for m in merged if m[1] >= run[0] and m[0] <= run[1] -%}
      {%- if m[0] > st.at -%}{%- do kept.append([st.at, m[0] - 1]) -%}{%- endif -%}
      {%- do cut.append([[m[0], run[0]] | max, [m[1], run[1]] | min]) -%}
      {%- do st.update({'at': m[1] + 1}) -%}
    {%- endfor -%}
    {%- if st.at <= run[1] -%}{%- do kept.append([st.at, run[1]]) -%}{%- endif -%}
  {%- endfor -%}
  {%- set ranges = [] -%}
  {%- for c in cut -%}
    {%- do ranges.append([dbt_vulcan._vulcan_plan_start_us(c[0], b), dbt_vulcan._vulcan_plan_end_us(c[1], b)]) -%}
  {%- endfor -%}
  {%- do held.update({'ranges': dbt_vulcan.vulcan_ranges_merge(ranges), 'intervals': cut | map('last') | sum - cut | map('first') | sum + cut | length}) -%}
  {%- for w in upstream -%}
    {%- set since = [] -%}
    {%- for x in blocked if x[2] == w.name -%}
      {%- for c in cut if x[0] <= c[1] and x[1] >= c[0] -%}{%- do since.append(x[3]) -%}{%- endfor -%}
    {%- endfor -%}
    {%- if since -%}{%- do held.waiting.append({'name': w.name, 'since': since | min}) -%}{%- endif -%}
  {%- endfor -%}
  {{ return({'runs': kept, 'held': held}) }}
{% endmacro %}

{#- The index, relative to the first expected interval, of the interval holding epoch
    microseconds `x` -#}
{% macro _vulcan_plan_k(x, b) %}
  {%- if b.delta is defined -%}
    {{ return((x - b.origin) // b.delta - b.first) }}
  {%- endif -%}
  {%- set d = dbt_vulcan._vulcan_plan_datetime(x) -%}
  {{ return((d.year * 12 + d.month - 1) // b.months - b.first) }}
{% endmacro %}

{#- epoch microseconds where relative interval `j` starts -#}
{% macro _vulcan_plan_start_us(j, b) %}
  {{ return(dbt_vulcan._vulcan_plan_micros(dbt_vulcan._vulcan_plan_start_of(b.first + j, b))) }}
{% endmacro %}

{#- epoch microseconds where relative interval `j` ends: where the next one starts, or the limit
    for a partial last interval -#}
{% macro _vulcan_plan_end_us(j, b) %}
  {{ return(b.limit if b.partial and j >= b.complete else dbt_vulcan._vulcan_plan_start_us(j + 1, b)) }}
{% endmacro %}

{#- The scalar bounds of the plan, in epoch microseconds, from `p` (Python integer arithmetic;
    no interval is enumerated): unit geometry, the index of the first interval, how many complete
    intervals end by min(end, due_end), whether a partial one follows, the span they cover and
    the explicit range. -#}
{% macro _vulcan_plan_bounds(p) %}
  {%- set fixed = {'five_minute': 300, 'quarter_hour': 900, 'half_hour': 1800, 'hour': 3600, 'day': 86400, 'week': 604800} -%}
  {%- set months = {'month': 1, 'quarter': 3, 'year': 12} -%}
  {%- set unit = p.get('unit') | string | lower -%}
  {%- set b = {} -%}
  {%- if unit in fixed -%}
    {%- set origin = 0 -%}
    {%- if unit == 'week' -%}
      {#- 1970-01-05 was a Monday -#}
      {%- set origin = (4 + dbt_vulcan._vulcan_plan_int(0 if p.get('week_start') is none else p.get('week_start'), 'week_start', 0, 6)) * 86400000000 -%}
    {%- endif -%}
    {%- do b.update({'delta': fixed[unit] * 1000000, 'origin': origin}) -%}
  {%- elif unit in months -%}
    {%- do b.update({'months': months[unit]}) -%}
  {%- else -%}
    {{ exceptions.raise_compiler_error('vulcan_plan_intervals: unit ' ~ (p.get('unit') | string | tojson) ~ ' is not one of: five_minute, quarter_hour, half_hour, hour, day, week, month, quarter, year') }}
  {%- endif -%}
  {%- set start = dbt_vulcan._vulcan_plan_time(p.get('start'), 'start') -%}
  {%- set limit = dbt_vulcan._vulcan_plan_time(p.get('due_end'), 'due_end') -%}
  {%- if p.get('end') is not none -%}
    {%- set limit = [limit, dbt_vulcan._vulcan_plan_time(p.get('end'), 'end')] | min -%}
  {%- endif -%}
  {%- set first = dbt_vulcan._vulcan_plan_index(start, b) -%}
  {%- set complete = [dbt_vulcan._vulcan_plan_index(limit, b) - first, 0] | max -%}
  {%- set tail = dbt_vulcan._vulcan_plan_micros(dbt_vulcan._vulcan_plan_start_of(first + complete, b)) -%}
  {%- set limit_us = dbt_vulcan._vulcan_plan_micros(limit) -%}
  {%- set partial = p.get('allow_partials') and tail < limit_us -%}
  {%- set span_lo = dbt_vulcan._vulcan_plan_micros(dbt_vulcan._vulcan_plan_start_of(first, b)) -%}
  {%- do b.update({
    'first': first, 'complete': complete, 'partial': partial,
    'total': complete + (1 if partial else 0), 'limit': limit_us,
    'span_lo': span_lo, 'span_hi': limit_us if partial else ([tail, span_lo] | max),
    'explicit': p.get('explicit') is not none,
  }) -%}
  {%- if p.get('explicit') is not none -%}
    {%- do b.update({
      'explicit_lo': dbt_vulcan._vulcan_plan_micros(dbt_vulcan._vulcan_plan_time(p.explicit[0], 'explicit')),
      'explicit_hi': dbt_vulcan._vulcan_plan_micros(dbt_vulcan._vulcan_plan_time(p.explicit[1], 'explicit')),
    }) -%}
  {%- endif -%}
  {{ return(b) }}
{% endmacro %}

{#- a naive UTC datetime from 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]' -#}
{% macro _vulcan_plan_time(value, key) %}
  {%- set text = value | string | trim -%}
  {%- if not modules.re.match('^\\d{4}-\\d{2}-\\d{2}([ T]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{6})?)?)?$', text) -%}
    {{ exceptions.raise_compiler_error('vulcan_plan_intervals: ' ~ key ~ ' ' ~ (value | string | tojson) ~ " is not a time 'YYYY-MM-DD HH:MM:SS[.ffffff]'") }}
  {%- endif -%}
  {{ return(modules.datetime.datetime.fromisoformat(text.replace('T', ' '))) }}
{% endmacro %}

{% macro _vulcan_plan_micros(dt) %}
  {%- set delta = dt - modules.datetime.datetime(1970, 1, 1) -%}
  {{ return(delta.days * 86400000000 + delta.seconds * 1000000 + delta.microseconds) }}
{% endmacro %}

{#- the naive UTC datetime of epoch microseconds `us` (a plan row's batch bounds) -#}
{% macro _vulcan_plan_datetime(us) %}
  {{ return(modules.datetime.datetime(1970, 1, 1) + modules.datetime.timedelta(microseconds=us | int)) }}
{% endmacro %}

{#- the index of the unit interval holding datetime `dt` (month units: in steps of n months) -#}
{% macro _vulcan_plan_index(dt, b) %}
  {%- if b.delta is defined -%}
    {{ return((dbt_vulcan._vulcan_plan_micros(dt) - b.origin) // b.delta) }}
  {%- endif -%}
  {{ return((dt.year * 12 + dt.month - 1) // b.months) }}
{% endmacro %}

{#- the datetime where unit interval `k` starts -#}
{% macro _vulcan_plan_start_of(k, b) %}
  {%- if b.delta is defined -%}
    {{ return(modules.datetime.datetime(1970, 1, 1) + modules.datetime.timedelta(microseconds=b.origin + k * b.delta)) }}
  {%- endif -%}
  {{ return(modules.datetime.datetime((k * b.months) // 12, (k * b.months) % 12 + 1, 1)) }}
{% endmacro %}

{% macro _vulcan_plan_int(value, key, minimum, maximum=none) %}
  {%- if value is number and value is not sameas true and value is not sameas false and value == value | int and value >= minimum and (maximum is none or value <= maximum) -%}
    {{ return(value | int) }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error('vulcan_plan_intervals: ' ~ key ~ ' ' ~ (value | string | tojson) ~ ' is not an integer >= ' ~ minimum ~ ('' if maximum is none else ' and <= ' ~ maximum)) }}
{% endmacro %}
