{#- A model run's batches as ONE set-based Spark SQL query over the interval state log.

    vulcan_plan_intervals_sql(state_relation, relation_key, p) returns the SQL text (a single
    SELECT; nothing runs here). It reads the log rows whose `relation` is `relation_key` and
    returns one row per batch of this run, in order:

      batch_index    int            1-based
      batch_count    int            number of batches of the run
      batch_start    timestamp_ntz  start of the batch's first interval (UTC wall clock)
      batch_end      timestamp_ntz  end of its last interval (exclusive)
      intervals      bigint         intervals in the batch
      dirty          boolean        the batch overlaps a range the log ever recorded as processed
                                    (it may still hold rows, even if removed since); never on a
                                    rebuild
      rebuild        boolean        p.rebuild, or the log holds a full-history restatement with no
                                    reset marker after it: the run rebuilds (as planner.plan_model)
      batch_start_text, batch_end_text  string  the same bounds as timeutil.format_ts writes
                                    them ('YYYY-MM-DD HH:MM:SS[.ffffff]'), whatever the driver
                                    makes of timestamp_ntz
      log_rows, previous_fingerprint, previous_details  the log's row count for the relation,
                                    the latest processed row's fingerprint and details (on every
                                    row; with nothing due, ONE row whose batch columns are null)

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

    The semantics are the Python engine's (intervals.plan_intervals, planner.plan_model); the
    tests hold the two equal. Jinja computes only scalar bounds (epoch microseconds) from `p`;
    the intervals come from sequence/explode in SQL and are never enumerated here. Log times are
    read field by field into epoch microseconds, so the session time zone plays no part.

    How: the log rows and the expected intervals go through one pipeline (one shuffle into a
    single partition, then only sorts, windows and aggregations; no join):
      vulcan_log        the relation's rows, times parsed
      vulcan_items      log rows (clipped to the span of the expected intervals) + the expected
                        intervals (explode(sequence(..)) of unit indexes; kind 0)
      vulcan_scoped     `id`: replay order (recorded_at, seq; then kind and bounds as a
                        deterministic tie-break); a pending full restatement -> rebuild; `live`:
                        after the last removed row covering the whole span (earlier rows cannot
                        matter to the replay)
      vulcan_events     both ends of every item; dense_rank = elementary segment; a running count
                        of the processed rows (ever) covering each segment = touched
      vulcan_spans      each item's first and end segment
      vulcan_cells      per segment: the latest live processed and removed row covering it, the
                        expected interval holding it, touched
      vulcan_intervals  per expected interval: missing (a segment whose latest covering row is
                        not a processed row), touched
      vulcan_due        lookback (max over the next `lookback` intervals) or the explicit range
      vulcan_runs       contiguous runs split at gaps (lag + running sum), position in the run
      vulcan_batches    chunks of at most batch_size intervals per run; then numbered -#}

{% macro vulcan_plan_intervals_sql(state_relation, relation_key, p) %}
  {{ return(adapter.dispatch('vulcan_plan_intervals_sql', 'dbt_vulcan')(state_relation, relation_key, p)) }}
{% endmacro %}

{% macro default__vulcan_plan_intervals_sql(state_relation, relation_key, p) %}
  {%- set b = dbt_vulcan._vulcan_plan_bounds(p) -%}
  {%- set lookback = dbt_vulcan._vulcan_plan_int(p.get('lookback', 0), 'lookback', 0) -%}
  {%- set batch_size = none if p.get('batch_size') is none else dbt_vulcan._vulcan_plan_int(p.get('batch_size'), 'batch_size', 1) -%}
  {%- set us = dbt_vulcan._vulcan_plan_us -%}
  {%- set flag = dbt_vulcan._vulcan_plan_flag -%}
  {%- set sql -%}
