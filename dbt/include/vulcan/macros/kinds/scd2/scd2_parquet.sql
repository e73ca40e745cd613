{#- SCD type 2 on plain parquet tables, which cannot MERGE or UPDATE: a staged rewrite. The
    table's complete new content (stored rows, closed where due, plus the new versions) is
    written to a stage table first, since Spark cannot overwrite a table it reads from in
    the same statement, then swapped in with INSERT OVERWRITE. A failure before the overwrite
    (e.g. a duplicate key) leaves the table untouched. A table created by this run is simply
    filled (first batch). -#}

{% macro vulcan_scd2_parquet(args) %}
  {%- set empty = args.created and args.batch.index == 1 -%}
  {%- set content = dbt_vulcan.vulcan_scd_type_2_sql(args.scd2, 'rewrite', args.relation, args.sql, args.plan.execution_time, args.batch, empty) -%}
  {%- if empty -%}
    {% call statement('main') -%}
      insert into {{ args.relation }} by name
      {{ content }}
    {%- endcall %}
    {{ return(none) }}
  {%- endif -%}
  {% do dbt_vulcan.vulcan_overwrite_from_stage(args, content) %}
{% endmacro %}
