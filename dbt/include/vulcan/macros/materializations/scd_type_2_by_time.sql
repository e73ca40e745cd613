{#- SCD_TYPE_2_BY_TIME: history from an `updated_at` column (scd2/scd2.sql has
    the rules). Without `start` each run is one batch over the whole query; with `start` the
    intervals run one batch at a time, in order, and are tracked in the state log (a source
    that already holds history). Writes: strategies/scd2_<file_format>.sql.

    `_vulcan_scd2_materialization` below is shared with scd_type_2_by_column. -#}

{% materialization scd_type_2_by_time, adapter='spark', supported_languages=['sql', 'python'] %}
  {{ return(dbt_vulcan._vulcan_scd2_materialization('scd_type_2_by_time')) }}
{% endmaterialization %}

{% macro _vulcan_scd2_materialization(kind) %}
  {%- set begin = dbt_vulcan.vulcan_begin(kind) -%}
  {%- set cfg, target_relation, existing_relation = begin.cfg, begin.target_relation, begin.existing_relation -%}
  {%- set rebuild = begin.rebuild -%}

  {{ run_hooks(pre_hooks) }}
  {%- set run = dbt_vulcan.vulcan_run_vars(model.name) -%}
  {%- if run.start is not none -%}
    {#- history cannot be recomputed for a range: the run only processes what is due -#}
    {{ log('Model ' ~ model.name ~ ' (' ~ kind ~ ') ignores vulcan_start/vulcan_end: SCD type 2 history cannot be restated for a range (reset it with --full-refresh and disable_restatement: false).', info=True) }}
    {%- set run = {'execution_time': run.execution_time, 'start': none, 'end': none} -%}
  {%- endif -%}
  {%- set plan = dbt_vulcan.vulcan_adopt_existing(cfg, begin, dbt_vulcan.vulcan_model_plan(cfg, target_relation, rebuild, model, run, begin.state), run) -%}
  {#- a pending vulcan_restate (disable_restatement: false) rebuilds the whole history -#}
  {%- set rebuild = plan.rebuild -%}
  {#- an enforced contract checked against the query (dbt's contract error), before anything
      is touched; the table is then created with the contract's columns (utils/contract.sql) -#}
  {%- set schema_sql = dbt_vulcan.vulcan_contract_query(dbt_vulcan.vulcan_model_query(kind, cfg, plan)) -%}
  {%- set query_columns = dbt_vulcan.vulcan_query_columns(schema_sql) -%}
  {#- checks unique_key, updated_at_name, columns and the valid_* names against the query
      (scd2/scd2.sql), with the partition columns of a new table: every problem at once -#}
  {%- set scd2 = dbt_vulcan.vulcan_scd_type_2_model(cfg, query_columns) -%}
  {%- set table_columns = dbt_vulcan.vulcan_scd_type_2_table_columns(scd2.spec) -%}
  {%- do dbt_vulcan.vulcan_check_columns(cfg, table_columns, rebuild, dbt_vulcan.vulcan_partition_key(model), scd2.problems) -%}
  {%- set create_sql = dbt_vulcan.vulcan_scd_type_2_sql(scd2.spec, 'create', target_relation, schema_sql) -%}

  {%- set created = dbt_vulcan.vulcan_prepare_target(target_relation, existing_relation, rebuild, plan, cfg, create_sql) -%}
  {%- if not created -%}
    {#- checked on every run, not only when the model's code changed: a `select *` model
        sees its source's new columns without a code change -#}
    {%- set projection = dbt_vulcan.vulcan_apply_schema_change(target_relation, table_columns, cfg) -%}
    {%- if projection is not none -%}
      {{ exceptions.raise_compiler_error("Model '" ~ model.name ~ "' (" ~ kind ~ "): on_additive_change/on_destructive_change 'ignore' is not supported by SCD type 2 models; use allow, warn or error.") }}
    {%- endif -%}
  {%- endif -%}

  {% do dbt_vulcan.vulcan_run_batches(kind, 'scd2', target_relation, plan, cfg, cfg.time_data_type, none, 'merge', {'scd2': scd2.spec, 'created': created}) %}

  {{ run_hooks(post_hooks) }}
  {% do persist_docs(target_relation, model) %}
  {{ return({'relations': [target_relation]}) }}
{% endmacro %}
