{#- The state table: created once per invocation by the package's on-run-start hook
    (vulcan_create_state_table, in the root dbt_project.yml), so a model run reads it without
    checking first. -#}

{% macro vulcan_create_state_table() %}
  {{ return(adapter.dispatch('vulcan_create_state_table', 'dbt_vulcan')()) }}
{% endmacro %}

{% macro default__vulcan_create_state_table() %}
  {%- if execute -%}
    {%- for sql in dbt_vulcan.vulcan_create_state_table_sql() -%}
      {% do run_query(sql) %}
    {%- endfor -%}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}

{#- The `vulcan` adapter retries a CREATE that lost a race with another dbt process. -#}
{% macro vulcan__vulcan_create_state_table() %}
  {%- if execute -%}
    {% do adapter.vulcan_create_state_table(dbt_vulcan.vulcan_create_state_table_sql()) %}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}

{#- The statements that create the state table, or `relation` with the same columns and format
    (vulcan_compact's stage: `create table .. like` would not keep an Iceberg or Delta format). -#}
{% macro vulcan_create_state_table_sql(relation=none) %}
  {{ return(adapter.dispatch('vulcan_create_state_table_sql', 'dbt_vulcan')(relation)) }}
{% endmacro %}

{% macro default__vulcan_create_state_table_sql(relation=none) %}
  {%- set state = relation if relation is not none else dbt_vulcan.vulcan_state_relation() -%}
  {%- set file_format = dbt_vulcan.vulcan_state_file_format() -%}
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
