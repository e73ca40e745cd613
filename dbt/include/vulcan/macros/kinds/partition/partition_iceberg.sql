{#- incremental_by_partition on Iceberg: one atomic INSERT OVERWRITE with the write option
    overwrite-mode=dynamic, so only the partitions the query's rows fall in are replaced
    (the session's static default would replace the whole table). -#}

{% macro vulcan_partition_iceberg(args) %}
  {% call statement('main') -%}
    insert overwrite table {{ args.relation }} with ('overwrite-mode' = 'dynamic') by name
    {{ args.sql }}
  {%- endcall %}
{% endmacro %}
