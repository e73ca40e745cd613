{#- incremental_unmanaged on iceberg: the append (INSERT INTO ... BY NAME, the same statement on every
    format: incremental_unmanaged.sql). -#}
{% macro vulcan_unmanaged_iceberg(args) %}{% do dbt_vulcan._vulcan_unmanaged_append(args) %}{% endmacro %}
