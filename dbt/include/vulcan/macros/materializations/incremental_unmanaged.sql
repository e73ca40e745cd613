{#- INCREMENTAL_UNMANAGED: every run appends the model's query result to the table, with no
    dedupe, no batches (batch_size is refused) and no interval state (time tokens span
    1970-01-01 .. now). A restatement is a full rebuild (--full-refresh), refused with
    disable_restatement or forward_only. Written with strategies/unmanaged.sql. -#}

{% materialization incremental_unmanaged, adapter='vulcan', supported_languages=['sql', 'python'] %}
  {%- set kind = 'incremental_unmanaged' -%}
  {%- set begin = vulcan_begin(kind) -%}
  {%- set cfg, target_relation, existing_relation = begin.cfg, begin.target_relation, begin.existing_relation -%}
  {%- set rebuild = begin.rebuild -%}
  {% do _vulcan_whole_table_only(kind) %}

  {{ run_hooks(pre_hooks) }}

  {% do vulcan_load_state() %}
  {%- set plan = adapter.vulcan_plan(model, kind, target_relation, rebuild, _vulcan_run_vars()) -%}
  {%- set schema_sql = adapter.vulcan_schema_sql(model, kind, compiled_code, plan.execution_time) -%}
  {%- set created = vulcan_prepare_target(target_relation, existing_relation, rebuild, plan, cfg, schema_sql) -%}
  {%- set projection = none -%}
  {%- if not created -%}
    {%- set projection = vulcan_apply_schema_change(target_relation, get_column_schema_from_query(schema_sql), cfg) -%}
  {%- endif -%}

  {% do vulcan_run_batches(kind, 'unmanaged', target_relation, plan, cfg, none, projection, 'append') %}

  {{ run_hooks(post_hooks) }}
  {% do persist_docs(target_relation, model) %}
  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
