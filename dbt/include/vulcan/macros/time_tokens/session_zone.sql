{#- The Spark session's time zone (spark.sql.session.timeZone), where it decides what a time
    means: a zoneless time string (`@start_ts`) read as a TIMESTAMP is a time of that zone. -#}

{#- The session's time zone as Spark names it ('America/New_York', 'UTC', '+02:00'), read by one
    statement that starts no Spark job; none when the answer has no row. -#}
{% macro vulcan_session_zone() %}
  {%- set rows = run_query('select current_timezone() as session_zone').rows -%}
  {{ return(rows[0][0] | string if rows else none) }}
{% endmacro %}

{#- Is `zone` a name of UTC (any spelling: 'UTC', 'Etc/UTC', 'Z', 'GMT', '+00:00', ...)? -#}
{% macro vulcan_is_utc_zone(zone) %}
  {{ return((zone | string | trim | lower) in dbt_vulcan.vulcan_utc_zone_names()) }}
{% endmacro %}

{#- The names of UTC a session or a JVM may give, lowercased. -#}
{% macro vulcan_utc_zone_names() %}
  {{ return(['utc', 'etc/utc', 'z', 'gmt', 'etc/gmt', 'uct', 'etc/uct', 'universal', 'etc/universal', 'zulu', 'etc/zulu', 'gmt0', 'etc/gmt0', 'gmt+0', 'gmt-0', 'etc/gmt+0', 'etc/gmt-0', '+00:00', '-00:00', 'utc+00:00', 'gmt+00:00']) }}
{% endmacro %}
