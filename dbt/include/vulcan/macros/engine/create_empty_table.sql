{#- Creates (or, for delta/iceberg, atomically replaces) `relation` with the columns of `sql`
    and no rows: the batches then fill it. Creating empty and inserting is faster than a
    partitioned CREATE TABLE AS SELECT, which registers every partition in an extra job.
    The table is created from a column list (the query's columns, as Spark describes them:
    vulcan_query_columns; `columns` when the caller has them already), not AS SELECT:
    - an empty CREATE TABLE AS SELECT still runs a job (0.3 to 1 s, where the column list
      costs a metastore call);
    - for Delta and Iceberg it writes one empty data file, and a Hive metastore records the
      size of the folder it finds at registration as the table's size for good (Delta's
      writes never update it), which Spark's planner then prefers to Delta's own: a table
      grown to gigabytes planned as 373 bytes is broadcast whole into every join with it.
      Registered with no data file, the table has no metastore size and Spark asks Delta
      for the current one.
    A parquet table under `location_root` is still created AS SELECT (below). -#}

{% macro vulcan_create_empty_table(relation, sql, cfg, replace=false, columns=none) %}
  {{ return(adapter.dispatch('vulcan_create_empty_table', 'dbt_vulcan')(relation, sql, cfg, replace, columns)) }}
{% endmacro %}

{% macro default__vulcan_create_empty_table(relation, sql, cfg, replace=false, columns=none) %}
  {#- a parquet table under `location_root` is external: dropping it (a rebuild, a schema
      change's rewrite) leaves its files, which a table created from a column list would
      read as its rows, and Spark refuses CREATE TABLE AS SELECT into a non-empty folder
      (dbt-spark's own `table` rebuild fails there). Its CREATE is AS SELECT of no rows and
      replaces the folder's files, as such a CREATE did before Spark 3.2, for this statement
      only (the validator refuses a partitioned one: dropped partitions' files would come
      back). A target that forbids the setting fails here, before the table is written. -#}
  {%- set into_folder = cfg.file_format == 'parquet' and cfg.get('location_root') -%}
  {%- set before = dbt_vulcan._vulcan_ctas_into_folder() if into_folder else none -%}
  {%- set options = config.get('options') or {} -%}
  {%- if dbt_vulcan._vulcan_parquet_dynamic(cfg) -%}
    {#- per-table setting: INSERT OVERWRITE replaces only the partitions it writes, with no
        session-wide `spark.sql.sources.partitionOverwriteMode` that would leak to other models -#}
    {%- set options = dict(options, partitionOverwriteMode='dynamic') -%}
  {%- endif -%}
  {%- set table_format = cfg.file_format in ('delta', 'iceberg') -%}
  {%- set listed = not into_folder -%}
  {%- if listed and columns is none -%}{%- set columns = dbt_vulcan.vulcan_query_columns(sql) -%}{%- endif -%}
  {% call statement('vulcan_create_table') -%}
    {% if replace and table_format %}create or replace table{% else %}create table{% endif %} {{ relation }}
    {%- if listed %} (
      {%- for c in columns %}
      {{ dbt_vulcan.vulcan_column_sql(c.name, c.dtype) }}{{ ',' if not loop.last }}
      {%- endfor %}
    )
    {%- endif %}
    using {{ cfg.file_format }}
    {%- if options %}
    options (
      {%- for key, value in options.items() %}
      '{{ key }}' = '{{ value }}'{% if not loop.last %},{% endif %}
      {%- endfor %}
    )
    {%- endif %}
    {%- if cfg.partition_cols %}
    partitioned by ({% for c in cfg.partition_cols %}{{ dbt_vulcan.vulcan_quote_identifier(c) }}{{ ', ' if not loop.last }}{% endfor %})
    {%- endif %}
    {{ dbt_vulcan.vulcan_cluster_by_clause(cfg) }}
    {{ clustered_cols(label="clustered by") }}
    {{ dbt_vulcan.vulcan_location_clause(relation) }}
    {{ comment_clause() }}
    {{ tblproperties_clause() }}
    {%- if not listed %}
    as select * from (
      {{ sql }}
    ) as vulcan_schema where 1 = 0
    {%- endif %}
  {%- endcall %}
  {%- if into_folder -%}{% do dbt_vulcan._vulcan_ctas_into_folder(before) %}{%- endif -%}
{% endmacro %}

{#- Spark's `spark.sql.legacy.allowNonEmptyLocationInCTAS`: set to true (when it is not), the
    value it had returned; with `restore`, set back to it (when it was not true). -#}
{% macro _vulcan_ctas_into_folder(restore=none) %}
  {%- set key = 'spark.sql.legacy.allowNonEmptyLocationInCTAS' -%}
  {%- if restore is not none -%}
    {%- if restore != 'true' -%}{% do run_query('set ' ~ key ~ '=' ~ restore) %}{%- endif -%}
    {{ return(restore) }}
  {%- endif -%}
  {%- set before = run_query('set ' ~ key).columns[1].values()[0] | string | lower -%}
  {%- if before != 'true' -%}{% do run_query('set ' ~ key ~ '=true') %}{%- endif -%}
  {{ return(before) }}
{% endmacro %}

{#- A parquet table of this config is created with dynamic partition overwrite (its own option). -#}
{% macro _vulcan_parquet_dynamic(cfg) %}
  {%- set dynamic = cfg.file_format == 'parquet' and ((cfg.time_column and cfg.time_column in cfg.partition_cols)
                                                     or (cfg.kind == 'incremental_by_unique_key' and cfg.partition_cols)
                                                     or cfg.kind == 'incremental_by_partition') -%}
  {{ return(true if dynamic else false) }}
{% endmacro %}
