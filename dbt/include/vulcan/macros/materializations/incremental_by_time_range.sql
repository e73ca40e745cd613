{#- INCREMENTAL_BY_TIME_RANGE: the model's missing intervals (plus lookback) are computed from the
    interval state log, grouped into batches, and each batch is rendered with its time tokens,
    wrapped in the automatic output filter on `time_column`, written with the file format's
    strategy (strategies/time_range_<format>.sql) and then recorded as processed. -#}

{% materialization incremental_by_time_range, adapter='spark', supported_languages=['sql', 'python'] %}
  {%- set kind = 'incremental_by_time_range' -%}
  {%- set begin = dbt_vulcan.vulcan_begin(kind) -%}
  {%- set cfg, target_relation, existing_relation = begin.cfg, begin.target_relation, begin.existing_relation -%}
  {%- set rebuild = begin.rebuild -%}

  {{ run_hooks(pre_hooks) }}
  {%- set plan = dbt_vulcan.vulcan_model_plan(cfg, target_relation, rebuild, state=begin.state) -%}
  {%- set time_type = plan.time_type -%}
  {#- an enforced contract checked against the query (dbt's contract error), before anything
      is touched; the table is then created with the contract's columns (utils/contract.sql) -#}
  {%- set schema_sql = dbt_vulcan.vulcan_contract_query(dbt_vulcan.vulcan_model_query(kind, cfg, plan)) -%}
  {%- set query_columns = none -%}
  {%- if plan.rebuild or plan.fingerprint_changed or not time_type -%}
    {%- set query_columns = dbt_vulcan.vulcan_query_columns(schema_sql) -%}
    {#- the config against the query's columns: bad ones raise before anything is touched, and
        before the existing table's layout is compared (time_column sets the default
        partitioning: a misnamed one is reported as itself). A table without state is
        rebuilt (or refused) by the adoption below: its partition columns are checked too -#}
    {%- do dbt_vulcan.vulcan_check_columns(cfg, query_columns, plan.rebuild or not plan.has_state, dbt_vulcan.vulcan_partition_key(model)) -%}
    {%- set time_type = dbt_vulcan.vulcan_time_type(cfg, query_columns) -%}
  {%- endif -%}
  {%- set plan = dbt_vulcan.vulcan_adopt_existing(cfg, begin, plan) -%}
  {%- set rebuild = plan.rebuild -%}
  {#- static safety analysis of the SQL (sqlglot in the adapter, tokens in the package): refusals raise here, before
      anything is touched (not under --empty: dbt then rewrites every ref to `... limit 0`,
      and nothing is written); once per definition (utils/safety.sql) -#}
  {%- if not flags.EMPTY -%}
    {% do dbt_vulcan.vulcan_check_safety_once(cfg, compiled_code, plan) %}
  {%- endif -%}
  {%- set projection = none -%}

  {%- set created = dbt_vulcan.vulcan_prepare_target(target_relation, existing_relation, rebuild, plan, cfg, schema_sql) -%}
  {%- if not created and plan.fingerprint_changed -%}
    {%- set projection = dbt_vulcan.vulcan_apply_schema_change(target_relation, query_columns, cfg) -%}
  {%- endif -%}
  {%- set projection = dbt_vulcan.vulcan_contract_projection(target_relation, created, projection) -%}

  {% do dbt_vulcan.vulcan_run_batches(kind, 'time_range', target_relation, plan, cfg, time_type, projection) %}

  {{ run_hooks(post_hooks) }}
  {% do persist_docs(target_relation, model) %}
  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
