{#- dbt's unit tests and `dbt show` on dbt-vulcan's kinds under the `vulcan` adapter, with no
    dispatch block: the package's overrides (macros/native/native_sql.sql, which the package
    mode reaches as `spark__` through the project's dispatch block), as `vulcan__`. -#}
{% macro vulcan__get_unit_test_sql(main_sql, expected_fixture_sql, expected_column_names) %}{{ return(dbt_vulcan.vulcan_native_unit_test_sql(main_sql, expected_fixture_sql, expected_column_names)) }}{% endmacro %}
{% macro vulcan__get_empty_subquery_sql(select_sql, select_sql_header=none) %}{{ return(dbt_vulcan.vulcan_native_empty_subquery_sql(select_sql, select_sql_header)) }}{% endmacro %}
{% macro vulcan__get_limit_sql(sql, limit) %}{{ return(dbt_vulcan.vulcan_native_limit_sql(sql, limit)) }}{% endmacro %}
