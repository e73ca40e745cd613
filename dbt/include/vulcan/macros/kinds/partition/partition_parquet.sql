{#- incremental_by_partition on plain parquet tables: INSERT OVERWRITE with the table's own
    dynamic partition overwrite option (set when the kind creates the table) replaces exactly
    the partitions the query's rows fall in; every other partition is left as it is.
    A query that reads the target table itself is staged first (Spark cannot overwrite a
    table it is reading). -#}

{% macro vulcan_partition_parquet(args) %}
  {%- if args.relation.render() not in args.sql -%}
    {% call statement('main') -%}
      insert overwrite table {{ args.relation }} by name
      {{ args.sql }}
    {%- endcall %}
    {{ return(none) }}
  {%- endif -%}
  {% do dbt_vulcan.vulcan_overwrite_from_stage(args, args.sql) %}
{% endmacro %}
