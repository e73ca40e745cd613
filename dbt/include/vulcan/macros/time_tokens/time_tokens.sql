{#- The Vulcan time tokens (`@start_ds`, `@end_dt`, `@execution_ts`, ...) and the automatic
    output filter, in Jinja: one implementation for the adapter and the package.

    A batch is the half-open range [start, end); every `end_*` token is INCLUSIVE (derived from
    end - 1 microsecond), as in SQLMesh. Times are 'YYYY-MM-DD HH:MM:SS[.ffffff]' strings, UTC.
    dbt/adapters/vulcan/timemacros.py is the test oracle of these macros (tests/unit). -#}

{#- Every token's SQL text for a batch: {'start_ds': "'2025-01-01'", ...}. -#}
{% macro vulcan_time_tokens(start, end, execution_time) %}
  {%- set low = dbt_vulcan.vulcan_parse_ts(start) -%}
  {%- set high = dbt_vulcan.vulcan_parse_ts(end) -%}
  {%- set last = high - modules.datetime.timedelta(microseconds=1) -%}
  {%- set values = {} -%}
  {%- do values.update(dbt_vulcan._vulcan_point_tokens('start', low)) -%}
  {%- do values.update(dbt_vulcan._vulcan_point_tokens('end', last)) -%}
  {%- do values.update(dbt_vulcan._vulcan_point_tokens('execution', dbt_vulcan.vulcan_parse_ts(execution_time))) -%}
  {%- do values.update({
    'end_millis': (dbt_vulcan.vulcan_micros(high) // 1000 - 1) | string,
    'start_timestamp': values['start_dt'],
    'end_timestamp': values['end_dt'],
  }) -%}
  {{ return(values) }}
{% endmacro %}

{#- `sql` with every known `@name` / `@{name}` replaced by its value. Only whole tokens are
    replaced (`@start_dsx` stays), unknown tokens stay, and quoted strings, backquoted
    identifiers and comments are never touched. One regex split; no character loop. -#}
{% macro vulcan_render_tokens(sql, values) %}
  {%- set pattern = "('(?:[^'\\\\]|\\\\[\\s\\S]|'')*'?"
      ~ '|"(?:[^"\\\\]|\\\\[\\s\\S]|"")*"?'
      ~ "|`(?:[^`]|``)*`?"
      ~ "|--[^\\n]*"
      ~ "|/\\*[\\s\\S]*?(?:\\*/|$)"
      ~ "|@\\{[A-Za-z_][A-Za-z0-9_]*\\}"
      ~ "|@[A-Za-z_][A-Za-z0-9_]*)" -%}
  {%- set pieces = modules.re.split(pattern, sql) -%}
  {%- set out = [] -%}
  {%- for piece in pieces -%}
    {%- set name = piece[1:].strip('{}') if (loop.index is even and piece[:1] == '@') else none -%}
    {%- do out.append(values[name] if name is not none and name in values else piece) -%}
  {%- endfor -%}
  {{ return(out | join('')) }}
{% endmacro %}

{#- The predicate keeping rows of `column_sql` inside [start, end): day-grained columns (date,
    or a string with a date-only format) compare with the first and the last day (inclusive),
    the others with `>= start AND < end`. Every literal names its instant whatever the
    session's time zone (vulcan_time_literal). A string column whose format sorts as text
    ('yyyy-MM-dd', '%Y%m%d%H') is compared as text; one that does not ('MM/dd/yyyy') by the
    days it means: a date-only format as the IN list of the range's days (as stored), another
    parsed with its format (zone-free), which Delta's REPLACE WHERE refuses (the config check,
    vulcan_time_grain_problems). -#}
{% macro vulcan_output_filter(column_sql, start, end, time_type, time_format=none) %}
  {%- set low = dbt_vulcan.vulcan_parse_ts(start) -%}
  {%- set high = dbt_vulcan.vulcan_parse_ts(end) -%}
  {%- set py_format = dbt_vulcan.vulcan_strftime_format(time_format) -%}
  {%- set day_grained = time_type == 'date' or (time_type == 'string' and not dbt_vulcan.vulcan_format_has_time(py_format)) -%}
  {%- set ns = namespace(column=column_sql, type=time_type) -%}
  {%- set sorts = time_type != 'string' or dbt_vulcan.vulcan_format_sorts_as_text(py_format) -%}
  {%- if not sorts and not day_grained -%}
    {%- set ns.type = 'timestamp_ntz' -%}
    {%- set ns.column = 'to_timestamp_ntz(' ~ column_sql ~ ", '" ~ dbt_vulcan.vulcan_spark_time_format(py_format).replace("'", "''") ~ "')" -%}
  {%- endif -%}
  {%- if day_grained -%}
    {%- set last = high - modules.datetime.timedelta(microseconds=1) -%}
    {%- set first_day = modules.datetime.datetime(low.year, low.month, low.day) -%}
    {%- set last_day = modules.datetime.datetime(last.year, last.month, last.day) -%}
    {%- if not sorts -%}
      {#- the range's days, each as the text it is stored as: a plain IN list (Delta's REPLACE
          WHERE and partition pruning take it; a parsed comparison they cannot) -#}
      {%- set texts = [] -%}
      {%- for offset in range((last_day - first_day).days + 1) -%}
        {%- do texts.append(dbt_vulcan._vulcan_filter_literal(first_day + modules.datetime.timedelta(days=offset), 'string', py_format)) -%}
      {%- endfor -%}
      {{ return(column_sql ~ ' IN (' ~ texts | join(', ') ~ ')') }}
    {%- endif -%}
    {#- half-open at the day after the last: the same days, and every time of them should the
        column hold times (an upstream type change the log has not seen) -#}
    {%- set after_last = last_day + modules.datetime.timedelta(days=1) -%}
    {{ return(ns.column ~ ' >= ' ~ dbt_vulcan._vulcan_filter_literal(first_day, ns.type, py_format) ~ ' AND ' ~ ns.column ~ ' < ' ~ dbt_vulcan._vulcan_filter_literal(after_last, ns.type, py_format)) }}
  {%- endif -%}
  {{ return(ns.column ~ ' >= ' ~ dbt_vulcan._vulcan_filter_literal(low, ns.type, py_format) ~ ' AND ' ~ ns.column ~ ' < ' ~ dbt_vulcan._vulcan_filter_literal(high, ns.type, py_format)) }}
{% endmacro %}

{#- Whether the strftime format `py_format` holds a time of day (else it holds days only;
    timemacros.py's is_day_format is its negation). -#}
{% macro vulcan_format_has_time(py_format) %}
  {{ return(modules.re.search('%[HIMSfpXcTRrsz]', py_format.replace('%%', '')) is not none) }}
{% endmacro %}

{#- Whether text in the strftime format `py_format` sorts as the times it means: its fields
    are the leading ones of year, month, day, hour, minute, second, fraction (or year, day of
    the year, ...), each fixed-width, in that order; literal text between them is fixed. -#}
{% macro vulcan_format_sorts_as_text(py_format) %}
  {%- set fields = modules.re.findall('%(.)', py_format.replace('%%', '')) | join('') -%}
  {{ return(fields != '' and ('YmdHMSf'.startswith(fields) or 'YjHMSf'.startswith(fields))) }}
{% endmacro %}

{#- A Spark datetime pattern ('MM/dd/yyyy') from a strftime format ('%m/%d/%Y'); literal
    letters quoted. Formats are validated with the model's config (their directives are the
    ones below). -#}
{% macro vulcan_spark_time_format(py_format) %}
  {%- set patterns = {'Y': 'yyyy', 'y': 'yy', 'm': 'MM', 'd': 'dd', 'H': 'HH', 'M': 'mm', 'S': 'ss', 'f': 'SSSSSS', 'j': 'DDD', '%': '%'} -%}
  {%- set out = [] -%}
  {%- for match in modules.re.finditer("%(.)|([A-Za-z]+)|('+)|([^%A-Za-z']+)", py_format) -%}
    {%- if match.group(1) -%}
      {%- do out.append(patterns[match.group(1)]) -%}
    {%- elif match.group(2) -%}
      {%- do out.append("'" ~ match.group(2) ~ "'") -%}
    {%- elif match.group(3) -%}
      {%- do out.append("''" * (match.group(3) | length)) -%}
    {%- else -%}
      {%- do out.append(match.group(4)) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out | join('')) }}
{% endmacro %}

{#- A batch's SQL: the model's query with the batch's tokens, wrapped in the output filter
    when the kind has a time column: {sql, filter, query}. -#}
{% macro vulcan_batch_query(sql, cfg, batch, time_type, execution_time, projection=none) %}
  {%- set rendered = dbt_vulcan.vulcan_render_tokens(sql, dbt_vulcan.vulcan_time_tokens(batch.start, batch.end, execution_time)) -%}
  {%- set select_list = projection | join(', ') if projection else '*' -%}
  {%- set wrapped = 'select ' ~ select_list ~ ' from (\n' ~ rendered ~ '\n) as vulcan_batch' -%}
  {#- tracked keeps or drops whole groups by their latest row's time (kinds/tracked/), never
      single rows -#}
  {%- if not cfg.time_column or cfg.kind == 'tracked' -%}
    {{ return({'sql': wrapped, 'filter': 'true', 'query': rendered}) }}
  {%- endif -%}
  {%- set predicate = dbt_vulcan.vulcan_output_filter(dbt_vulcan.vulcan_quote_identifier(cfg.time_column), batch.start, batch.end, time_type, cfg.time_format) -%}
  {{ return({'sql': wrapped ~ '\nwhere ' ~ predicate, 'filter': predicate, 'query': rendered}) }}
{% endmacro %}

{#- The model's query with its tokens bound to the model's first interval (from `start`, or
    1970-01-01): to read its columns only. -#}
{% macro vulcan_schema_query(sql, cfg, execution_time, first_interval) %}
  {{ return(dbt_vulcan.vulcan_render_tokens(sql, dbt_vulcan.vulcan_time_tokens(first_interval[0], first_interval[1], execution_time))) }}
{% endmacro %}

{#- ---------------------------------------------------------------- private helpers -#}
{% macro _vulcan_point_tokens(prefix, dt) %}
  {%- set micros = dbt_vulcan.vulcan_micros(dt) -%}
  {%- set size = micros if micros >= 0 else -micros -%}
  {%- set epoch = ('-' if micros < 0 else '') ~ (size // 1000000) ~ '.' ~ ('%06d' | format(size % 1000000)) -%}
  {{ return({
    prefix ~ '_ds': "'" ~ dt.strftime('%Y-%m-%d') ~ "'",
    prefix ~ '_date': dbt_vulcan.vulcan_time_literal(dt, 'date'),
    prefix ~ '_dt': dbt_vulcan.vulcan_time_literal(dt),
    prefix ~ '_ts': "'" ~ dbt_vulcan.vulcan_format_ts(dt) ~ "'",
    prefix ~ '_epoch': epoch,
    prefix ~ '_millis': (micros // 1000) | string,
  }) }}
{% endmacro %}

{% macro _vulcan_filter_literal(dt, time_type, py_format) %}
  {%- if time_type in ('date', 'timestamp', 'timestamp_ntz') -%}
    {{ return(dbt_vulcan.vulcan_time_literal(dt, time_type)) }}
  {%- elif time_type == 'string' -%}
    {{ return("'" ~ dt.strftime(py_format).replace("'", "''") ~ "'") }}
  {%- elif time_type == 'epoch_millis' -%}
    {{ return((dbt_vulcan.vulcan_micros(dt) // 1000) | string) }}
  {%- endif -%}
  {{ return((dbt_vulcan.vulcan_micros(dt) // 1000000) | string) }}
{% endmacro %}

{#- The SQL literal of `dt` (a naive UTC datetime) as a DATE, TIMESTAMP or TIMESTAMP_NTZ: a
    TIMESTAMP carries its UTC offset, so it names the same instant whatever the Spark
    session's time zone; a TIMESTAMP_NTZ or DATE is the UTC wall clock (timemacros.py's
    time_literal). -#}
{% macro vulcan_time_literal(dt, sql_type='timestamp') %}
  {%- if sql_type == 'date' -%}
    {{ return("CAST('" ~ dt.strftime('%Y-%m-%d') ~ "' AS DATE)") }}
  {%- elif sql_type == 'timestamp_ntz' -%}
    {{ return("CAST('" ~ dbt_vulcan.vulcan_format_ts(dt) ~ "' AS TIMESTAMP_NTZ)") }}
  {%- endif -%}
  {{ return("CAST('" ~ dbt_vulcan.vulcan_format_ts(dt) ~ "+00:00' AS TIMESTAMP)") }}
{% endmacro %}

{#- A strftime format from a Python ('%Y-%m-%d') or Spark ('yyyy-MM-dd') one; none gives
    '%Y-%m-%d'. Formats are validated with the model's config. -#}
{% macro vulcan_strftime_format(fmt) %}
  {%- if fmt is none or not (fmt | trim) -%}{{ return('%Y-%m-%d') }}{%- endif -%}
  {%- if '%' in fmt -%}{{ return(fmt) }}{%- endif -%}
  {%- set patterns = {'yyyy': '%Y', 'yy': '%y', 'MM': '%m', 'dd': '%d', 'HH': '%H', 'mm': '%M', 'ss': '%S', 'SSSSSS': '%f'} -%}
  {%- set out = [] -%}
  {%- for match in modules.re.finditer("'([^']*)'|(([A-Za-z])\\3*)|([^A-Za-z'])", fmt) -%}
    {%- if match.group(2) -%}
      {%- do out.append(patterns[match.group(2)]) -%}
    {%- elif match.group(4) -%}
      {%- do out.append('%%' if match.group(4) == '%' else match.group(4)) -%}
    {%- else -%}
      {%- do out.append(match.group(1).replace('%', '%%') or "'") -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out | join('')) }}
{% endmacro %}
