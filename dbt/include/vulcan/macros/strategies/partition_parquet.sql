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
  {%- set stage = args.relation.incorporate(path={'identifier': args.relation.identifier ~ '__vulcan_stage'}) -%}
  {% call statement('vulcan_stage_drop') %}drop table if exists {{ stage }}{% endcall %}
  {% call statement('vulcan_stage') -%}
    create table {{ stage }} using parquet as
    {{ args.sql }}
  {%- endcall %}
  {% call statement('main') -%}
    insert overwrite table {{ args.relation }} by name select * from {{ stage }}
  {%- endcall %}
  {% call statement('vulcan_stage_drop') %}drop table if exists {{ stage }}{% endcall %}
{% endmacro %}
