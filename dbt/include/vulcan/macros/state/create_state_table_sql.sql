{#- The statements that create the state table, or `relation` with the same columns and format.
    A parquet log is partitioned by (relation, append_id): every append is its own partition,
    written by dynamic partition overwrite, whose files are staged in a directory of their own
    (`.spark-staging-<job>`), so concurrent appends (dbt threads, other dbt processes) never
    share Hadoop's `_temporary` directory; a partition is never written again, so no session
    can hold a stale listing of it; and a model's plan reads only its own partitions. It is
    declared in Hive's DDL (`stored as parquet`): the metastore creates such a table if not
    exists atomically, so threads or processes that race to create it all succeed (Spark's
    `using parquet` checks, then creates, and the loser fails); Spark reads and writes it with
    its own parquet source, a partitioned insert overwriting dynamically (Hive's semantics).
    Delta and Iceberg commit concurrent appends themselves (Iceberg by retrying a commit that
    lost a race), into a table partitioned by relation: a model's plan reads only its own
    partition, and the fold that keeps a relation's log short (state/fold.sql) overwrites its
    own partition, which no other thread's append or fold conflicts with. -#}
{% macro vulcan_create_state_table_sql(relation=none) %}
  {{ return(adapter.dispatch('vulcan_create_state_table_sql', 'dbt_vulcan')(relation)) }}
{% endmacro %}

{% macro default__vulcan_create_state_table_sql(relation=none) %}
  {%- set state = relation if relation is not none else dbt_vulcan.vulcan_state_relation() -%}
  {%- set file_format = dbt_vulcan.vulcan_state_file_format() -%}
  {%- set columns = dbt_vulcan.vulcan_state_columns(file_format) -%}
  {%- set partition_columns = ['relation', 'append_id'] if file_format == 'parquet' else [] -%}
  {%- set create_schema -%}
    create schema if not exists {{ state.schema }}
  {%- endset -%}
  {%- set create_table -%}
    create table if not exists {{ state }} (
      {% for name, type in columns if name not in partition_columns -%}
      {{ name }} {{ type }}{{ ',' if not loop.last }}
      {% endfor -%}
    )
    {%- if file_format == 'parquet' %}
    partitioned by ({% for name, type in columns if name in partition_columns %}{{ name }} {{ type }}{{ ', ' if not loop.last }}{% endfor %})
    stored as parquet
    {%- else %}
    {{ dbt_vulcan.vulcan_state_table_clauses(file_format) }}
    {%- endif %}
  {%- endset -%}
  {{ return([create_schema, create_table]) }}
{% endmacro %}

{#- A Delta or Iceberg state table's clauses after its columns (also those of vulcan_compact's
    replacement of a table created before the partitioning). Iceberg: an append that lost a
    commit race retries on the new snapshot; 8 threads appending at once outlast its default 4
    retries. -#}
{% macro vulcan_state_table_clauses(file_format) %}
  {%- set clauses = ['using ' ~ file_format, 'partitioned by (relation)'] -%}
  {%- if file_format == 'iceberg' -%}
    {%- do clauses.append("tblproperties ('commit.retry.num-retries' = '30')") -%}
  {%- endif -%}
  {{ return(clauses | join('\n')) }}
{% endmacro %}
