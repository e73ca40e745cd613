{#- tracked on Delta: the query's groups staged with their hashes and checked, the changed keys
    staged, then one MERGE deletes the replaced and removed groups' rows and inserts the new
    rows in one commit (files holding only unchanged groups are not rewritten). Nothing
    changed: nothing is written. A table created by this run is simply filled. The run:
    vulcan_tracked_write (tracked_write.sql); the SQL: tracked_sql.sql. -#}
{% macro vulcan_tracked_delta(args) %}
  {% do dbt_vulcan.vulcan_tracked_write(args, dbt_vulcan._vulcan_tracked_merge) %}
{% endmacro %}

{% macro _vulcan_tracked_merge(args, spec, groups, changes) %}
  {% call statement('main') -%}
    {{ dbt_vulcan.vulcan_tracked_merge_sql(spec, args.relation, groups, changes) }}
  {%- endcall %}
{% endmacro %}
