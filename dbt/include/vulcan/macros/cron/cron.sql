{#- Cron for vulcan, in Jinja: one documented subset for the adapter and the plain package.
    dbt's Jinja cannot import croniter; croniter (through tests/oracle/schedule.py) is the
    test oracle of these macros (tests/unit/macros/planning/test_cron_macros.py).

    The subset (anything else is an error):
    - an alias: @hourly @daily @midnight @weekly @monthly @yearly @annually (any case);
    - or five fields separated by whitespace: minute (0-59) hour (0-23) day-of-month (1-31)
      month (1-12 or JAN..DEC) day-of-week (0-7 or SUN..SAT; 0 and 7 are Sunday). Names are
      three letters, any case. A field is `*` or a list `a,b,c` of items, an item being
      `n`, a range `a-b` (a < b; a day-of-week range may end at 7), a step `*/n` or `a-b/n`
      (n >= 1), or `a/n`, meaning `a-max/n` (for day-of-week max is 6: `1/2` is 1,3,5).
    - day-of-month and day-of-week (as croniter, the oracle): a field counts as unrestricted when
      it is `*`, or when it holds every value and the other field contains a `*` (as in `*/2`).
      When both are restricted a day matches if EITHER matches; otherwise it must match both
      (so `0 0 */1 * MON` and `0 0 1 * */1` fire every day, `0 0 1-31 * */2` every other weekday).
    Not supported: L W # ? H R, seconds or years (6 or 7 fields), `*` inside a list, ranges
    running backwards (`FRI-MON`) or with equal ends (`5-5`; croniter reads it as the whole
    field), `7/n` in day-of-week, out-of-range values, empty items, full day names.
    A cron that can never fire (`0 0 30 2 *`) is an error too.

    Times are naive UTC 'YYYY-MM-DD HH:MM:SS' strings (or datetimes). Loops walk months and
    days, never minutes, so every call stays a few thousand Jinja steps at most. -#}

{#- The cron as a dict {normalized, minutes, hours, days, months, weekdays, dom_restricted,
    dow_restricted} (sorted int lists; Sunday is 0), or a compiler error. -#}
{% macro vulcan_cron_parse(expr) %}
  {%- set read = dbt_vulcan._vulcan_cron_read(expr) -%}
  {%- if read.reason -%}
    {{ exceptions.raise_compiler_error(dbt_vulcan._vulcan_cron_message(read.value, read.reason)) }}
  {%- endif -%}
  {{ return(read.cron) }}
{% endmacro %}

{#- The latest fire time <= execution_time (a tick exactly at it counts), as
    'YYYY-MM-DD HH:MM:SS'. `cron` is an expression or the dict vulcan_cron_parse returns. -#}
{% macro vulcan_cron_last_tick(cron, execution_time) %}
  {%- set c = cron if cron is mapping else dbt_vulcan.vulcan_cron_parse(cron) -%}
  {%- set now = dbt_vulcan._vulcan_cron_time(execution_time) -%}
  {%- set both = c.dom_restricted and c.dow_restricted -%}
  {%- set ns = namespace(found=none) -%}
  {#- the execution day itself: the largest hour:minute not after it -#}
  {%- set first = modules.datetime.date(now.year, now.month, 1).isoweekday() % 7 -%}
  {%- set dom_ok = now.day in c.days -%}
  {%- set dow_ok = (first + now.day - 1) % 7 in c.weekdays -%}
  {%- if now.month in c.months and ((dom_ok or dow_ok) if both else (dom_ok and dow_ok)) -%}
    {%- for h in c.hours | reverse if h <= now.hour -%}
      {%- for m in c.minutes | reverse if ns.found is none and (h < now.hour or m <= now.minute) -%}
        {%- set ns.found = [now.year, now.month, now.day, h, m] -%}
      {%- endfor -%}
      {%- if ns.found is not none -%}{% break %}{%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {#- else the last matching day before it, at its last hour:minute (a macro of its own: a
      daily or hourly schedule's run never compiles it) -#}
  {%- if ns.found is none -%}
    {%- set ns.found = dbt_vulcan._vulcan_cron_last_day_before(c, now, both) -%}
  {%- endif -%}
  {%- if ns.found is none -%}
    {{ exceptions.raise_compiler_error(dbt_vulcan._vulcan_cron_message(c.normalized, 'has no tick in the 12 years before ' ~ now)) }}
  {%- endif -%}
  {{ return('%04d-%02d-%02d %02d:%02d:00' | format(*ns.found)) }}
{% endmacro %}

{#- The last day before `now`'s that `c` fires on, at its last hour:minute: [y, mo, d, h, mi],
    or none. Every cron that fires does so at least every 8 years (29 February), so 12 years
    of months is enough. -#}
{% macro _vulcan_cron_last_day_before(c, now, both) %}
  {%- set start = now.year * 12 + now.month - 1 -%}
  {%- for index in range(start, start - 145, -1) -%}
    {%- set y = index // 12 -%}
    {%- set mo = index % 12 + 1 -%}
    {%- if mo in c.months -%}
      {%- set last = now.day - 1 if index == start else dbt_vulcan._vulcan_cron_month_days(y, mo) -%}
      {%- set first = modules.datetime.date(y, mo, 1).isoweekday() % 7 -%}
      {%- for d in range(last, 0, -1) -%}
        {%- set dom_ok = d in c.days -%}
        {%- set dow_ok = (first + d - 1) % 7 in c.weekdays -%}
        {%- if ((dom_ok or dow_ok) if both else (dom_ok and dow_ok)) -%}
          {{ return([y, mo, d, c.hours[-1], c.minutes[-1]]) }}
        {%- endif -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(none) }}
{% endmacro %}

{#- What the validator (config/validate.sql) needs of a cron: {error (the message, or none),
    cron (normalized), unit (the interval unit it implies: the largest unit whose nominal length
    fits the smallest gap between its first 60 ticks after 2020-01-01 00:00, as the oracle's
    Schedule.build(cron, None) derives it; firing more often than every 5 minutes is an error),
    weekdays (the days of the week of its first ticks)}. -#}
{% macro vulcan_cron_schedule(expr) %}
  {%- set read = dbt_vulcan._vulcan_cron_read(expr) -%}
  {%- if read.reason -%}{{ return({'error': dbt_vulcan._vulcan_cron_message(read.value, read.reason)}) }}{%- endif -%}
  {%- set ticks = dbt_vulcan._vulcan_cron_unit(read.cron) -%}
  {%- if ticks.reason -%}{{ return({'error': dbt_vulcan._vulcan_cron_message(read.cron.normalized, ticks.reason)}) }}{%- endif -%}
  {{ return({'error': none, 'cron': read.cron.normalized, 'unit': ticks.unit, 'weekdays': ticks.weekdays}) }}
{% endmacro %}

{# ------------------------------------------------------------------------------ helpers #}

{% macro _vulcan_cron_aliases() %}
  {{ return({
    '@hourly': '0 * * * *',
    '@daily': '0 0 * * *',
    '@midnight': '0 0 * * *',
    '@weekly': '0 0 * * 0',
    '@monthly': '0 0 1 * *',
    '@yearly': '0 0 1 1 *',
    '@annually': '0 0 1 1 *',
  }) }}
{% endmacro %}

{#- The message of tests/oracle/schedule.py's _bad_cron: "cron: '<expr>' <reason>; expected ..." -#}
{% macro _vulcan_cron_message(value, reason) %}
  {{ return('cron: %r %s; expected a 5-field cron expression (minute hour day-of-month month day-of-week) or one of: %s'
    | format(value, reason, dbt_vulcan._vulcan_cron_aliases().keys() | join(', '))) }}
{% endmacro %}

{#- {value, reason, details, cron}: reason is none when the cron is usable (cron is then the
    parsed dict); details lists each syntax problem (the reason names them all). -#}
{% macro _vulcan_cron_read(expr) %}
  {%- if expr is not string -%}
    {{ return({'value': expr, 'reason': 'is not a string', 'details': [], 'cron': none}) }}
  {%- endif -%}
  {%- set text = expr.split() | join(' ') -%}
  {%- set text = dbt_vulcan._vulcan_cron_aliases().get(text.lower(), text) -%}
  {%- set parts = text.split(' ') if text else [] -%}
  {%- set detail = none -%}
  {%- if not parts -%}
    {%- set detail = 'it is empty' -%}
  {%- elif parts | length == 1 and text.startswith('@') -%}
    {%- set detail = "'" ~ text ~ "' is not one of the aliases" -%}
  {%- elif parts | length != 5 -%}
    {%- set detail = 'it has ' ~ (parts | length) ~ ' fields, not 5' -%}
  {%- endif -%}
  {%- if detail -%}
    {{ return({'value': expr, 'reason': 'is not a valid cron expression (' ~ detail ~ ')', 'details': [detail], 'cron': none}) }}
  {%- endif -%}
  {%- set fields = [] -%}
  {%- set details = [] -%}
  {%- for index in range(5) -%}
    {%- set field = dbt_vulcan._vulcan_cron_field(index, parts[index]) -%}
    {%- do fields.append(field['values']) -%}
    {%- do details.extend(field.details) -%}
  {%- endfor -%}
  {%- if details -%}
    {{ return({'value': expr, 'reason': 'is not a valid cron expression (' ~ details | join(', ') ~ ')', 'details': details, 'cron': none}) }}
  {%- endif -%}
  {%- set days = fields[2] -%}
  {%- set weekdays = fields[4] -%}
  {%- set cron = {
    'normalized': text,
    'minutes': fields[0],
    'hours': fields[1],
    'days': days,
    'months': fields[3],
    'weekdays': weekdays,
    'dom_restricted': not (parts[2] == '*' or (days | length == 31 and '*' in parts[4])),
    'dow_restricted': not (parts[4] == '*' or (weekdays | length == 7 and '*' in parts[2])),
  } -%}
  {#- Only "day-of-month AND an unrestricted day-of-week" can be impossible (30 February). -#}
  {%- if cron.dom_restricted and not cron.dow_restricted -%}
    {%- set ns = namespace(longest=0) -%}
    {%- for mo in cron.months -%}
      {%- set ns.longest = [ns.longest, 29 if mo == 2 else dbt_vulcan._vulcan_cron_month_days(2001, mo)] | max -%}
    {%- endfor -%}
    {%- if days[0] > ns.longest -%}
      {{ return({'value': text, 'reason': 'never fires', 'details': [], 'cron': none}) }}
    {%- endif -%}
  {%- endif -%}
  {{ return({'value': expr, 'reason': none, 'details': [], 'cron': cron}) }}
{% endmacro %}

{#- One field: {values: sorted ints (day-of-week 7 folded into 0), details: [problems]}. -#}
{% macro _vulcan_cron_field(index, text) %}
  {%- set name = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'][index] -%}
  {%- set low = [0, 0, 1, 1, 0][index] -%}
  {%- set high = [59, 23, 31, 12, 6][index] -%}
  {%- set values = [] -%}
  {%- set details = [] -%}
  {%- if text == '*' -%}
    {{ return({'values': range(low, high + 1) | list, 'details': []}) }}
  {%- endif -%}
  {%- for item in text.split(',') -%}
    {%- set ns = namespace(a=none, b=none, step=1, problem=none) -%}
    {%- set slash = item.split('/') -%}
    {%- set base = slash[0] -%}
    {%- set lowered = item.lower() -%}
    {%- if item == '' -%}
      {%- set ns.problem = "empty item in '" ~ text ~ "'" -%}
    {%- elif item == '*' -%}
      {%- set ns.problem = "'*' cannot be part of a list" -%}
    {%- elif modules.re.search('[#?()]', item) or modules.re.fullmatch('[lwhr0-9/,-]*[lwhr][lwhr0-9/,-]*', lowered) -%}
      {%- set ns.problem = "'" ~ item ~ "' is not supported: no L, W, #, ?, H or R" -%}
    {%- elif slash | length > 2 or base.split('-') | length > 2 or '' in base.split('-') -%}
      {%- set ns.problem = "'" ~ item ~ "' is not a number, name, range or step" -%}
    {%- else -%}
      {%- if slash | length == 2 -%}
        {%- if modules.re.fullmatch('[0-9]+', slash[1]) and slash[1] | int >= 1 -%}
          {%- set ns.step = slash[1] | int -%}
        {%- else -%}
          {%- set ns.problem = "step '" ~ slash[1] ~ "' in '" ~ item ~ "' is not a whole number of at least 1" -%}
        {%- endif -%}
      {%- endif -%}
      {%- if base == '*' -%}
        {%- set ns.a, ns.b = low, high -%}
      {%- else -%}
        {%- set ends = [] -%}
        {%- for token in base.split('-') -%}
          {%- set value = dbt_vulcan._vulcan_cron_value(index, token) -%}
          {%- if value is string -%}
            {%- set ns.problem = ns.problem or value -%}
          {%- else -%}
            {%- do ends.append(value) -%}
          {%- endif -%}
        {%- endfor -%}
        {%- if ns.problem is none -%}
          {%- set ns.a = ends[0] -%}
          {%- if ends | length == 2 -%}
            {%- set ns.b = ends[1] -%}
            {%- if ns.a > ns.b -%}
              {%- set ns.problem = "range '" ~ base ~ "' runs backwards: wrap-around ranges are not supported" -%}
            {%- elif ns.a == ns.b -%}
              {%- set ns.problem = "range '" ~ base ~ "' starts and ends at the same value: write it as one value" -%}
            {%- endif -%}
          {%- elif slash | length == 2 -%}
            {%- set ns.b = high -%}
            {%- if index == 4 and ns.a == 7 -%}
              {%- set ns.problem = "'" ~ item ~ "' starts a step at 7: write 0 for Sunday" -%}
            {%- endif -%}
          {%- else -%}
            {%- set ns.b = ns.a -%}
          {%- endif -%}
        {%- endif -%}
      {%- endif -%}
    {%- endif -%}
    {%- if ns.problem is none -%}
      {%- for v in range(ns.a, ns.b + 1, ns.step) -%}
        {%- do values.append(v % 7 if index == 4 else v) -%}
      {%- endfor -%}
    {%- else -%}
      {%- do details.append(name ~ ': ' ~ ns.problem) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'values': values | unique | sort, 'details': details}) }}
{% endmacro %}

{#- A number or a name in field `index`: the int, or a string saying what is wrong. -#}
{% macro _vulcan_cron_value(index, token) %}
  {%- set low = [0, 0, 1, 1, 0][index] -%}
  {%- set high = [59, 23, 31, 12, 7][index] -%}
  {%- if modules.re.fullmatch('[0-9]+', token) -%}
    {%- set value = token | int -%}
    {{ return(value if low <= value <= high else value ~ ' is out of range ' ~ low ~ '-' ~ high) }}
  {%- endif -%}
  {%- set names = {
    3: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
    4: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'],
  }.get(index) -%}
  {%- if names and token.lower() in names -%}
    {{ return(names.index(token.lower()) + low) }}
  {%- elif names -%}
    {{ return("'" ~ token ~ "' is not a number or one of " ~ (names[0] ~ '..' ~ names[-1]) | upper) }}
  {%- endif -%}
  {{ return("'" ~ token ~ "' is not a number") }}
{% endmacro %}

{% macro _vulcan_cron_month_days(year, month) %}
  {%- if month == 2 -%}
    {{ return(29 if (year % 4 == 0 and year % 100 != 0) or year % 400 == 0 else 28) }}
  {%- endif -%}
  {{ return(30 if month in [4, 6, 9, 11] else 31) }}
{% endmacro %}

{#- A datetime from 'YYYY-MM-DD[ HH:MM[:SS[.ffffff]]]' (or 'T' between) or a datetime. -#}
{% macro _vulcan_cron_time(value) %}
  {%- if value is not string -%}{{ return(value) }}{%- endif -%}
  {%- set text = value.strip().replace('T', ' ') -%}
  {%- set fmt = {10: '%Y-%m-%d', 16: '%Y-%m-%d %H:%M', 19: '%Y-%m-%d %H:%M:%S'}.get(text | length, '%Y-%m-%d %H:%M:%S.%f') -%}
  {{ return(modules.datetime.datetime.strptime(text, fmt)) }}
{% endmacro %}

{#- {unit, reason, weekdays}: the unit from the smallest gap between the first 60 ticks after
    2020-01-01 00:00 (tests/oracle/schedule.py's _CRON_REFERENCE and _CRON_SAMPLES), walking months
    and days forward; ticks are counted in minutes. `weekdays`: the days of the week of those
    ticks (sorted, Sunday is 0), from which a weekly schedule takes its week start. -#}
{% macro _vulcan_cron_unit(c) %}
  {%- set both = c.dom_restricted and c.dow_restricted -%}
  {#- only day-of-month restricts: its days are the candidates (29 February: one a year) -#}
  {%- set only_dom = c.dom_restricted and not c.dow_restricted -%}
  {%- set reference = modules.datetime.date(2020, 1, 1).toordinal() * 1440 -%}
  {%- set ns = namespace(count=0, previous=none, gap=none, weekdays=[]) -%}
  {%- for y in range(2020, 2330) -%}
    {%- for mo in c.months -%}
      {%- set day_one = modules.datetime.date(y, mo, 1) -%}
      {%- set first = day_one.isoweekday() % 7 -%}
      {%- set base = day_one.toordinal() - 1 -%}
      {%- set size = dbt_vulcan._vulcan_cron_month_days(y, mo) -%}
      {%- for d in (c.days if only_dom else range(1, size + 1)) if d <= size -%}
        {%- set dom_ok = d in c.days -%}
        {%- set dow_ok = (first + d - 1) % 7 in c.weekdays -%}
        {%- if ((dom_ok or dow_ok) if both else (dom_ok and dow_ok)) -%}
          {%- for h in c.hours -%}
            {%- for m in c.minutes -%}
              {%- set tick = (base + d) * 1440 + h * 60 + m -%}
              {%- if tick > reference -%}
                {%- if ns.previous is not none and (ns.gap is none or tick - ns.previous < ns.gap) -%}
                  {%- set ns.gap = tick - ns.previous -%}
                {%- endif -%}
                {%- set ns.previous = tick -%}
                {%- set ns.count = ns.count + 1 -%}
                {%- do ns.weekdays.append((first + d - 1) % 7) -%}
              {%- endif -%}
              {%- if ns.count >= 60 -%}{% break %}{%- endif -%}
            {%- endfor -%}
            {%- if ns.count >= 60 -%}{% break %}{%- endif -%}
          {%- endfor -%}
        {%- endif -%}
        {%- if ns.count >= 60 -%}{% break %}{%- endif -%}
      {%- endfor -%}
      {%- if ns.count >= 60 -%}{% break %}{%- endif -%}
    {%- endfor -%}
    {%- if ns.count >= 60 -%}{% break %}{%- endif -%}
  {%- endfor -%}
  {%- set units = [
    ('year', 365 * 1440), ('quarter', 89 * 1440), ('month', 28 * 1440), ('week', 7 * 1440),
    ('day', 1440), ('hour', 60), ('half_hour', 30), ('quarter_hour', 15), ('five_minute', 5),
  ] -%}
  {%- for unit, minutes in units if ns.gap >= minutes -%}
    {{ return({'unit': unit, 'reason': none, 'weekdays': ns.weekdays | unique | sort}) }}
  {%- endfor -%}
  {{ return({'unit': none, 'reason': 'fires more often than every 5 minutes (the finest interval unit)', 'weekdays': ns.weekdays | unique | sort}) }}
{% endmacro %}
