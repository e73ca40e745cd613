{#- dbt's is_incremental() is true only for materialized='incremental'. dbt-vulcan's incremental
    kinds count too: true when the target table exists and the run is not a full refresh. With
    the virtual layer (`vulcan_virtual`) a dbt-vulcan model's relation is a view over its
    version's table: the view counts as its table. -#}
{% macro is_incremental() %}
  {% if not execute %}
    {{ return(False) }}
  {% endif %}
  {% set relation = adapter.get_relation(this.database, this.schema, this.table) %}
  {% set kinds = ['incremental'] + dbt_vulcan.vulcan_kinds() %}
  {%- set virtual_view = relation is not none and relation.type == 'view' and model.config.materialized in dbt_vulcan.vulcan_kinds() and dbt_vulcan.vulcan_virtual() -%}
  {{ return(relation is not none
            and (relation.type == 'table' or virtual_view)
            and model.config.materialized in kinds
            and not should_full_refresh()) }}
{% endmacro %}
