{#- dbt's is_incremental() is not dispatched: this line makes it true for dbt-vulcan's kinds
    too on stock type: spark / databricks (README, "Install as a dbt package"). -#}
{% macro is_incremental() %}{{ return(dbt_vulcan.is_incremental()) }}{% endmacro %}
