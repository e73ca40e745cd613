{#- incremental_unmanaged on delta: the append (INSERT INTO ... BY NAME, the same statement on every
    format: incremental_unmanaged.sql). -#}
{% macro vulcan_unmanaged_delta(args) %}{% do dbt_vulcan._vulcan_unmanaged_append(args) %}{% endmacro %}
