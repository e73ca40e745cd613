{#- A model run's batches as ONE set-based Spark SQL query over the interval state log.

    vulcan_plan_intervals_sql(state_relation, relation_key, p) returns the SQL text (a single
    SELECT; nothing runs here). It reads the log rows whose `relation` is `relation_key` and
    returns one row per batch of this run, in order, then one summary row:

      batch_start    bigint   start of the batch's first interval, epoch microseconds (UTC wall
                              clock); null on the summary row
      batch_end      bigint   end of its last interval (exclusive)
      intervals      bigint   intervals in the batch
      dirty          boolean  the batch overlaps a range the log ever recorded as processed (it
                              may still hold rows, even if removed since); never on a rebuild
      rebuild        boolean  p.rebuild, or the log holds a full-history restatement with no
                              reset marker after it: the run rebuilds (as planner.plan_model)
      log_rows, previous_fingerprint, previous_details   on the summary row only: the log's row
                              count for the relation, the latest processed row's fingerprint and
                              details

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

    The semantics are the Python engine's (intervals.plan_intervals over state.replay,
    planner.plan_model); tests/functional/planning holds the two equal on random logs. Jinja
    computes only scalar bounds (epoch microseconds) from `p`; the intervals come from
    sequence/explode in SQL and are never enumerated here. Log times are read field by field
    into epoch microseconds, so the session time zone plays no part.

    How. The query is built to be cheap in a fresh Spark process, where every run pays it (each
    distinct operator costs JIT and code generation there, each stage a job): the relation's
    rows are coalesced into one partition as they are read, so the whole plan is ONE stage of
    one job (no shuffle, no join, no subquery), with few operators. (A shuffle into one
    partition would keep the scan parallel for a very large log, at one more job on every run:
    `vulcan_compact` keeps the log small instead.)
      vulcan_log        the relation's rows, times parsed, clipped to the span of the expected
                        intervals
      vulcan_items      the expected intervals k = 0 .. total-1 (explode(sequence)), and every
                        processed or removed row once per expected interval it overlaps (by unit
                        arithmetic, no join), and every log row once more with k null (for the
                        summary)
      vulcan_grouped    per interval: its rows (collect_list); the k-null group is the summary
      vulcan_intervals  per interval: missing, touched. An interval is processed when every
                        point of it has a processed row as its latest covering row (that is
                        what replaying the log does), i.e. when the processed rows cover it and,
                        for each removed row, the processed rows recorded after it cover its part
                        of the interval. Each cover test is one sweep over the processed rows
                        sorted by start (array functions, no join).
      vulcan_due        lookback (a window over the next `lookback` intervals) or the explicit
                        range; a pending full restatement makes everything due
      vulcan_runs       the start of each contiguous run of due intervals (a running max)
      vulcan_batches    chunks of at most batch_size intervals per run, and the summary row -#}

{% macro vulcan_plan_intervals_sql(state_relation, relation_key, p) %}
  {{ return(adapter.dispatch('vulcan_plan_intervals_sql', 'dbt_vulcan')(state_relation, relation_key, p)) }}
{% endmacro %}

{% macro default__vulcan_plan_intervals_sql(state_relation, relation_key, p) %}
  {%- set b = dbt_vulcan._vulcan_plan_bounds(p) -%}
  {%- set lookback = dbt_vulcan._vulcan_plan_int(p.get('lookback', 0), 'lookback', 0) -%}
  {%- set batch_size = none if p.get('batch_size') is none else dbt_vulcan._vulcan_plan_int(p.get('batch_size'), 'batch_size', 1) -%}
  {%- set us = dbt_vulcan._vulcan_plan_us -%}
  {%- set flag = dbt_vulcan._vulcan_plan_flag -%}
  {%- set index = dbt_vulcan._vulcan_plan_index_sql -%}
  {%- set ord_type = 'struct<at: bigint, seq: int, kind: int, start: bigint, `end`: bigint>' -%}
  {%- set sql -%}
