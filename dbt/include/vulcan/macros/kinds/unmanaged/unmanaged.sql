{#- incremental_unmanaged: every run appends the query's rows (INSERT INTO ... BY NAME); no
    dedupe, no update, no delete. The statement is the same on every table format. -#}

{% macro vulcan_unmanaged_parquet(args) %}{% do dbt_vulcan._vulcan_unmanaged_append(args) %}{% endmacro %}

{% macro vulcan_unmanaged_delta(args) %}{% do dbt_vulcan._vulcan_unmanaged_append(args) %}{% endmacro %}

{% macro vulcan_unmanaged_iceberg(args) %}{% do dbt_vulcan._vulcan_unmanaged_append(args) %}{% endmacro %}

{% macro _vulcan_unmanaged_append(args) %}
  {% call statement('main') -%}
    insert into {{ args.relation }} by name
    {{ args.sql }}
  {%- endcall %}
{% endmacro %}
