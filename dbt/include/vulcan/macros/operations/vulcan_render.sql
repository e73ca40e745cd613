{#- dbt run-operation vulcan_render --args '{select: daily_sales, start: ..., end: ...}'
    Prints the exact SQL of each batch the next run (with the same range) executes: time tokens
    substituted and the automatic output filter applied. Reads the model's compiled SQL from
    target/compiled, so run `dbt compile -s <model>` first. -#}
{% macro vulcan_render(select=none, start=none, end=none, execution_time=none) %}
  {{ return(adapter.dispatch('vulcan_render', 'dbt_vulcan')(select, start, end, execution_time)) }}
{% endmacro %}

{% macro default__vulcan_render(select, start, end, execution_time) %}
  {%- set found = dbt_vulcan._vulcan_operation_models(select) -%}
  {%- set run = dbt_vulcan.vulcan_run_vars(none, {'vulcan_start': start, 'vulcan_end': end, 'vulcan_execution_time': execution_time}) -%}
  {%- for node in found.nodes -%}
    {%- set kind = node.config.materialized -%}
    {%- set relation = {'schema': node.schema, 'identifier': node.alias} -%}
    {%- set cfg = dbt_vulcan.vulcan_settings(node, kind) -%}
    {%- set plan = dbt_vulcan.vulcan_model_plan(cfg, relation, not found.exists[node.unique_id], node, run) -%}
    {%- set compiled = adapter.vulcan_compiled_code(node) -%}
    {%- set time_type = plan.time_type or node.config.get('time_data_type') or 'date' -%}
    {{ print('-- ' ~ node.name ~ ' [' ~ kind ~ ']: ' ~ plan.batches | length ~ ' batch(es)') }}
    {%- if node.language == 'python' -%}
      {#- its SQL is a view of the DataFrame model() returns: only a run computes it -#}
      {{ print('-- a Python model: each batch calls model(dbt, session) with dbt.vulcan set to: ' ~ plan.batches | map(attribute='label') | join(', ')) }}
    {%- endif -%}
    {%- for batch in (plan.batches if node.language != 'python' else []) -%}
      {%- set rendered = dbt_vulcan.vulcan_batch_query(compiled, cfg, batch, time_type, plan.execution_time) -%}
      {{ print('-- [' ~ batch.index ~ '/' ~ batch.count ~ '] ' ~ batch.label) }}
      {{ print(rendered.sql ~ ';') }}
    {%- endfor -%}
  {%- endfor -%}
{% endmacro %}
