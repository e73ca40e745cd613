{#- dbt's is_incremental() is true only for materialized='incremental'. dbt-vulcan's incremental
    kinds count too: true when the target table exists and the run is not a full refresh. -#}
{% macro is_incremental() %}
  {% if not execute %}
    {{ return(False) }}
  {% endif %}
  {% set relation = adapter.get_relation(this.database, this.schema, this.table) %}
  {% set kinds = ['incremental'] + dbt_vulcan.vulcan_kinds() %}
  {{ return(relation is not none
            and relation.type == 'table'
            and model.config.materialized in kinds
            and not should_full_refresh()) }}
{% endmacro %}
