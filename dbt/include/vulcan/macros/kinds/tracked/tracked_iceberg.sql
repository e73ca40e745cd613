{#- tracked on Iceberg: the same MERGE as on Delta (tracked_delta.sql), one commit. -#}
{% macro vulcan_tracked_iceberg(args) %}
  {% do dbt_vulcan.vulcan_tracked_write(args, dbt_vulcan._vulcan_tracked_merge) %}
{% endmacro %}
