{#- SCD type 2 on Iceberg: one MERGE whose source is the changes query (current rows to
    close, new versions to insert): it closes the current rows of changed (and, with
    invalidate_hard_deletes, deleted) keys and inserts their new versions, in one atomic
    snapshot; files holding only unchanged keys are not rewritten. A failure (e.g. a
    duplicate key) writes nothing. A table created by this run is simply filled (first
    batch). -#}

{% macro vulcan_scd2_iceberg(args) %}
  {%- set empty = args.created and args.batch.index == 1 -%}
  {% call statement('main') -%}
    {%- if empty %}
    insert into {{ args.relation }}
    {{ dbt_vulcan.vulcan_scd_type_2_sql(args.scd2, 'rewrite', args.relation, args.sql, args.plan.execution_time, args.batch, true) }}
    {%- else %}
    {{ dbt_vulcan.vulcan_scd_type_2_sql(args.scd2, 'merge', args.relation, '(\n' ~ dbt_vulcan.vulcan_scd_type_2_sql(args.scd2, 'changes', args.relation, args.sql, args.plan.execution_time, args.batch) ~ '\n)') }}
    {%- endif %}
  {%- endcall %}
{% endmacro %}
