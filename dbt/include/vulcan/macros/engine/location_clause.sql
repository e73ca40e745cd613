{#- The model's `location_root` clause, as the adapter defines it: dbt-spark's
    `location_clause()` reads the model's config; dbt-databricks' takes the model's catalog
    relation (`location_clause(relation)`). -#}
{% macro vulcan_location_clause() %}
  {{ return(adapter.dispatch('vulcan_location_clause', 'dbt_vulcan')()) }}
{% endmacro %}

{% macro default__vulcan_location_clause() %}
  {{ return(location_clause()) }}
{% endmacro %}

{% macro databricks__vulcan_location_clause() %}
  {{ return(location_clause(adapter.build_catalog_relation(config.model))) }}
{% endmacro %}
