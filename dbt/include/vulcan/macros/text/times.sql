{#- Times as the package reads and writes them: text in, naive datetimes (UTC wall clock) out,
    and back; epoch microseconds for the range arithmetic of the state log. -#}

{#- A time given as text ('YYYY-MM-DD', with ' HH:MM:SS' and '.ffffff' optional) as a datetime. -#}
{% macro vulcan_parse_ts(text) %}
  {%- set value = text | string -%}
  {%- set fmt = '%Y-%m-%d %H:%M:%S.%f' if '.' in value else ('%Y-%m-%d %H:%M:%S' if ':' in value else '%Y-%m-%d') -%}
  {{ return(modules.datetime.datetime.strptime(value, fmt)) }}
{% endmacro %}

{#- A datetime as text, the microseconds only when there are some (what vulcan_parse_ts reads back). -#}
{% macro vulcan_format_ts(dt) %}
  {{ return(dt.strftime('%Y-%m-%d %H:%M:%S') ~ ('.%06d' | format(dt.microsecond) if dt.microsecond else '')) }}
{% endmacro %}

{#- microseconds since 1970-01-01 (negative before it) -#}
{% macro vulcan_micros(dt) %}
  {%- set delta = dt - modules.datetime.datetime(1970, 1, 1) -%}
  {{ return((delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds) }}
{% endmacro %}
