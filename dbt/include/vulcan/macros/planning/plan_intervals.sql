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
    computes only scalar bounds (epoch microseconds) from `p`; no interval is enumerated, in
    Jinja or in SQL: the plan is range arithmetic. Log times are read as UTC with an explicit
    zone, so the session time zone plays no part.

    How. Every scheduled run is a fresh Spark process, and there the query's own size is its
    cost: the cold parse, the analyzer's passes, the code paths of each distinct operator are
    paid on every run (the plan of issue 18, 11 CTEs over one row per interval, cost a fresh
    process 3.5 s more than a plain read of the same rows; benchmarks/FINDINGS_COLD.md). So the
    query is one scan, one aggregate and two projections, one stage of one job (the rows are
    coalesced into one partition as they are read), and the logic is array functions over
    ranges, few and flat:
      the aggregate    the relation's processed and removed ranges, clipped to the span of the
                       expected intervals and sorted by when they were recorded (recorded_at,
                       seq), as one array; the summary (row count, the latest processed row's
                       fingerprint and details, the last full restatement and reset markers)
      the replay       a fold over that array: a processed range is merged into a sorted list of
                       disjoint ranges, a removed one cut out of it; what is processed now, and
                       what was ever processed (`ever`, for `dirty`). Its cost grows with the
                       log's rows times the processed set's fragments (one range for a model
                       that runs in order); `vulcan_compact` keeps the log short.
      due              the gaps between the processed ranges as interval indexes [i, j],
                       `lookback` more before each, overlapping or adjacent ones merged (a fold);
                       the explicit range; everything on a rebuild
      the output       each due run cut into chunks of batch_size, as rows (inline), then the
                       summary row -#}

{% macro vulcan_plan_intervals_sql(state_relation, relation_key, p) %}
  {{ return(adapter.dispatch('vulcan_plan_intervals_sql', 'dbt_vulcan')(state_relation, relation_key, p)) }}
{% endmacro %}

