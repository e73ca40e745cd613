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
