{#- dbt's is_incremental(), overridden: it is not dispatched, so
    the adapter (whose macros come before dbt's) points it at the package's, which also counts
    dbt-vulcan's kinds. On type: spark / databricks a project adds the same one line
    (README, "Install as a dbt package"). -#}
{% macro is_incremental() %}{{ return(dbt_vulcan.is_incremental()) }}{% endmacro %}
