{#- incremental_by_time_range on Iceberg: INSERT for a range that never held rows; otherwise the
    range is marked removed in the state log, deleted (metadata-only when partition-aligned),
    then inserted. A crash in between leaves the range missing; the next run recomputes it. -#}

{% macro vulcan_time_range_iceberg(args) %}
  {%- if args.dirty -%}
    {% do dbt_vulcan.vulcan_record_intervals(args.removed_rows) %}
    {% call statement('vulcan_delete_range') -%}
      delete from {{ args.relation }} where {{ args.filter }}
    {%- endcall %}
  {%- endif -%}
  {% call statement('main') -%}
    insert into {{ args.relation }} by name
    {{ args.sql }}
  {%- endcall %}
{% endmacro %}
