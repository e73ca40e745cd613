{#- The state table, created when missing: called before the state is read (a model's plan,
    every run-operation). dbt's relation cache answers after the first look: the first call of
    an invocation lists the state schema (one statement), or creates the table, and puts it in
    the cache, so later models issue nothing. -#}

{% macro vulcan_create_state_table() %}
  {{ return(adapter.dispatch('vulcan_create_state_table', 'dbt_vulcan')()) }}
{% endmacro %}

{% macro default__vulcan_create_state_table() %}
  {%- if execute -%}
    {%- set state = dbt_vulcan.vulcan_state_relation() -%}
    {%- do dbt_vulcan.vulcan_state_file_format() -%}  {#- a bad value is refused even when the table exists -#}
    {%- if adapter.get_relation(state.database, state.schema, state.identifier) is none -%}
      {% do dbt_vulcan._vulcan_run_create_state_table(dbt_vulcan.vulcan_create_state_table_sql()) %}
      {% do adapter.cache_added(state) %}
    {%- endif -%}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}

{% macro _vulcan_run_create_state_table(sqls) %}
  {{ return(adapter.dispatch('_vulcan_run_create_state_table', 'dbt_vulcan')(sqls)) }}
{% endmacro %}

{% macro default___vulcan_run_create_state_table(sqls) %}
  {%- for sql in sqls -%}
    {% do run_query(sql) %}
  {%- endfor -%}
{% endmacro %}

{#- The `vulcan` adapter retries a CREATE that lost a race with another dbt process. -#}
{% macro vulcan___vulcan_run_create_state_table(sqls) %}
  {% do adapter.vulcan_create_state_table(sqls) %}
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
