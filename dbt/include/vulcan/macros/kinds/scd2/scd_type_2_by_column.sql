{#- SCD_TYPE_2_BY_COLUMN: history from comparing the watched `columns` ('*' = all) between runs;
    a change is stamped with the execution time, or with the `updated_at_name` column of a
    source that already holds history. Same steps as scd_type_2_by_time (vulcan_steps_scd2 in
    scd2_steps.sql); rules in scd2_sql.sql. -#}

{% materialization scd_type_2_by_column, adapter='spark', supported_languages=['sql', 'python'] %}
  {{ return(dbt_vulcan.vulcan_materialize('scd_type_2_by_column', dbt_vulcan.vulcan_steps_scd2())) }}
{% endmaterialization %}
