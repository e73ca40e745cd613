{#- incremental_by_time_range on Iceberg: INSERT into a table this run created (its ranges are
    empty); otherwise the range is deleted (metadata-only when partition-aligned), then
    inserted. The delete runs whether or not the log says the range held rows: a batch written
    by a run that stopped before recording it holds rows the log does not know of, and the
    rerun must replace them, not add to them. When the range was recorded, it is first marked
    removed in the state log: a crash between the delete and the insert leaves it missing, and
    the next run recomputes it. -#}

{% macro vulcan_time_range_iceberg(args) %}
  {%- if args.dirty -%}
    {% do dbt_vulcan.vulcan_record_intervals(args.removed_rows) %}
  {%- endif -%}
  {%- if args.dirty or not args.created -%}
    {% call statement('vulcan_delete_range') -%}
      delete from {{ args.relation }} where {{ args.filter }}
    {%- endcall %}
  {%- endif -%}
  {% call statement('main') -%}
    insert into {{ args.relation }} by name
    {{ args.sql }}
  {%- endcall %}
{% endmacro %}
