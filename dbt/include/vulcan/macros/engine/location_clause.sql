{#- The model's `location_root` clause, as the adapter defines it: dbt-spark's
    `location_clause()` reads the model's config; dbt-databricks' takes the model's catalog
    relation (`location_clause(relation)`). With the virtual layer a model has a table per
    version: each in its own folder, `<location_root>/<the physical table's name>`. -#}
{% macro vulcan_location_clause(relation=none) %}
  {%- set root = config.get('location_root') -%}
  {%- if root and relation is not none and dbt_vulcan.vulcan_virtual() -%}
    {{ return("location '" ~ root ~ '/' ~ relation.identifier ~ "'") }}
  {%- endif -%}
  {{ return(adapter.dispatch('vulcan_location_clause', 'dbt_vulcan')()) }}
{% endmacro %}

{% macro default__vulcan_location_clause() %}
  {{ return(location_clause()) }}
{% endmacro %}

{% macro databricks__vulcan_location_clause() %}
  {{ return(location_clause(adapter.build_catalog_relation(config.model))) }}
{% endmacro %}
