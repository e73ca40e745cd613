{#- incremental_by_unique_key on plain parquet tables, which cannot MERGE: a staged rewrite.

    The stage holds the table's new content: a full outer join of the table and the batch on
    the key, each column chosen per row (new key: the batch's; no match: the table's; match:
    the batch's, or what the first `when_matched` clause whose condition holds says; DELETE
    drops the row). Duplicate keys in the batch fail the stage, so the table is untouched.
    Spark cannot overwrite a table it reads in the same statement, hence the stage; then
    INSERT OVERWRITE swaps it in.

    Partitioned (the table is created with dynamic partition overwrite): only the partitions
    of the batch and of the rows its keys match are read and rewritten; a partition left with
    no rows (keys moved away, DELETE) is dropped. Otherwise the whole table is rewritten.

    Without when_matched (and unless `skip_unchanged_rows: false`), the stage flags the batch
    rows that are new or differ from their table row; a batch with none leaves the table
    untouched (no overwrite), as a MERGE with no change commits nothing on Delta.

    Statements per batch: create stage (marked for replay, see engine/stage.sql), [without
    when_matched: find one changed row], [partitioned: list emptied partitions, rarely drop
    them], insert overwrite, drop stage (after the batch's record when its write is
    bracketed: engine/write_check.sql); once per run: describe the table. The SQL:
    kinds/unique_key/unique_key_sql.sql.
    The first batch into a just-created table is one INSERT. -#}
{% macro vulcan_unique_key_parquet(args) %}
  {%- set spec = dbt_vulcan._vulcan_unique_key_batch_spec(args) -%}
  {%- if args.created and args.batch.index == 1 -%}
    {% call statement('main') -%}
      insert into {{ args.relation }} by name
      {{ dbt_vulcan.vulcan_unique_key_checked_source(spec, args.sql) }}
    {%- endcall %}
    {{ return(none) }}
  {%- endif -%}
  {%- set stage = dbt_vulcan.vulcan_stage_relation(args.relation) -%}
  {%- set per_run = args.per_run -%}
  {%- if 'layout' not in per_run -%}
    {% do per_run.update({'layout': dbt_vulcan.vulcan_table_layout(run_query('describe table extended ' ~ args.relation).rows)}) %}
  {%- endif -%}
  {%- set layout = per_run.layout -%}
  {%- set compare = dbt_vulcan._vulcan_unique_key_compare(spec, args, layout) -%}
  {%- set upsert = dbt_vulcan.vulcan_unique_key_parquet_sql(spec, args.relation, stage, args.sql, layout, compare) -%}
  {%- if layout.partition_cols and not layout.scoped and 'warned' not in per_run -%}
    {% do per_run.update({'warned': true}) %}
    {{ log('Warning: ' ~ args.relation ~ ' is partitioned without dynamic partition overwrite (it was not created by dbt-vulcan); each batch rewrites the whole table. Rebuild it (--full-refresh) to rewrite only the partitions a batch touches.', info=True) }}
  {%- endif -%}
  {% do dbt_vulcan.vulcan_stage_create(stage, upsert.stage_select, replay='overwrite') %}
  {%- if upsert.changed and not run_query(upsert.changed).rows -%}
    {#- every batch row equals its table row: the table is not rewritten -#}
    {%- if not args.get('write_marked') -%}
      {% do dbt_vulcan.vulcan_stage_drop(stage) %}
    {%- endif -%}
    {{ return(none) }}
  {%- endif -%}
  {%- if upsert.emptied_partitions -%}
    {%- set drop_sql = dbt_vulcan.vulcan_drop_partitions_sql(args.relation, layout.partition_cols, run_query(upsert.emptied_partitions).rows) -%}
    {%- if drop_sql -%}
      {% call statement('vulcan_drop_partitions') %}{{ drop_sql }}{% endcall %}
    {%- endif -%}
  {%- endif -%}
  {% call statement('main') -%}
    {{ upsert.overwrite }}
  {%- endcall %}
  {#- a bracketed write's stage stays until the batch is recorded (engine/write_check.sql) -#}
  {%- if not args.get('write_marked') -%}
    {% do dbt_vulcan.vulcan_stage_drop(stage) %}
  {%- endif -%}
{% endmacro %}
