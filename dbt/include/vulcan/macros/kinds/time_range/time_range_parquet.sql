{#- incremental_by_time_range on plain parquet tables.

    Partitioned by the time column: INSERT OVERWRITE with per-table dynamic partition overwrite
    replaces exactly the partitions the batch writes. When the batch's range already held rows
    (a re-run, lookback, restatement), the range is first marked removed in the state log and
    its existing partitions dropped (a TIMESTAMP column's read in the session's time zone, one
    more statement), so a day that now yields no rows ends up empty; a crash
    in between leaves the range missing, and the next run recomputes it.
    Not partitioned by the time column: a staged rewrite of the whole table (costly; warned). -#}

{% macro vulcan_time_range_parquet(args) %}
  {%- set cfg = args.cfg -%}
  {%- if cfg.time_column not in cfg.partition_cols -%}
    {% do dbt_vulcan._vulcan_time_range_staged_rewrite(args) %}
    {{ return(none) }}
  {%- endif -%}
  {%- if args.dirty -%}
    {% do dbt_vulcan.vulcan_record_intervals(args.removed_rows) %}
    {%- set partitions = run_query('show partitions ' ~ args.relation) -%}
    {#- a TIMESTAMP partition value is the session zone's wall clock: read it (only then) -#}
    {%- set zone = run_query('set spark.sql.session.timeZone').columns[1].values()[0] if args.time_type == 'timestamp' else 'UTC' -%}
    {%- set stale = dbt_vulcan.vulcan_partitions_in_range(
          cfg, partitions.columns[0].values() | list, args.time_type, args.batch.start, args.batch.end, zone) -%}
    {%- if stale -%}
      {% call statement('vulcan_drop_partitions') -%}
        alter table {{ args.relation }} drop if exists {{ stale | join(', ') }}
      {%- endcall %}
    {%- endif -%}
  {%- endif -%}
  {% call statement('main') -%}
    insert overwrite table {{ args.relation }} by name
    {{ args.sql }}
  {%- endcall %}
{% endmacro %}

{% macro _vulcan_time_range_staged_rewrite(args) %}
  {% if args.batch.index == 1 %}
    {{ log('Warning: ' ~ args.relation ~ ' is a parquet table not partitioned by its time column '
           ~ args.cfg.time_column ~ '; each batch rewrites the whole table. Partition it by '
           ~ args.cfg.time_column ~ ' or use file_format delta/iceberg.', info=True) }}
  {% endif %}
  {% if args.dirty %}{% do dbt_vulcan.vulcan_record_intervals(args.removed_rows) %}{% endif %}
  {% do dbt_vulcan.vulcan_overwrite_from_stage(args, 'select * from ' ~ args.relation ~ ' where not coalesce(' ~ args.filter ~ ', false)', args.sql) %}
{% endmacro %}
