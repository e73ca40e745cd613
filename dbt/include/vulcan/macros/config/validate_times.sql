{#- The validator's reading of the time keys (validate.sql calls them): `time_column` and
    `time_format`, the schedule (`cron`, `interval_unit`, `week_start`, `allow_partials`) and
    every time a config or a run's vars give (`start`, `end`, `vulcan_execution_time` ...). -#}

{#- {column, format, error}: `time_column` is a name, [name, format] or {column:, format:}. -#}
{% macro _vulcan_cfg_time_column(value) %}
  {%- if value is string and value.strip() -%}
    {{ return({'column': value.strip(), 'format': none, 'error': none}) }}
  {%- elif dbt_vulcan._vulcan_cfg_is_list(value, false) and value | length == 2 and value | reject('string') | list | length == 0 -%}
    {{ return({'column': value[0], 'format': value[1], 'error': none}) }}
  {%- elif value is mapping and value.get('column') is string -%}
    {%- set fmt = value.get('format') -%}
    {{ return({'column': value.get('column'), 'format': fmt if fmt is string else none, 'error': none}) }}
  {%- endif -%}
  {{ return({'column': none, 'format': none, 'error': 'time_column: ' ~ dbt_vulcan.vulcan_repr(value) ~ ' is not a column name, [column, format] or {column: ..., format: ...}'}) }}
{% endmacro %}

{#- The problem of a time column's format (timemacros.py's to_python_format), or none: a
    format with '%' is strftime's; else a Spark pattern of yyyy yy MM dd HH mm ss SSSSSS,
    other characters and 'quoted text'. -#}
{% macro _vulcan_cfg_format_error(fmt) %}
  {%- if fmt is none or not fmt.strip() or '%' in fmt -%}{{ return(none) }}{%- endif -%}
  {%- set patterns = ['yyyy', 'yy', 'MM', 'dd', 'HH', 'mm', 'ss', 'SSSSSS'] -%}
  {%- set ns = namespace(next=0, bad=false) -%}
  {%- for pos in range(fmt | length) if not ns.bad and pos >= ns.next -%}
    {%- set ch = fmt[pos] -%}
    {%- if ch == "'" -%}
      {%- set close = fmt.find("'", pos + 1) -%}
      {%- set ns.bad = close < 0 -%}
      {%- set ns.next = close + 1 -%}
    {%- elif ch.isalpha() -%}
      {%- set run = modules.re.match('(.)\\1*', fmt[pos:], modules.re.S).group(0) -%}
      {%- set ns.bad = run not in patterns -%}
      {%- set ns.next = pos + run | length -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if ns.bad -%}
    {{ return('format: ' ~ dbt_vulcan.vulcan_repr(fmt) ~ " is not a supported time format; use Python strftime directives (e.g. '%Y-%m-%d') or Spark patterns built from: " ~ patterns | join(', ')) }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- {cron, interval_unit, week_start, error} as tests/oracle/schedule.py's Schedule.build: no cron, the
    unit's default cron (day if no unit either); else the unit is the cron's, or an explicit
    one no coarser than the cron's (unless allow_partials); a weekly schedule starts on the
    day all of its cron's first ticks share (monday if they do not). Weekdays: 0 = monday. -#}
{% macro _vulcan_cfg_schedule(cron, interval_unit, week_start, allow_partials) %}
  {%- set units = ['five_minute', 'quarter_hour', 'half_hour', 'hour', 'day', 'week', 'month', 'quarter', 'year'] -%}
  {%- if cron is none -%}
    {%- set unit = dbt_vulcan._vulcan_cfg_interval_unit(interval_unit or 'day', units) -%}
    {%- if unit.error -%}{{ return({'error': unit.error}) }}{%- endif -%}
    {%- set day = dbt_vulcan._vulcan_cfg_week_start(week_start) if week_start is not none else {'day': 0} -%}
    {%- if day.error -%}{{ return({'error': day.error}) }}{%- endif -%}
    {%- set crons = {
      'five_minute': '*/5 * * * *', 'quarter_hour': '*/15 * * * *', 'half_hour': '*/30 * * * *',
      'hour': '0 * * * *', 'day': '0 0 * * *', 'week': '0 0 * * ' ~ (day.day + 1) % 7,
      'month': '0 0 1 * *', 'quarter': '0 0 1 */3 *', 'year': '0 0 1 1 *',
    } -%}
    {{ return({'error': none, 'cron': crons[unit.unit], 'interval_unit': unit.unit, 'week_start': day.day}) }}
  {%- endif -%}
  {%- set ticks = dbt_vulcan.vulcan_cron_schedule(cron) -%}
  {%- if ticks.error -%}{{ return({'error': ticks.error}) }}{%- endif -%}
  {%- set normalized = ticks.cron -%}
  {%- set unit = {'unit': ticks.unit} -%}
  {%- if interval_unit is not none -%}
    {%- set unit = dbt_vulcan._vulcan_cfg_interval_unit(interval_unit, units) -%}
    {%- if unit.error -%}{{ return({'error': unit.error}) }}{%- endif -%}
    {%- set finest = units.index(ticks.unit) -%}
    {%- if not allow_partials and units.index(unit.unit) > finest -%}
      {{ return({'error': 'interval_unit: ' ~ dbt_vulcan.vulcan_repr(unit.unit) ~ ' is coarser than the cron ' ~ dbt_vulcan.vulcan_repr(normalized) ~ ' (which runs every ' ~ ticks.unit ~ '); allowed: ' ~ units[:finest + 1] | join(', ') ~ ', or set allow_partials true'}) }}
    {%- endif -%}
  {%- endif -%}
  {%- if week_start is not none -%}
    {%- set day = dbt_vulcan._vulcan_cfg_week_start(week_start) -%}
    {%- if day.error -%}{{ return({'error': day.error}) }}{%- endif -%}
  {%- elif unit.unit == 'week' and ticks.weekdays | length == 1 -%}
    {%- set day = {'day': (ticks.weekdays[0] + 6) % 7} -%}
  {%- else -%}
    {%- set day = {'day': 0} -%}
  {%- endif -%}
  {{ return({'error': none, 'cron': normalized, 'interval_unit': unit.unit, 'week_start': day.day}) }}
{% endmacro %}

{% macro _vulcan_cfg_interval_unit(value, units) %}
  {%- if value is string and value.strip().lower() in units -%}
    {{ return({'unit': value.strip().lower(), 'error': none}) }}
  {%- endif -%}
  {{ return({'unit': none, 'error': 'interval_unit: ' ~ dbt_vulcan.vulcan_repr(value) ~ ' is not one of: ' ~ units | join(', ')}) }}
{% endmacro %}

{#- {day, error}: monday..sunday, mon..sun (any case) or 0..6, 0 being monday. -#}
{% macro _vulcan_cfg_week_start(value) %}
  {%- set days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] -%}
  {%- if value is integer and 0 <= value <= 6 -%}
    {{ return({'day': value, 'error': none}) }}
  {%- elif value is string -%}
    {%- set name = value.strip().lower() -%}
    {%- if name.isdigit() and 0 <= name | int <= 6 -%}
      {{ return({'day': name | int, 'error': none}) }}
    {%- endif -%}
    {%- for day in days if name in (day, day[:3]) -%}
      {{ return({'day': days.index(day), 'error': none}) }}
    {%- endfor -%}
  {%- endif -%}
  {{ return({'day': none, 'error': 'week_start: ' ~ dbt_vulcan.vulcan_repr(value) ~ ' is not one of: ' ~ days | join(', ') ~ ' (or 0..6 with 0=monday)'}) }}
{% endmacro %}

{#- {time, error} as timeutil.py's parse_time (or parse_end when `is_end`: a date-only end
    includes its whole day): a date 'YYYY-MM-DD', a timestamp 'YYYY-MM-DD HH:MM[:SS[.f]]'
    (or 'T'; optional 'Z' or +-HH:MM offset), a date or datetime, or integer epoch seconds
    (milliseconds above 10**11); times lie between 1900-01-01 and 3000-01-01 (UTC). -#}
{% macro vulcan_cfg_parse_time(value, key, is_end=false) %}
  {%- set dt = modules.datetime -%}
  {%- set low = dt.datetime(1900, 1, 1) -%}
  {%- set high = dt.datetime(3000, 1, 1) -%}
  {%- set shown = dbt_vulcan.vulcan_repr(value) -%}
  {%- set bad = key ~ ': ' ~ shown ~ " is not a valid time; expected a date 'YYYY-MM-DD', a timestamp 'YYYY-MM-DD HH:MM[:SS[.ffffff]]' (or with 'T'; optional 'Z' or '+HH:MM' offset), a date/datetime object, or integer epoch seconds (milliseconds if > 10**11)" -%}
  {%- set out_of_range = key ~ ': ' ~ shown ~ ' is out of range; times must lie between 1900-01-01 and 3000-01-01' -%}
  {%- set date_only = false -%}
  {%- if value is string -%}
    {%- set m = modules.re.fullmatch('(?P<y>\\d{4})-(?P<mo>\\d{2})-(?P<d>\\d{2})(?:[ T](?P<h>\\d{2}):(?P<mi>\\d{2})(?::(?P<s>\\d{2})(?:\\.(?P<f>\\d{1,6}))?)?(?P<tz>Z|[+-]\\d{2}:?\\d{2})?)?', value.strip()) -%}
    {%- if m is none -%}{{ return({'time': none, 'error': bad}) }}{%- endif -%}
    {%- set g = m.groupdict() -%}
    {%- set y, mo, d = g['y'] | int, g['mo'] | int, g['d'] | int -%}
    {%- set h, mi, sec = (g['h'] or '0') | int, (g['mi'] or '0') | int, (g['s'] or '0') | int -%}
    {%- if y < 1 or not 1 <= mo <= 12 or not 1 <= d <= (31 if mo == 12 else (dt.date(y, mo + 1, 1) - dt.date(y, mo, 1)).days) or h > 23 or mi > 59 or sec > 59 -%}
      {{ return({'time': none, 'error': bad}) }}
    {%- endif -%}
    {%- set parsed = dt.datetime(y, mo, d, h, mi, sec, (g['f'] or '0').ljust(6, '0') | int) -%}
    {%- set tz = g['tz'] -%}
    {%- if tz and tz != 'Z' -%}
      {%- set digits = tz[1:].replace(':', '') -%}
      {%- if digits[:2] | int > 23 or digits[2:] | int > 59 -%}{{ return({'time': none, 'error': bad}) }}{%- endif -%}
      {%- set offset = dt.timedelta(hours=digits[:2] | int, minutes=digits[2:] | int) -%}
      {#- the UTC time must still be a datetime (Python's overflow) -#}
      {%- if (tz[0] == '+' and parsed - dt.datetime.min < offset) or (tz[0] == '-' and dt.datetime.max - parsed < offset) -%}
        {{ return({'time': none, 'error': bad}) }}
      {%- endif -%}
      {%- set parsed = parsed - offset if tz[0] == '+' else parsed + offset -%}
    {%- endif -%}
    {%- set date_only = modules.re.fullmatch('\\d{4}-\\d{2}-\\d{2}', value.strip()) is not none -%}
  {%- elif value is boolean -%}
    {{ return({'time': none, 'error': bad}) }}
  {%- elif value is integer -%}
    {%- set micros = value * (1000 if value | abs > 10 ** 11 else 1000000) -%}
    {%- if micros < -2208988800000000 or micros > 32503680000000000 -%}
      {{ return({'time': none, 'error': out_of_range}) }}
    {%- endif -%}
    {%- set parsed = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=micros) -%}
  {%- elif value is not mapping and value.year is defined and value.toordinal is defined -%}
    {#- a date or a datetime (naive: UTC; aware: converted to UTC) -#}
    {%- if value.year < 1800 or value.year > 3100 -%}{{ return({'time': none, 'error': out_of_range}) }}{%- endif -%}
    {%- if value.hour is not defined -%}
      {%- set parsed = dt.datetime(value.year, value.month, value.day) -%}
      {%- set date_only = true -%}
    {%- elif value.tzinfo is not none and value.utcoffset() is not none -%}
      {%- set parsed = value.replace(tzinfo=none) - value.utcoffset() -%}
    {%- else -%}
      {%- set parsed = value.replace(tzinfo=none) -%}
    {%- endif -%}
  {%- else -%}
    {{ return({'time': none, 'error': bad}) }}
  {%- endif -%}
  {%- if not low <= parsed <= high -%}{{ return({'time': none, 'error': out_of_range}) }}{%- endif -%}
  {%- if is_end and date_only -%}
    {%- if parsed >= high -%}
      {{ return({'time': none, 'error': out_of_range ~ ' (a date-only end includes its whole day: the last end date is 2999-12-31)'}) }}
    {%- endif -%}
    {{ return({'time': parsed + dt.timedelta(days=1), 'error': none}) }}
  {%- endif -%}
  {{ return({'time': parsed, 'error': none}) }}
{% endmacro %}
