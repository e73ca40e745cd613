{#- The statements that create the state table, or `relation` with the same columns and format
    (vulcan_compact's stage: `create table .. like` would not keep an Iceberg or Delta format). -#}
{% macro vulcan_create_state_table_sql(relation=none) %}
  {{ return(adapter.dispatch('vulcan_create_state_table_sql', 'dbt_vulcan')(relation)) }}
{% endmacro %}

{% macro default__vulcan_create_state_table_sql(relation=none) %}
  {%- set state = relation if relation is not none else vulcan_state_relation() -%}
  {%- set file_format = vulcan_state_file_format() -%}
  {%- set create_schema -%}
    create schema if not exists {{ state.schema }}
  {%- endset -%}
  {%- set create_table -%}
    create table if not exists {{ state }} (
      relation string,
      model_id string,
      interval_start string,
      interval_end string,
      row_type string,
      fingerprint string,
      invocation_id string,
      recorded_at string,
      seq int,
      details string
    ) using {{ file_format }}
  {%- endset -%}
  {{ return([create_schema, create_table]) }}
{% endmacro %}
