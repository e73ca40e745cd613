{#- incremental_by_unique_key on Delta: one MERGE per batch (matched: update every column, or
    the `when_matched` clauses; not matched: insert; without when_matched, a batch row equal to
    its table row is left out, so unchanged rows are not rewritten). Duplicate keys in the batch fail the MERGE
    before it commits. The first batch into a just-created table is a plain INSERT. The SQL:
    kinds/unique_key/unique_key_sql.sql. -#}
{% macro vulcan_unique_key_delta(args) %}
  {% do dbt_vulcan._vulcan_unique_key_merge(args) %}
{% endmacro %}

{#- Shared with vulcan_unique_key_iceberg: both formats MERGE the same way. -#}
{% macro _vulcan_unique_key_merge(args) %}
  {%- set spec = dbt_vulcan._vulcan_unique_key_batch_spec(args) -%}
  {%- set first_into_new = args.created and args.batch.index == 1 -%}
  {%- set compare = none if first_into_new else dbt_vulcan._vulcan_unique_key_compare(spec, args) -%}
  {% call statement('main') -%}
    {%- if first_into_new -%}
      insert into {{ args.relation }}
      {{ dbt_vulcan.vulcan_unique_key_checked_source(spec, args.sql) }}
    {%- else -%}
      {{ dbt_vulcan.vulcan_unique_key_merge_sql(spec, args.relation, args.sql, compare, args.cfg.start is none) }}
    {%- endif -%}
  {%- endcall %}
{% endmacro %}

{#- The table's columns a MERGE compares to leave unchanged rows alone (unique_key_sql.sql), or
    none: with `skip_unchanged_rows: false`, with when_matched clauses (they say what a match does: an accumulating one must see
    every row), or when a column cannot be compared (a map or a variant has no `<=>`; every
    matched row is then updated). Read once per run, with their types: recorded by the last
    run, else described (engine/in_table_order.sql); on parquet (whose stage flags the changed
    rows the same way) those of the `layout` its strategy described. -#}
{% macro _vulcan_unique_key_compare(spec, args, layout=none) %}
  {%- if spec.when_matched or not args.cfg.skip_unchanged_rows -%}{{ return(none) }}{%- endif -%}
  {#- the parquet upsert gives the layout its DESCRIBE read (unique_key_parquet.sql) -#}
  {%- set names = layout.columns if layout is not none else dbt_vulcan.vulcan_run_table_columns(args, true) -%}
  {%- set types = layout.types if layout is not none else args.per_run.table_types -%}
  {%- for dtype in types or [] if 'map<' in dtype or 'variant' in dtype -%}
    {{ return(none) }}
  {%- endfor -%}
  {{ return(names) }}
{% endmacro %}

{#- The model's unique-key spec with the batch's time tokens (in when_matched, merge_filter and
    dbt's incremental_predicates). -#}
{% macro _vulcan_unique_key_batch_spec(args) %}
  {%- set values = dbt_vulcan.vulcan_time_tokens(args.batch.start, args.batch.end, args.plan.execution_time) -%}
  {{ return(dbt_vulcan.vulcan_unique_key_spec(args.cfg, values, dbt_vulcan.vulcan_incremental_predicates(args.model))) }}
{% endmacro %}
