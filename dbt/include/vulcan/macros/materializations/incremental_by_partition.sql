{#- INCREMENTAL_BY_PARTITION: each run computes the model's query once and, for every
    partition key (the values of `partitioned_by`) the result holds, replaces ALL the table's
    rows of that key; keys absent from the result are left untouched, new keys are inserted.
    No interval state: the query runs in full every time (time tokens span 1970-01-01 .. now).
    A restatement is a full rebuild (--full-refresh, or vulcan_restate whose range is widened
    to the whole history: the next run rebuilds), refused with disable_restatement or
    forward_only. Written with strategies/partition_<format>.sql. -#}

{% materialization incremental_by_partition, adapter='spark', supported_languages=['sql', 'python'] %}
  {{ return(dbt_vulcan._vulcan_whole_table_materialization('incremental_by_partition', 'partition', 'replace partitions')) }}
{% endmaterialization %}

{#- The kinds without interval state (incremental_by_partition, incremental_unmanaged): each run
    computes the whole query once and hands it to the kind's strategy. -#}
{% macro _vulcan_whole_table_materialization(kind, strategy_kind, action) %}
  {%- set begin = dbt_vulcan.vulcan_begin(kind) -%}
  {%- set cfg, target_relation, existing_relation = begin.cfg, begin.target_relation, begin.existing_relation -%}
  {%- set rebuild = begin.rebuild -%}
  {% do dbt_vulcan._vulcan_whole_table_only(kind) %}

  {{ run_hooks(pre_hooks) }}
  {%- set plan = dbt_vulcan.vulcan_adopt_existing(cfg, begin, dbt_vulcan.vulcan_model_plan(cfg, target_relation, rebuild, state=begin.state)) -%}
  {%- set rebuild = plan.rebuild -%}  {#- a pending vulcan_restate rebuilds too -#}
  {%- if strategy_kind == 'partition' and not rebuild -%}
    {% do dbt_vulcan._vulcan_check_partition_layout(target_relation, cfg) %}
  {%- endif -%}
  {#- an enforced contract checked against the query (dbt's contract error), before anything
      is touched; the table is then created with the contract's columns (utils/contract.sql) -#}
  {%- set schema_sql = dbt_vulcan.vulcan_contract_query(dbt_vulcan.vulcan_model_query(kind, cfg, plan)) -%}
  {#- one schema read: the partition columns of a new table checked before anything is
      touched; on an existing table, the schema change -#}
  {%- set query_columns = dbt_vulcan.vulcan_query_columns(schema_sql) -%}
  {%- do dbt_vulcan.vulcan_check_columns(cfg, query_columns, rebuild, dbt_vulcan.vulcan_partition_key(model)) -%}
  {%- set created = dbt_vulcan.vulcan_prepare_target(target_relation, existing_relation, rebuild, plan, cfg, schema_sql) -%}
  {%- set projection = none -%}
  {%- if not created -%}
    {%- set projection = dbt_vulcan.vulcan_apply_schema_change(target_relation, query_columns, cfg) -%}
  {%- endif -%}
  {%- set projection = dbt_vulcan.vulcan_contract_projection(target_relation, created, projection) -%}

  {% do dbt_vulcan.vulcan_run_batches(kind, strategy_kind, target_relation, plan, cfg, none, projection, action) %}

  {{ run_hooks(post_hooks) }}
  {% do persist_docs(target_relation, model) %}
  {{ return({'relations': [target_relation]}) }}
{% endmacro %}

{#- The kinds without interval state recompute their whole query; a range given with
    vulcan_start/vulcan_end does not apply to them (a restatement is --full-refresh). -#}
{% macro _vulcan_whole_table_only(kind) %}
  {%- if var('vulcan_start', none) or var('vulcan_end', none) -%}
    {{ log('Note: ' ~ model.name ~ ' (' ~ kind ~ ') has no time intervals: vulcan_start/vulcan_end do not apply to it; restate it with --full-refresh.', info=True) }}
  {%- endif -%}
{% endmacro %}

{#- An existing table must have the layout this kind writes into, else a partition overwrite
    would replace the wrong rows (a plain parquet INSERT OVERWRITE replaces the whole table):
    same file format, partitioned by exactly `partitioned_by`, and for parquet the per-table
    dynamic partition overwrite option. Checked before anything is written. -#}
{% macro _vulcan_check_partition_layout(relation, cfg) %}
  {%- set layout = dbt_vulcan.vulcan_table_layout(run_query('describe table extended ' ~ relation).rows) -%}
  {%- set ns = namespace(partitions=layout.partition_cols | map('lower') | list, provider=layout.provider, dynamic=layout.dynamic_overwrite) -%}
  {%- set wanted = cfg.partition_cols | map('lower') | list -%}
  {%- set problems = [] -%}
  {%- if ns.provider and ns.provider != cfg.file_format -%}
    {%- do problems.append('it is a ' ~ ns.provider ~ ' table but file_format is ' ~ cfg.file_format) -%}
  {%- endif -%}
  {%- if ns.partitions | sort != wanted | sort -%}
    {%- do problems.append('it is partitioned by (' ~ ns.partitions | join(', ') ~ ') but partitioned_by is (' ~ wanted | join(', ') ~ ')') -%}
  {%- elif cfg.file_format == 'parquet' and not ns.dynamic -%}
    {%- do problems.append('it lacks the table option partitionOverwriteMode=dynamic (it was not created by incremental_by_partition), so an INSERT OVERWRITE would replace the whole table') -%}
  {%- endif -%}
  {%- if problems -%}
    {{ exceptions.raise_compiler_error("Model '" ~ model.name ~ "' (incremental_by_partition): the existing table " ~ relation ~ " cannot be updated by partition: " ~ problems | join('; ') ~ ". Nothing was written. Rebuild it with --full-refresh (this recomputes the whole table).") }}
  {%- endif -%}
{% endmacro %}
