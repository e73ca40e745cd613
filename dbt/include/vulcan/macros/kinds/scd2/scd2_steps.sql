{#- The steps of both SCD type 2 kinds (scd_type_2_by_time.sql, scd_type_2_by_column.sql) for
    engine/materialize.sql. -#}
{% macro vulcan_steps_scd2() %}
  {{ return({
    'strategy': 'scd2',
    'action': 'merge',
    'run_vars': dbt_vulcan._vulcan_scd2_run_vars,
    'check': dbt_vulcan._vulcan_scd2_check,
    'schema_change': 'every_run',
    'project': dbt_vulcan._vulcan_scd2_project,
  }) }}
{% endmacro %}

{#- History cannot be recomputed for a range: the run only processes what is due. A range from
    vulcan_start/vulcan_end says so in one line; dbt's --event-time-start/--event-time-end (the
    window a scheduler passes to a whole project) apply to the kinds with intervals only, as
    they apply to microbatch models only in dbt. -#}
{% macro _vulcan_scd2_run_vars(cfg) %}
  {%- set run = dbt_vulcan.vulcan_run_vars(model.name) -%}
  {%- if run.start is not none -%}
    {%- if run.range_from == 'vars' -%}{{ log('Model ' ~ model.name ~ ' (' ~ cfg.kind ~ ') ignores vulcan_start/vulcan_end: SCD type 2 history cannot be restated for a range (reset it with --full-refresh and disable_restatement: false).', info=True) }}{%- endif -%}
    {%- set run = {'execution_time': run.execution_time, 'start': none, 'end': none, 'range_from': none} -%}
  {%- endif -%}
  {{ return(run) }}
{% endmacro %}

{#- unique_key, updated_at_name, columns and the valid_* names against the query (scd2_sql.sql),
    with the partition columns of a new table: every problem at once. The table's columns (the
    query's and the valid_* ones) are compared with an existing table's on every run: a
    `select *` model sees its source's new columns without a code change. -#}
{% macro _vulcan_scd2_check(cfg, begin, plan, schema_sql) %}
  {%- set query_columns = dbt_vulcan.vulcan_query_columns(schema_sql) -%}
  {%- set scd2 = dbt_vulcan.vulcan_scd_type_2_model(cfg, query_columns) -%}
  {%- set table_columns = dbt_vulcan.vulcan_scd_type_2_table_columns(scd2.spec) -%}
  {%- do dbt_vulcan.vulcan_check_columns(cfg, table_columns, plan.rebuild, dbt_vulcan.vulcan_partition_key(model), scd2.problems) -%}
  {{ return({
    'query_columns': table_columns,
    'time_type': cfg.time_data_type,
    'create_sql': dbt_vulcan.vulcan_scd_type_2_sql(scd2.spec, 'create', begin.target_relation, schema_sql),
    'extra': {'scd2': scd2.spec},
  }) }}
{% endmacro %}

{#- An SCD type 2 table keeps every column it had: a schema change that would leave columns out
    of the insert (on_*_change 'ignore') is refused. -#}
{% macro _vulcan_scd2_project(cfg, relation, created, projection) %}
  {%- if projection is not none -%}
    {{ exceptions.raise_compiler_error("Model '" ~ model.name ~ "' (" ~ cfg.kind ~ "): on_additive_change/on_destructive_change 'ignore' is not supported by SCD type 2 models; use allow, warn or error.") }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}
