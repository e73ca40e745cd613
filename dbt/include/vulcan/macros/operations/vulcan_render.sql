{#- dbt run-operation vulcan_render --args '{select: daily_sales, start: ..., end: ...}'
    Prints the exact SQL of each batch the next run (with the same range) executes: time tokens
    substituted and the automatic output filter applied, from the model's compiled SQL
    (vulcan_compiled_code: the model's code rendered here, as dbt compile renders it). -#}
{% macro vulcan_render(select=none, start=none, end=none, execution_time=none) %}
  {%- set found = dbt_vulcan._vulcan_operation_models(select) -%}
  {%- set run = dbt_vulcan.vulcan_run_vars(none, {'vulcan_start': start, 'vulcan_end': end, 'vulcan_execution_time': execution_time}) -%}
  {%- for node in found.nodes -%}
    {%- set kind = node.config.materialized -%}
    {%- set relation = {'schema': node.schema, 'identifier': node.alias or node.name} -%}
    {%- set cfg = dbt_vulcan.vulcan_settings(node, kind) -%}
    {%- set plan = dbt_vulcan.vulcan_model_plan(cfg, relation, not found.exists[node.unique_id], node, run) -%}
    {%- set time_type = plan.time_type or node.config.get('time_data_type') or 'date' -%}
    {{ print('-- ' ~ node.name ~ ' [' ~ kind ~ ']: ' ~ plan.batches | length ~ ' batch(es)') }}
    {%- if node.language == 'python' -%}
      {#- its SQL is a view of the DataFrame model() returns: only a run computes it -#}
      {{ print('-- a Python model: each batch calls model(dbt, session) with dbt.vulcan set to: ' ~ plan.batches | map(attribute='label') | join(', ')) }}
    {%- else -%}
      {%- set compiled = dbt_vulcan.vulcan_compiled_code(node) -%}
      {%- for batch in plan.batches -%}
        {%- set rendered = dbt_vulcan.vulcan_batch_query(compiled, cfg, batch, time_type, plan.execution_time) -%}
        {{ print('-- [' ~ batch.index ~ '/' ~ batch.count ~ '] ' ~ batch.label) }}
        {{ print(rendered.sql ~ ';') }}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}

{#- A model's compiled SQL. A run-operation's graph holds none (it is parsed, not compiled),
    and a macro cannot read target/compiled: the model's code is rendered here, in the
    operation's context, as dbt compile renders it (ref, source, var and config resolve the
    same; `this` is the model's relation; a ref to an ephemeral model is refused by dbt).
    Where dbt offers no `render`, an error asks for `dbt compile`. -#}
{% macro vulcan_compiled_code(node) %}
  {%- if node.compiled_code -%}
    {{ return(node.compiled_code) }}
  {%- endif -%}
  {%- if render is defined and node.raw_code is defined -%}
    {%- set args = [] -%}
    {%- for name, value in [('database', node.database), ('schema', node.schema), ('identifier', node.alias or node.name)] -%}
      {%- do args.append(name ~ '=' ~ ('none' if value is none else tojson(value | string))) -%}
    {%- endfor -%}
    {%- set this_sql = '{%- set this = api.Relation.create(' ~ args | join(', ') ~ ", type='table') %}" -%}
    {{ return(render(this_sql ~ node.raw_code)) }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error("No compiled SQL for model '" ~ node.name ~ "': run `dbt compile -s " ~ node.name ~ "` first") }}
{% endmacro %}
