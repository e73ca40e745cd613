{#- incremental_unmanaged on parquet: the append (INSERT INTO ... BY NAME, the same statement on every
    format: incremental_unmanaged.sql). -#}
{% macro vulcan_unmanaged_parquet(args) %}{% do dbt_vulcan._vulcan_unmanaged_append(args) %}{% endmacro %}
