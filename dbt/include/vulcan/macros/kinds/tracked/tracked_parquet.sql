{#- tracked on plain parquet tables, which cannot MERGE: the table's new content swapped in
    with INSERT OVERWRITE (the whole table). Without a window the stage of the query's groups
    is that content; with one, the table's rows of the groups that stay and the query's rows of
    the changed groups are staged together. The stage is marked for replay before the swap
    (engine/stage.sql). Nothing changed: nothing is written. The run: vulcan_tracked_write
    (tracked_write.sql); the SQL: tracked_sql.sql. -#}
{% macro vulcan_tracked_parquet(args) %}
  {% do dbt_vulcan.vulcan_tracked_write(args, dbt_vulcan._vulcan_tracked_overwrite) %}
{% endmacro %}

{% macro _vulcan_tracked_overwrite(args, spec, groups, changes) %}
  {%- if spec.window is none -%}
    {% do dbt_vulcan.vulcan_stage_mark(groups, 'overwrite') %}
    {% do dbt_vulcan.vulcan_swap_in_stage(args.relation, groups) %}
    {{ return(none) }}
  {%- endif -%}
  {%- set rewrite = dbt_vulcan.vulcan_tracked_rewrite_sql(spec, args.relation, groups, changes) -%}
  {% do dbt_vulcan.vulcan_overwrite_from_stage(args, rewrite.kept, rewrite.added) %}
{% endmacro %}
