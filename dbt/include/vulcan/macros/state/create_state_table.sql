{#- The package's on-run-start hook (README, package mode): in a run, build or retry that runs
    a model of one of the kinds, the state table is created (when missing) once, before dbt's
    threads start, which would otherwise race to create it; when two or more such models can
    start together (threads >= 2), the templates their runs call are compiled here once
    (engine/warm_templates.sql). It renders no SQL. -#}
{% macro vulcan_on_run_start() %}
  {%- if execute and flags.WHICH in ('run', 'build', 'retry') -%}
    {%- set kinds = dbt_vulcan.vulcan_kinds() -%}
    {%- set found = [] -%}
    {%- for unique_id in selected_resources if found | length < 2 -%}
      {%- set node = graph.nodes.get(unique_id) -%}
      {%- if node and node.resource_type == 'model' and node.config.materialized in kinds -%}
        {%- do found.append(unique_id) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- if found -%}
      {% do dbt_vulcan.vulcan_create_state_table() %}
    {%- endif -%}
    {%- if found | length > 1 and (target.threads or 1) | int > 1 -%}
      {% do dbt_vulcan.vulcan_warm_templates() %}
    {%- endif -%}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}

{#- The state table, created when missing: called before the state is read (a model's plan,
    every run-operation). dbt's relation cache answers after the first look: the hook above (or
    the first call of an invocation) lists the state schema (one statement), or creates the
    table, and puts it in the cache, so models issue nothing. -#}
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
