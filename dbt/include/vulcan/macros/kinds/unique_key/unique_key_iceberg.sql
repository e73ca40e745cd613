{#- incremental_by_unique_key on Iceberg: one MERGE per batch (matched: update every column, or
    the `when_matched` clauses; not matched: insert). Duplicate keys in the batch fail the MERGE
    before it commits. The first batch into a just-created table is a plain INSERT. The
    statement is the Delta one (_vulcan_unique_key_merge in unique_key_delta.sql). -#}

{% macro vulcan_unique_key_iceberg(args) %}
  {% do dbt_vulcan._vulcan_unique_key_merge(args) %}
{% endmacro %}