with
vulcan_log as (
  select *,
    named_struct('at', at, 'seq', seq, 'kind', kind, 'start', raw_s, 'end', raw_e) as ord,
    greatest(raw_s, {{ b.span_lo }}L) as s,
    least(raw_e, {{ b.span_hi }}L) as e
  from (
    select
      {{ us('interval_start') }} as raw_s,
      {{ us('interval_end') }} as raw_e,
      case row_type when 'processed' then 1 when 'removed' then 2 else 3 end as kind,
      {{ us('recorded_at') }} as at,
      coalesce(seq, 0) as seq,
      fingerprint,
      details
    from {{ state_relation }}
    where relation = {{ dbt_vulcan.vulcan_sql_string(relation_key) }}
  )
),
{# one partition from the scan on: the plan runs in one stage -#}
vulcan_items as (
  select /*+ COALESCE(1) */ * from (
    select k, cast(null as int) as kind, cast(null as {{ ord_type }}) as ord,
      cast(null as bigint) as s, cast(null as bigint) as e,
      cast(null as string) as fingerprint, cast(null as string) as details
    from (select explode(sequence(0L, {{ [b.total - 1, 0] | max }}L)) as k)
    where k < {{ b.total }}
    union all
    select k, kind, ord, s, e, fingerprint, details
    from vulcan_log
    lateral view explode(
      case when kind in (1, 2) and s < e
        then concat(array(cast(null as bigint)), sequence({{ index('s', b) }} - {{ b.first }}L, {{ index('e - 1', b) }} - {{ b.first }}L))
        else array(cast(null as bigint)) end
    ) t as k
  )
),
vulcan_grouped as (
  select k,
    collect_list(case when k is not null and kind is not null then named_struct('kind', kind, 'ord', ord, 's', s, 'e', e) end) as rows,
    {#- the summary: from the k-null group, where every log row is once -#}
    count(*) as log_rows,
    max_by(fingerprint, case when k is null and kind = 1 then ord end) as previous_fingerprint,
    max_by(details, case when k is null and kind = 1 then ord end) as previous_details,
    max(case when k is null and kind <> 1 and {{ flag('restate') }} and {{ flag('full') }} then ord end) as last_full,
    max(case when k is null and {{ flag('reset') }} then ord end) as last_reset
  from vulcan_items
  group by k
),
{# an interval is processed when the processed rows cover it and, for each removed row, the
   processed rows recorded after it cover the removed part; `cover` sweeps the processed rows
   (clipped to the interval, sorted by start) from a point, as far as they reach -#}
vulcan_intervals as (
  select *,
    k is not null and not (
      {{ dbt_vulcan._vulcan_plan_reach('s') }} >= e
      and forall(filter(rows, x -> x.kind = 2), r ->
        {{ dbt_vulcan._vulcan_plan_reach('greatest(r.s, s)', 'r.ord') }} >= least(r.e, e))
    ) as missing,
    exists(rows, x -> x.kind = 1) as touched,
    {{ 'true' if p.get('rebuild') else 'false' }} or coalesce(max(case when k is null
      then last_full > last_reset or (last_full is not null and last_reset is null) end) over (), false) as rebuild
  from (
    select *,
      array_sort(transform(filter(rows, x -> x.kind = 1),
        x -> named_struct('s', greatest(x.s, s), 'e', least(x.e, e), 'ord', x.ord))) as processed
    from (
      select *,
        {{ dbt_vulcan._vulcan_plan_boundary(b.first ~ ' + k', b) }} as s,
        {% if b.partial -%}
        case when k < {{ b.complete }} then {{ dbt_vulcan._vulcan_plan_boundary(b.first ~ ' + k + 1', b) }} else {{ b.limit }}L end as e
        {%- else -%}
        {{ dbt_vulcan._vulcan_plan_boundary(b.first ~ ' + k + 1', b) }} as e
        {%- endif %}
      from vulcan_grouped
    )
  )
),
{# lookback: an interval runs when it or one of the `lookback` intervals after it is missing;
   an explicit range runs exactly its expected intervals -#}
vulcan_due as (
  select *,
    k is not null and (rebuild or
    {%- if b.explicit %}
      (s >= {{ b.explicit_lo }}L and e <= {{ b.explicit_hi }}L)
    {%- elif lookback == 0 %}
      missing
    {%- else %}
      max(missing) over (order by k rows between current row and {{ lookback }} following)
    {%- endif %}) as runs
  from vulcan_intervals
),
{# a contiguous run of due intervals starts after the last interval that is not due -#}
vulcan_runs as (
  select *,
    coalesce(max(case when not runs then k end) over (order by k rows between unbounded preceding and current row), -1L) + 1 as run_start
  from vulcan_due
),
vulcan_batches as (
  select
    min(s) as batch_start, max(e) as batch_end, count(*) as intervals,
    max(touched) and not max(rebuild) as dirty, max(rebuild) as rebuild,
    max(case when k is null then log_rows end) as log_rows,
    max(case when k is null then previous_fingerprint end) as previous_fingerprint,
    max(case when k is null then previous_details end) as previous_details
  from vulcan_runs
  where runs or k is null
  group by k is null, run_start{{ '' if batch_size is none else ', (k - run_start) div ' ~ batch_size }}
)
select
  case when log_rows is null then batch_start end as batch_start,
  case when log_rows is null then batch_end end as batch_end,
  case when log_rows is null then intervals end as intervals,
  case when log_rows is null then dirty end as dirty,
  case when log_rows is null then rebuild end as rebuild,
  log_rows, previous_fingerprint, previous_details
from vulcan_batches
order by log_rows is not null, batch_start
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- SQL: how far the processed rows of an interval (`processed`: clipped to it, sorted by start)
    reach from point `point` without a gap; with `after`, only rows recorded after that order -#}
{% macro _vulcan_plan_reach(point, after=none) %}
  {%- set recorded = '' if after is none else 'x.ord > ' ~ after ~ ' and ' -%}
  {{ return('aggregate(processed, ' ~ point ~ ', (reach, x) -> case when ' ~ recorded ~ 'x.s <= reach and x.e > reach then x.e else reach end)') }}
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

{#- SQL: epoch microseconds where unit interval `k` (an SQL expression) starts -#}
{% macro _vulcan_plan_boundary(k, b) %}
  {%- if b.delta is defined -%}
    {{ return('(' ~ b.origin ~ 'L + (' ~ k ~ ') * ' ~ b.delta ~ 'L)') }}
  {%- endif -%}
  {%- set month = '((' ~ k ~ ') * ' ~ b.months ~ 'L)' -%}
  {{ return('(cast(unix_date(make_date(cast(' ~ month ~ ' div 12 as int), cast(pmod(' ~ month ~ ', 12L) + 1 as int), 1)) as bigint) * 86400000000L)') }}
{% endmacro %}

{#- SQL: the index of the unit interval holding epoch microseconds `x` (an SQL expression) -#}
{% macro _vulcan_plan_index_sql(x, b) %}
  {%- if b.delta is defined -%}
    {%- set offset = '(' ~ x ~ ' - ' ~ b.origin ~ 'L)' -%}
    {{ return('((' ~ offset ~ ' - pmod(' ~ offset ~ ', ' ~ b.delta ~ 'L)) div ' ~ b.delta ~ 'L)') }}
  {%- endif -%}
  {%- set d = 'date_from_unix_date(cast(((' ~ x ~ ') - pmod(' ~ x ~ ', 86400000000L)) div 86400000000L as int))' -%}
  {{ return('((year(' ~ d ~ ') * 12L + month(' ~ d ~ ') - 1) div ' ~ b.months ~ ')') }}
{% endmacro %}

{#- SQL: epoch microseconds of a 'YYYY-MM-DD HH:MM:SS[.ffffff]' string column, read field by
    field (timestamp functions would apply the session time zone) -#}
{% macro _vulcan_plan_us(column) %}
  {%- set t = 'try_cast(' ~ column ~ ' as timestamp_ntz)' -%}
  {{ return('(cast(unix_date(cast(' ~ t ~ ' as date)) as bigint) * 86400000000L + hour(' ~ t ~ ') * 3600000000L + minute(' ~ t ~ ') * 60000000L + cast(date_part(\'SECOND\', ' ~ t ~ ') * 1000000 as bigint))') }}
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
