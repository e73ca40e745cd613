{% macro vulcan_create_state_table_sql() %}
  {{ return(adapter.dispatch('vulcan_create_state_table_sql', 'dbt')()) }}
{% endmacro %}

{% macro default__vulcan_create_state_table_sql() %}
  {%- set state = vulcan_state_relation() -%}
  {%- set file_format = var('vulcan_state_file_format', target.state_file_format or 'parquet') -%}
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
