{#- Delta Lake before 4.1 stores a TIMESTAMP partition value wrongly when the session's time
    zone is not the JVM's: Spark formats the value in the session's zone and Delta reads that
    text back in the JVM's to store its UTC form (delta-io/delta#5599, fixed in Delta Lake
    4.1.0), so every row of such a column lands shifted by the zones' difference (the data
    files are right, the partition column is not). A Delta table partitioned by a TIMESTAMP
    column (a time range model's own time column by default, or `partition_by` on any kind) is
    therefore written only when the session runs in the JVM's zone or on Spark 4.1 or later;
    otherwise the run stops before anything is created, written or recorded.

    Delta's version is told by Spark's (`version()`): Delta Lake 3.x is built for Spark 3.5 and
    4.0.x for Spark 4.0; reading Delta's own version would need a class Databricks' runtime
    does not have. A Delta Lake 4.1 on Spark 4.0 is refused too, and the message says so. The
    zones compare by name, every spelling of UTC alike (time_tokens/session_zone.sql's list;
    tests/unit/macros/engine/test_delta_time_zone_macros.py checks it against Python's
    zoneinfo). -#}

{#- The table's TIMESTAMP partition columns (as configured), for a Delta table with partition
    columns; none otherwise (nothing to check, nothing recorded). Read from the query's columns
    when the run read them, else from the log (the run that last read them recorded them with
    its intervals: engine/run_batches.sql), else from the table (a log written before they
    were recorded; once). -#}
{% macro vulcan_timestamp_partitions(cfg, plan, query_columns, relation, existing_relation) %}
  {%- if cfg.file_format != 'delta' or not cfg.partition_cols -%}{{ return(none) }}{%- endif -%}
  {%- set recorded = (plan.get('previous_details') or {}).get('timestamp_partitions') -%}
  {%- if query_columns is none and recorded is iterable and recorded is not string and recorded is not mapping -%}
    {{ return(recorded | list) }}
  {%- endif -%}
  {%- set columns = query_columns -%}
  {%- if columns is none and existing_relation is not none and existing_relation.type == 'table' -%}
    {%- set columns = adapter.get_columns_in_relation(relation) -%}
  {%- endif -%}
  {%- set types = {} -%}
  {%- for c in columns or [] -%}{%- do types.update({c.name | lower: c.dtype | lower | trim}) -%}{%- endfor -%}
  {%- set found = [] -%}
  {%- for column in cfg.partition_cols if types.get(column | lower) == 'timestamp' -%}
    {%- do found.append(column) -%}
  {%- endfor -%}
  {{ return(found) }}
{% endmacro %}

{#- Refuse the run (see above) when `columns` (the table's TIMESTAMP partition columns) is not
    empty and the session's zone is not the JVM's on a Spark before 4.1: one statement, which
    starts no Spark job. -#}
{% macro vulcan_check_delta_time_zone(cfg, columns) %}
  {%- if not columns -%}{{ return(none) }}{%- endif -%}
  {%- set row = run_query(dbt_vulcan.vulcan_session_zones_sql()).rows[0] -%}
  {%- set problem = dbt_vulcan.vulcan_delta_time_zone_problem(cfg, columns, row[0] | string, row[1] | string, row[2] | string) -%}
  {%- if problem -%}
    {{ exceptions.raise_compiler_error(dbt_vulcan.vulcan_config_message(cfg, [problem])) }}
  {%- endif -%}
{% endmacro %}

{#- The session's zone, the JVM's and Spark's version. Databricks' compute runs its JVM in UTC
    (and may not allow reflection); elsewhere the JVM is asked. -#}
{% macro vulcan_session_zones_sql() %}{{ return(adapter.dispatch('vulcan_session_zones_sql', 'dbt_vulcan')()) }}{% endmacro %}

{% macro default__vulcan_session_zones_sql() %}
  {{ return("select current_timezone() as session_zone, reflect('java.time.ZoneId', 'systemDefault') as jvm_zone, version() as spark_version") }}
{% endmacro %}

{% macro databricks__vulcan_session_zones_sql() %}
  {{ return("select current_timezone() as session_zone, 'Etc/UTC' as jvm_zone, version() as spark_version") }}
{% endmacro %}

{#- The problem (a string), or none: the zones are the same, or Spark is 4.1 or later. -#}
{% macro vulcan_delta_time_zone_problem(cfg, columns, session_zone, jvm_zone, spark_version) %}
  {%- set utc = dbt_vulcan.vulcan_utc_zone_names() -%}
  {%- set session = session_zone | trim | lower -%}
  {%- set jvm = jvm_zone | trim | lower -%}
  {%- if session == jvm or (session in utc and jvm in utc) -%}{{ return(none) }}{%- endif -%}
  {%- set parts = (spark_version | trim).split(' ')[0].split('.') -%}
  {%- set major = parts[0] | int if parts | length > 0 else 0 -%}
  {%- set minor = parts[1] | int if parts | length > 1 else 0 -%}
  {%- if major > 4 or (major == 4 and minor >= 1) -%}{{ return(none) }}{%- endif -%}
  {%- set r = dbt_vulcan.vulcan_repr -%}
  {%- set own = cfg.kind == 'incremental_by_time_range' and cfg.time_column and columns | map('lower') | list == [cfg.time_column | lower] -%}
  {%- set key = 'partition_by_time_column' if own else dbt_vulcan.vulcan_partition_key(model) -%}
  {%- set fix = 'set partition_by_time_column: false (or partition by a date column you select)' if own else 'partition by a date column instead of ' ~ columns | join(', ') -%}
  {{ return(key ~ ': the Delta table is partitioned by the TIMESTAMP column(s) ' ~ columns | join(', ') ~ ', and the session\'s time zone (spark.sql.session.timeZone) ' ~ r(session_zone | trim) ~ ' is not the JVM\'s ' ~ r(jvm_zone | trim) ~ ': the Delta Lake of Spark ' ~ (spark_version | trim).split(' ')[0] ~ ' would store every partition value shifted by the difference (delta-io/delta#5599, fixed in Delta Lake 4.1). Nothing was written. Run the session in the JVM\'s zone (spark.sql.session.timeZone: ' ~ (jvm_zone | trim) ~ '), or ' ~ fix ~ ', or use Spark 4.1 or later with its Delta Lake (a Delta Lake 4.1 on Spark 4.0 is not told apart: run it in the JVM\'s zone)') }}
{% endmacro %}
