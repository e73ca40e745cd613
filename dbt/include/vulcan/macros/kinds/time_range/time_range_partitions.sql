{#- The partitions of a parquet table (rows of SHOW PARTITIONS: 'd=2025-01-01/region=eu')
    whose time-column value lies in [start, end), as `partition (...)` specs for ALTER TABLE
    ... DROP, every value escaped. The value is read as the model's time type: a string in
    its time format, epoch seconds or milliseconds, or a date/timestamp. A TIMESTAMP value is
    written in the session's time zone (`session_zone`, Spark's spark.sql.session.timeZone: a
    region or an offset) and read back in it (of a wall-clock hour a change to winter time
    repeats, the earlier); a TIMESTAMP_NTZ or a date is the UTC wall clock. Values that are not
    times (or Hive's default partition) are skipped. tests/oracle/time_range.py's
    partitions_in_range is the test oracle. -#}
{% macro vulcan_partitions_in_range(cfg, partitions, time_type, start, end, session_zone='UTC') %}
  {%- set dt = modules.datetime -%}
  {%- set low, high = dbt_vulcan.vulcan_parse_ts(start), dbt_vulcan.vulcan_parse_ts(end) -%}
  {%- set column = cfg.time_column | lower -%}
  {%- if time_type == 'timestamp' -%}{%- do dbt_vulcan._vulcan_session_time_to_utc(low, session_zone) -%}{%- endif -%}
  {%- set specs = [] -%}
  {%- for spec in partitions -%}
    {%- set values = [] -%}
    {%- set ns = namespace(raw=none) -%}
    {%- for part in (spec | string).split('/') -%}
      {%- set k, _, v = part.partition('=') -%}
      {%- set k, v = dbt_vulcan._vulcan_unquote(k), dbt_vulcan._vulcan_unquote(v) -%}
      {%- do values.append((k, v)) -%}
      {%- if k | lower == column and ns.raw is none -%}{%- set ns.raw = v -%}{%- endif -%}
    {%- endfor -%}
    {%- set value = none -%}
    {%- if ns.raw is not none and ns.raw != '__HIVE_DEFAULT_PARTITION__' -%}
      {%- if time_type == 'string' -%}
        {%- set fmt = dbt_vulcan.vulcan_strftime_format(cfg.time_format) -%}
        {%- set value = dbt_vulcan._vulcan_strptime(ns.raw, fmt) -%}
      {%- elif time_type in ('int', 'bigint', 'epoch', 'epoch_millis') -%}
        {%- if modules.re.fullmatch('[+-]?\\d+', ns.raw.strip()) -%}
          {%- set n = ns.raw.strip() | int -%}
          {%- set value = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=n * (1000 if time_type == 'epoch_millis' else 1000000)) -%}
        {%- endif -%}
      {%- else -%}
        {%- set value = dbt_vulcan.vulcan_cfg_parse_time(ns.raw, cfg.time_column).time -%}
        {%- if value is not none and time_type == 'timestamp' -%}
          {%- set value = dbt_vulcan._vulcan_session_time_to_utc(value, session_zone) -%}
        {%- endif -%}
      {%- endif -%}
    {%- endif -%}
    {%- if value is not none and low <= value < high -%}
      {%- set items = [] -%}
      {%- for k, v in values -%}
        {%- do items.append(dbt_vulcan.vulcan_quote_identifier(k) ~ ' = ' ~ dbt_vulcan.vulcan_sql_string(v)) -%}
      {%- endfor -%}
      {%- do specs.append('partition (' ~ items | join(', ') ~ ')') -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(specs) }}
{% endmacro %}

{#- A wall-clock time of the session's zone (a region such as 'Europe/Paris', or an offset:
    'Z', '+02:00', 'UTC+2', 'GMT-05:30') as naive UTC; a zone neither names is an error. -#}
{% macro _vulcan_session_time_to_utc(value, zone) %}
  {%- set pytz = modules.pytz -%}
  {%- set text = (zone or 'UTC') | string | trim -%}
  {%- set m = modules.re.fullmatch('(?:UTC|GMT|UT)?([+-])(\\d{1,2})(?::?(\\d{2}))?(?::?(\\d{2}))?', text) -%}
  {%- if text | upper in ('Z', 'UTC', 'GMT', 'UT') -%}
    {{ return(value) }}
  {%- elif m -%}
    {%- set sign = -1 if m.group(1) == '-' else 1 -%}
    {%- set offset = modules.datetime.timedelta(hours=m.group(2) | int, minutes=(m.group(3) or 0) | int, seconds=(m.group(4) or 0) | int) -%}
    {{ return(value - offset if sign == 1 else value + offset) }}
  {%- elif text in pytz.all_timezones_set -%}
    {{ return(pytz.timezone(text).localize(value, is_dst=true).astimezone(pytz.utc).replace(tzinfo=none)) }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error("The session's time zone (spark.sql.session.timeZone) " ~ dbt_vulcan.vulcan_repr(text) ~ ' is neither a region nor an offset that dbt-vulcan reads; partitions of a timestamp column are read in it. Set a region (Europe/Paris) or an offset (+02:00).') }}
{% endmacro %}

{#- Hive's %XX escapes of a partition path undone (they only escape ASCII characters). -#}
{% macro _vulcan_unquote(text) %}
  {%- set parts = text.split('%') -%}
  {%- set ns = namespace(out=parts[0]) -%}
  {%- for part in parts[1:] -%}
    {%- if modules.re.match('[0-9A-Fa-f]{2}', part) -%}
      {%- set ns.out = ns.out ~ '%c' | format(part[:2] | int(base=16)) ~ part[2:] -%}
    {%- else -%}
      {%- set ns.out = ns.out ~ '%' ~ part -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(ns.out) }}
{% endmacro %}

{#- datetime.strptime, or none when the text does not match the format (checked with a regular
    expression first: Jinja cannot catch strptime's error; a format with other directives
    than these is left to strptime) -#}
{% macro _vulcan_strptime(text, fmt) %}
  {%- set ns = namespace(pattern=modules.re.escape(fmt)) -%}
  {%- for directive, regex in [('%Y', '\\d{4}'), ('%y', '\\d{2}'), ('%m', '\\d{1,2}'), ('%d', '\\d{1,2}'), ('%H', '\\d{1,2}'), ('%M', '\\d{1,2}'), ('%S', '\\d{1,2}'), ('%f', '\\d{1,6}'), ('%j', '\\d{1,3}')] -%}
    {%- set ns.pattern = ns.pattern.replace(directive, regex) -%}
  {%- endfor -%}
  {%- if '%' not in ns.pattern and not modules.re.fullmatch(ns.pattern, text) -%}
    {{ return(none) }}
  {%- endif -%}
  {{ return(modules.datetime.datetime.strptime(text, fmt)) }}
{% endmacro %}