with
vulcan_log as (
  select
    {{ us('interval_start') }} as raw_s,
    {{ us('interval_end') }} as raw_e,
    case row_type when 'processed' then 1 when 'removed' then 2 else 3 end as kind,
    row_type,
    fingerprint,
    details,
    recorded_at,
    seq
  from {{ state_relation }}
  where relation = {{ dbt_vulcan.vulcan_sql_string(relation_key) }}
),
{# kind: 0 expected interval, 1 processed, 2 removed, 3 other log row; log rows are clipped to
   the span of the expected intervals -#}
vulcan_items as (
  select
    kind,
    greatest(raw_s, {{ b.span_lo }}L) as s,
    least(raw_e, {{ b.span_hi }}L) as e,
    named_struct('at', {{ us('recorded_at') }}, 'seq', coalesce(seq, 0), 'kind', kind, 'start', raw_s, 'end', raw_e) as ord,
    kind <> 1 and {{ flag('restate') }} and {{ flag('full') }} as full_restate,
    {{ flag('reset') }} as reset,
    kind = 2 and raw_s <= {{ b.span_lo }}L and raw_e >= {{ b.span_hi }}L as wipes
  from vulcan_log
  union all
  select
    0 as kind,
    {{ dbt_vulcan._vulcan_plan_boundary(b.first ~ ' + k', b) }} as s,
    {% if b.partial -%}
    case when k < {{ b.complete }} then {{ dbt_vulcan._vulcan_plan_boundary(b.first ~ ' + k + 1', b) }} else {{ b.limit }}L end as e,
    {%- else -%}
    {{ dbt_vulcan._vulcan_plan_boundary(b.first ~ ' + k + 1', b) }} as e,
    {%- endif %}
    cast(null as struct<at: bigint, seq: int, kind: int, start: bigint, `end`: bigint>) as ord,
    false as full_restate, false as reset, false as wipes
  from (select explode(sequence(0L, {{ [b.total - 1, 0] | max }}L)) as k)
  where k < {{ b.total }}
),
{# `id` numbers the items in replay order (log rows by recorded_at, seq, then kind and bounds
   as a deterministic tie-break). A pending full-history restatement rebuilds; log rows before
   the last removed row covering the whole span cannot matter to the replay. -#}
vulcan_scoped as (
  select *,
    {{ 'true' if p.get('rebuild') else 'false' }}
      or coalesce(last_full_restate > last_reset, last_full_restate is not null) as rebuild,
    kind = 0 or cutoff is null or ord > cutoff as live
  from (
    select *,
      row_number() over (order by ord) as id,
      max(case when full_restate then ord end) over (order by ord rows between unbounded preceding and unbounded following) as last_full_restate,
      max(case when reset then ord end) over (order by ord rows between unbounded preceding and unbounded following) as last_reset,
      max(case when wipes then ord end) over (order by ord rows between unbounded preceding and unbounded following) as cutoff
    from vulcan_items
  )
),
{# elementary segments: between consecutive distinct ends of the items; a running count of
   the processed rows (ever) covering each; each item's first and end segment -#}
vulcan_events as (
  select *,
    dense_rank() over (order by at) as seg,
    sum(case when kind = 1 then 1 - 2 * pos else 0 end)
      over (order by at range between unbounded preceding and current row) as covering
  from (
    select id, kind, s, e, live, rebuild, pos, at
    from vulcan_scoped
    lateral view posexplode(array(s, e)) t as pos, at
    where kind = 0 or (not rebuild and s < e and (kind = 1 or (kind = 2 and live)))
  )
),
vulcan_spans as (
  select *,
    min(seg) over (partition by id) as first_seg,
    max(seg) over (partition by id) as end_seg
  from vulcan_events
),
{# per segment: processed when its latest covering live row is a processed row -#}
vulcan_cells as (
  select cell as seg,
    max(case when covers and kind = 1 then id end) as last_processed,
    max(case when covers and kind = 2 then id end) as last_removed,
    max(case when covers and kind = 0 then s end) as interval_start,
    max(case when covers and kind = 0 then e end) as interval_end,
    max(case when cell = seg then covering end) > 0 as touched,
    max(rebuild) as rebuild
  from (
    select *, pos = 0 and live as covers
    from vulcan_spans
  )
  {# each event stands for its own segment (the running count); a live item's start also for
     every segment the item covers -#}
  lateral view explode(case when covers then sequence(first_seg, end_seg - 1) else array(seg) end) t as cell
  group by cell
),
vulcan_intervals as (
  select interval_start as s, max(interval_end) as e,
    max(case when last_processed is not null
      and (last_removed is null or last_processed > last_removed) then 0 else 1 end) as missing,
    max(touched) as touched,
    max(rebuild) as rebuild
  from vulcan_cells
  where interval_start is not null
  group by interval_start
),
{# lookback: an interval runs when it or one of the `lookback` intervals after it is missing;
   an explicit range runs exactly its expected intervals -#}
vulcan_due as (
  select s, e, touched, rebuild,
    {% if b.explicit -%}
    case when rebuild then missing_ahead = 1 else s >= {{ b.explicit_lo }}L and e <= {{ b.explicit_hi }}L end as runs
    {%- else -%}
    missing_ahead = 1 as runs
    {%- endif %}
  from (
    select *, max(missing) over (order by s rows between current row and {{ lookback }} following) as missing_ahead
    from vulcan_intervals
  )
),
{# batches: contiguous runs split at gaps, each cut into chunks of at most batch_size -#}
vulcan_runs as (
  select *,
    sum(gap) over (order by s rows between unbounded preceding and current row) as run_id,
    position - max(case when gap = 1 then position end)
      over (order by s rows between unbounded preceding and current row) as run_position
  from (
    select s, e, touched, rebuild,
      case when lag(e) over (order by s) = s then 0 else 1 end as gap,
      row_number() over (order by s) as position
    from vulcan_due
    where runs
  )
),
vulcan_batches as (
  select min(s) as s, max(e) as e, count(*) as intervals,
    coalesce(max(touched), false) and not max(rebuild) as dirty, max(rebuild) as rebuild
  from vulcan_runs
  group by run_id{{ '' if batch_size is none else ', run_position div ' ~ batch_size }}
),
{# what the run needs from the log besides the batches: its size, and the latest processed
   row's fingerprint and details; one row, so a run with nothing due still gets it -#}
vulcan_summary as (
  select count(*) as log_rows,
    max_by(fingerprint, case when kind = 1 then named_struct('at', {{ us('recorded_at') }}, 'seq', coalesce(seq, 0)) end) as previous_fingerprint,
    max_by(details, case when kind = 1 then named_struct('at', {{ us('recorded_at') }}, 'seq', coalesce(seq, 0)) end) as previous_details
  from vulcan_log
),
vulcan_numbered as (
  select
    cast(row_number() over (order by s) as int) as batch_index,
    cast(count(*) over () as int) as batch_count,
    {{ dbt_vulcan._vulcan_plan_ts('s') }} as batch_start,
    {{ dbt_vulcan._vulcan_plan_ts('e') }} as batch_end,
    intervals,
    dirty,
    rebuild,
    {{ dbt_vulcan._vulcan_plan_text('s') }} as batch_start_text,
    {{ dbt_vulcan._vulcan_plan_text('e') }} as batch_end_text
  from vulcan_batches
)
select b.*, m.log_rows, m.previous_fingerprint, m.previous_details
from vulcan_summary m left join vulcan_numbered b on true
order by b.batch_index
  {%- endset -%}
  {{ return(sql) }}
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
    {{ exceptions.raise_compiler_error('vulcan_plan_intervals_sql: unit ' ~ (p.get('unit') | string | tojson) ~ ' is not one of: five_minute, quarter_hour, half_hour, hour, day, week, month, quarter, year') }}
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
    {{ exceptions.raise_compiler_error('vulcan_plan_intervals_sql: ' ~ key ~ ' ' ~ (value | string | tojson) ~ " is not a time 'YYYY-MM-DD HH:MM:SS[.ffffff]'") }}
  {%- endif -%}
  {{ return(modules.datetime.datetime.fromisoformat(text.replace('T', ' '))) }}
{% endmacro %}

{% macro _vulcan_plan_micros(dt) %}
  {%- set delta = dt - modules.datetime.datetime(1970, 1, 1) -%}
  {{ return(delta.days * 86400000000 + delta.seconds * 1000000 + delta.microseconds) }}
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

{#- SQL: epoch microseconds where unit interval `k` (an SQL expression) starts -#}
{% macro _vulcan_plan_boundary(k, b) %}
  {%- if b.delta is defined -%}
    {{ return('(' ~ b.origin ~ 'L + (' ~ k ~ ') * ' ~ b.delta ~ 'L)') }}
  {%- endif -%}
  {%- set month = '((' ~ k ~ ') * ' ~ b.months ~ 'L)' -%}
  {{ return('(cast(unix_date(make_date(cast(' ~ month ~ ' div 12 as int), cast(pmod(' ~ month ~ ', 12L) + 1 as int), 1)) as bigint) * 86400000000L)') }}
{% endmacro %}

{#- SQL: epoch microseconds of a 'YYYY-MM-DD HH:MM:SS[.ffffff]' string column, read field by
    field (timestamp functions would apply the session time zone) -#}
{% macro _vulcan_plan_us(column) %}
  {%- set t = 'try_cast(' ~ column ~ ' as timestamp_ntz)' -%}
  {{ return('(cast(unix_date(cast(' ~ t ~ ' as date)) as bigint) * 86400000000L + hour(' ~ t ~ ') * 3600000000L + minute(' ~ t ~ ') * 60000000L + cast(date_part(\'SECOND\', ' ~ t ~ ') * 1000000 as bigint))') }}
{% endmacro %}

{#- SQL: a timestamp_ntz (UTC wall clock) from epoch microseconds `x` -#}
{% macro _vulcan_plan_ts(x) %}
  {%- set d = 'date_from_unix_date(cast((' ~ x ~ ' - pmod(' ~ x ~ ', 86400000000L)) div 86400000000L as int))' -%}
  {%- set tod = 'pmod(' ~ x ~ ', 86400000000L)' -%}
  {{ return('make_timestamp_ntz(year(' ~ d ~ '), month(' ~ d ~ '), day(' ~ d ~ '), cast(' ~ tod ~ ' div 3600000000L as int), cast(pmod(' ~ tod ~ ', 3600000000L) div 60000000L as int), cast(pmod(' ~ tod ~ ', 60000000L) as decimal(16, 6)) / 1000000)') }}
{% endmacro %}

{#- SQL: 'YYYY-MM-DD HH:MM:SS[.ffffff]' (as timeutil.format_ts) from epoch microseconds `x`
    (date_format would apply the session time zone) -#}
{% macro _vulcan_plan_text(x) %}
  {%- set d = 'date_from_unix_date(cast((' ~ x ~ ' - pmod(' ~ x ~ ', 86400000000L)) div 86400000000L as int))' -%}
  {%- set tod = 'pmod(' ~ x ~ ', 86400000000L)' -%}
  {%- set parts = [
    'cast(' ~ d ~ ' as string)', "' '",
    'lpad(cast(' ~ tod ~ ' div 3600000000L as string), 2, \'0\')', "':'",
    'lpad(cast(pmod(' ~ tod ~ ', 3600000000L) div 60000000L as string), 2, \'0\')', "':'",
    'lpad(cast(pmod(' ~ tod ~ ', 60000000L) div 1000000L as string), 2, \'0\')',
    'case when pmod(' ~ x ~ ', 1000000L) = 0 then \'\' else concat(\'.\', lpad(cast(pmod(' ~ x ~ ', 1000000L) as string), 6, \'0\')) end',
  ] -%}
  {{ return('concat(' ~ parts | join(', ') ~ ')') }}
{% endmacro %}

{#- SQL: the row's JSON `details` holds a truthy `name` (as Python's bool(details.get(name))) -#}
{% macro _vulcan_plan_flag(name) %}
  {{ return("coalesce(get_json_object(details, '$." ~ name ~ "') not in ('false', '0', '0.0', '', '[]', '{}'), false)") }}
{% endmacro %}

{% macro _vulcan_plan_int(value, key, minimum, maximum=none) %}
  {%- if value is number and value is not sameas true and value is not sameas false and value == value | int and value >= minimum and (maximum is none or value <= maximum) -%}
    {{ return(value | int) }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error('vulcan_plan_intervals_sql: ' ~ key ~ ' ' ~ (value | string | tojson) ~ ' is not an integer >= ' ~ minimum ~ ('' if maximum is none else ' and <= ' ~ maximum)) }}
{% endmacro %}