{% macro default__vulcan_plan_intervals_sql(state_relation, relation_key, p) %}
  {%- set b = dbt_vulcan._vulcan_plan_bounds(p) -%}
  {%- set lookback = dbt_vulcan._vulcan_plan_int(p.get('lookback', 0), 'lookback', 0) -%}
  {%- set batch_size = none if p.get('batch_size') is none else dbt_vulcan._vulcan_plan_int(p.get('batch_size'), 'batch_size', 1) -%}
  {%- set us = dbt_vulcan._vulcan_plan_us -%}
  {%- set flag = dbt_vulcan._vulcan_plan_flag -%}
  {%- set k = dbt_vulcan._vulcan_plan_k -%}
  {%- set union, minus = dbt_vulcan._vulcan_plan_union, dbt_vulcan._vulcan_plan_minus -%}
  {%- set ranges = 'array<struct<s: bigint, e: bigint>>' -%}
  {%- set runs = 'array<struct<i: bigint, j: bigint>>' -%}
  {%- set batch_start = dbt_vulcan._vulcan_plan_start_sql('c.i', b) -%}
  {%- set batch_end = dbt_vulcan._vulcan_plan_end_sql('c.j', b) -%}
  {%- if b.total == 0 -%}
    {%- set due = 'cast(array() as ' ~ runs ~ ')' -%}
  {%- elif b.explicit -%}
    {#- an explicit range: exactly the expected intervals inside it -#}
    {%- set due = "filter(array(named_struct('i', greatest(" ~ k(b.explicit_lo ~ 'L', b) ~ ", 0L), 'j', least(" ~ k(b.explicit_hi ~ 'L - 1', b) ~ ', ' ~ (b.total - 1) ~ 'L))), d -> d.i <= d.j)' -%}
  {%- else -%}
    {#- every interval meeting a gap of the processed ranges, and the `lookback` intervals
        before it, as runs of interval indexes [i, j] (overlapping or adjacent runs merged) -#}
    {%- set first = k('g.s', b) -%}
    {%- set due -%}
aggregate(
        transform(
          filter(zip_with(
            concat(array({{ b.span_lo }}L), transform(processed, x -> x.e)),
            concat(transform(processed, x -> x.s), array({{ b.span_hi }}L)),
            (lo, hi) -> named_struct('s', lo, 'e', hi)), g -> g.s < g.e),
          g -> named_struct('i', {{ 'greatest(' ~ first ~ ' - ' ~ lookback ~ ', 0L)' if lookback else first }}, 'j', {{ k('g.e - 1', b) }})),
        cast(array() as {{ runs }}),
        (acc, d) -> case when d.i <= coalesce(try_element_at(acc, -1).j, -2L) + 1
          then concat(slice(acc, 1, size(acc) - 1), array(named_struct('i', try_element_at(acc, -1).i, 'j', greatest(try_element_at(acc, -1).j, d.j))))
          else concat(acc, array(d)) end)
    {%- endset -%}
  {%- endif -%}
  {%- if b.total > 0 -%}
    {%- set due = "case when rebuild then array(named_struct('i', 0L, 'j', " ~ (b.total - 1) ~ 'L)) else ' ~ due ~ ' end' -%}
  {%- endif -%}
  {%- set sql -%}
{#- the batches: each due run cut into chunks of at most batch_size intervals; then the summary -#}
select inline(concat(
  transform({{ dbt_vulcan._vulcan_plan_chunks(due, batch_size) }}, c -> named_struct(
    'batch_start', {{ batch_start }},
    'batch_end', {{ batch_end }},
    'intervals', c.j - c.i + 1,
    'dirty', not rebuild and exists(ever, x -> x.s < {{ batch_end }} and x.e > {{ batch_start }}),
    'rebuild', rebuild, 'log_rows', cast(null as bigint),
    'previous_fingerprint', cast(null as string), 'previous_details', cast(null as string))),
  if(log_rows > 0, array(named_struct(
    'batch_start', cast(null as bigint), 'batch_end', cast(null as bigint), 'intervals', cast(null as bigint),
    'dirty', cast(null as boolean), 'rebuild', cast(null as boolean), 'log_rows', log_rows,
    'previous_fingerprint', previous_fingerprint, 'previous_details', previous_details)), array())))
from (
  {#- the replay: the log's processed and removed ranges, applied in the order they were
      recorded to sorted, disjoint, merged ranges: what is processed now; `ever`: what was ever
      processed (a batch meeting it is dirty) -#}
  select log_rows, previous_fingerprint, previous_details, replay.now as processed, replay.ever as ever,
    {{ 'true' if p.get('rebuild') else 'false' }} or coalesce(last_full > last_reset, last_full is not null) as rebuild
  from (
    select *,
      aggregate(log, named_struct('now', cast(array() as {{ ranges }}), 'ever', cast(array() as {{ ranges }})),
        (acc, r) -> named_struct(
          'now', case when r.kind = 1 then {{ union('acc.now', 'r') }} else {{ minus('acc.now', 'r') }} end,
          'ever', case when r.kind = 1 then {{ union('acc.ever', 'r') }} else acc.ever end)) as replay
    from (
      {#- one row: the relation's ranges, clipped to the expected span and sorted by when they
          were recorded, and the summary -#}
      select
        count(*) as log_rows,
        max_by(fingerprint, case when kind = 1 then ord end) as previous_fingerprint,
        max_by(details, case when kind = 1 then ord end) as previous_details,
        max(case when kind <> 1 and {{ flag('restate') }} and {{ flag('full') }} then ord end) as last_full,
        max(case when {{ flag('reset') }} then ord end) as last_reset,
        array_sort(collect_list(case when kind < 3 and s < {{ b.span_hi }}L and e > {{ b.span_lo }}L and s < e
          then named_struct('ord', ord, 'kind', kind, 's', greatest(s, {{ b.span_lo }}L), 'e', least(e, {{ b.span_hi }}L)) end)) as log
      from (
        {#- one partition from the scan on: the plan is one stage -#}
        select /*+ COALESCE(1) */
          {{ us('interval_start') }} as s,
          {{ us('interval_end') }} as e,
          case row_type when 'processed' then 1 when 'removed' then 2 else 3 end as kind,
          named_struct('at', {{ us('recorded_at') }}, 'seq', coalesce(seq, 0)) as ord,
          fingerprint,
          details
        from {{ state_relation }}
        where relation = {{ dbt_vulcan.vulcan_sql_string(relation_key) }}
      )
    )
  )
)
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- SQL: sorted, disjoint, merged ranges `ranges` with range `r` added (merged with the ranges
    it overlaps or touches) -#}
{% macro _vulcan_plan_union(ranges, r) %}
  {%- set meets = 'x.e >= ' ~ r ~ '.s and x.s <= ' ~ r ~ '.e' -%}
  {{ return('array_sort(concat(filter(' ~ ranges ~ ', x -> not (' ~ meets ~ ')), array(named_struct('
    ~ "'s', aggregate(" ~ ranges ~ ', ' ~ r ~ '.s, (m, x) -> case when ' ~ meets ~ ' then least(m, x.s) else m end), '
    ~ "'e', aggregate(" ~ ranges ~ ', ' ~ r ~ '.e, (m, x) -> case when ' ~ meets ~ ' then greatest(m, x.e) else m end)))))') }}
{% endmacro %}

{#- SQL: sorted, disjoint ranges `ranges` with range `r` taken out -#}
{% macro _vulcan_plan_minus(ranges, r) %}
  {{ return('filter(flatten(transform(' ~ ranges ~ ', x -> array('
    ~ "named_struct('s', x.s, 'e', least(x.e, " ~ r ~ ".s)), named_struct('s', greatest(x.s, " ~ r ~ ".e), 'e', x.e)))), x -> x.s < x.e)") }}
{% endmacro %}

{#- SQL: the runs of interval indexes `due` cut into chunks of at most `batch_size` -#}
{% macro _vulcan_plan_chunks(due, batch_size) %}
  {%- if batch_size is none -%}{{ return(due) }}{%- endif -%}
  {{ return('flatten(transform(' ~ due ~ ', d -> transform(sequence(0L, (d.j - d.i) div ' ~ batch_size ~ '), n -> named_struct('
    ~ "'i', d.i + n * " ~ batch_size ~ ", 'j', least(d.j, d.i + n * " ~ batch_size ~ ' + ' ~ (batch_size - 1) ~ ')))))') }}
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

{#- SQL: the index, relative to the first expected interval, of the interval holding epoch
    microseconds `x` (an SQL expression of sums and differences, not parenthesized: the cold
    parse of a fresh Spark process pays for every nesting level) -#}
{% macro _vulcan_plan_k(x, b) %}
  {%- if b.delta is defined -%}
    {%- set t = x if b.origin == 0 else x ~ ' - ' ~ b.origin ~ 'L' -%}
    {{ return('((' ~ t ~ ' - pmod(' ~ t ~ ', ' ~ b.delta ~ 'L)) div ' ~ b.delta ~ 'L - ' ~ b.first ~ 'L)') }}
  {%- endif -%}
  {%- set d = 'date_from_unix_date(cast((' ~ x ~ ' - pmod(' ~ x ~ ', 86400000000L)) div 86400000000L as int))' -%}
  {{ return('((year(' ~ d ~ ') * 12 + month(' ~ d ~ ') - 1) div ' ~ b.months ~ ' - ' ~ b.first ~ 'L)') }}
{% endmacro %}

{#- SQL: epoch microseconds where relative interval `j` (an SQL expression) starts -#}
{% macro _vulcan_plan_start_sql(j, b) %}
  {%- set k = '(' ~ b.first ~ ' + ' ~ j ~ ')' -%}
  {%- if b.delta is defined -%}
    {{ return(k ~ ' * ' ~ b.delta ~ 'L' ~ (' + ' ~ b.origin ~ 'L' if b.origin else '')) }}
  {%- endif -%}
  {%- set m = k ~ ' * ' ~ b.months -%}
  {{ return('unix_date(make_date(cast(' ~ m ~ ' div 12 as int), cast(pmod(' ~ m ~ ', 12) + 1 as int), 1)) * 86400000000L') }}
{% endmacro %}

{#- SQL: epoch microseconds where relative interval `j` (an SQL expression) ends: where the
    next one starts, or the limit for a partial last interval -#}
{% macro _vulcan_plan_end_sql(j, b) %}
  {%- set boundary = dbt_vulcan._vulcan_plan_start_sql(j ~ ' + 1', b) -%}
  {%- if b.partial -%}
    {{ return('case when ' ~ j ~ ' < ' ~ b.complete ~ ' then ' ~ boundary ~ ' else ' ~ b.limit ~ 'L end') }}
  {%- endif -%}
  {{ return(boundary) }}
{% endmacro %}

{#- SQL: epoch microseconds of a 'YYYY-MM-DD HH:MM:SS[.ffffff]' string column (how the log
    writes times), read as UTC whatever the session time zone; null when it is not such a time -#}
{% macro _vulcan_plan_us(column) %}
  {{ return("unix_micros(try_cast(concat(" ~ column ~ ", 'Z') as timestamp))") }}
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
