{#- The package's on-run-start hook (README, package mode): in a run, build or retry that runs
    a model of one of the kinds, the state table is created (when missing) once, before dbt's
    threads start, which would otherwise race to create it, and the templates the models'
    runs call are compiled here once (engine/warm_templates.sql; with --full-refresh, those
    of a rebuild too): the process's compile is counted once in its wall, not in the first
    model's time, and threads that start together do not each compile the same templates.
    It renders no SQL. -#}
{% macro vulcan_on_run_start() %}
  {%- if execute and flags.WHICH in ('run', 'build', 'retry') -%}
    {%- set kinds = dbt_vulcan.vulcan_kinds() -%}
    {%- set found = [] -%}
    {%- for unique_id in selected_resources if not found -%}
      {%- set node = graph.nodes.get(unique_id) -%}
      {%- if node and node.resource_type == 'model' and node.config.materialized in kinds -%}
        {%- do found.append(unique_id) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- if found -%}
      {% do dbt_vulcan.vulcan_create_state_table() %}
      {% do dbt_vulcan.vulcan_warm_templates(rebuild=flags.FULL_REFRESH) %}
    {%- endif -%}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}
