{#- The state table, created when missing: called before the state is read (a model's plan,
    every run-operation). dbt's relation cache answers after the first look: the run's hook
    (engine/on_run_start.sql, or the first call of an invocation) lists the state schema (one
    statement), or creates the table, and puts it in the cache, so models issue nothing. -#}
{% macro vulcan_create_state_table() %}
  {%- if execute -%}
    {%- set state = dbt_vulcan.vulcan_state_relation() -%}
    {%- do dbt_vulcan.vulcan_state_file_format() -%}  {#- a bad value is refused even when the table exists -#}
    {%- set found = adapter.get_relation(state.database, state.schema, state.identifier) -%}
    {%- if found is none -%}
      {% do dbt_vulcan._vulcan_run_create_state_table(dbt_vulcan.vulcan_create_state_table_sql()) %}
    {%- endif -%}
    {#- cached either way: dbt lists a schema it has not cached on every lookup -#}
    {% do adapter.cache_added(found or state) %}
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
