{#- incremental_by_time_range on Delta: one atomic `INSERT INTO ... REPLACE WHERE <range>`.
    Rows of the range that the batch no longer produces are removed in the same commit. The
    statement matches columns by position: the rows are selected in the table's order. -#}

{% macro vulcan_time_range_delta(args) %}
  {% call statement('main') -%}
    insert into {{ args.relation }} replace where {{ args.filter }}
    {{ dbt_vulcan.vulcan_in_table_order(args) }}
  {%- endcall %}
{% endmacro %}
