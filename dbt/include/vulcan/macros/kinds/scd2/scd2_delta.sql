{#- SCD type 2 on Delta: the changes (current rows to close, new versions to insert) are
    written to a small parquet stage table, then one MERGE applies them: it closes the
    current rows of changed (and, with invalidate_hard_deletes, deleted) keys and inserts
    their new versions; files holding only unchanged keys are not rewritten, and the MERGE is
    atomic. The stage is needed because Delta materializes a MERGE source that reads
    non-Delta tables or is not deterministic, and a materialized source cannot read the
    MERGE's own target ("Table does not support reads"); it also computes the changes once.
    A failure (e.g. a duplicate key) happens before the MERGE, with the table untouched.
    A table created by this run is simply filled (first batch). -#}

{% macro vulcan_scd2_delta(args) %}
  {%- set empty = args.created and args.batch.index == 1 -%}
  {%- if empty -%}
    {% call statement('main') -%}
      insert into {{ args.relation }}
      {{ dbt_vulcan.vulcan_scd_type_2_sql(args.scd2, 'rewrite', args.relation, args.sql, args.plan.execution_time, args.batch, true) }}
    {%- endcall %}
    {{ return(none) }}
  {%- endif -%}
  {%- set stage = dbt_vulcan.vulcan_stage_relation(args.relation, '__vulcan_changes') -%}
  {% do dbt_vulcan.vulcan_stage_create(stage, dbt_vulcan.vulcan_scd_type_2_sql(args.scd2, 'changes', args.relation, args.sql, args.plan.execution_time, args.batch)) %}
  {% call statement('main') -%}
    {{ dbt_vulcan.vulcan_scd_type_2_sql(args.scd2, 'merge', args.relation, stage | string) }}
  {%- endcall %}
  {% do dbt_vulcan.vulcan_stage_drop(stage) %}
{% endmacro %}
