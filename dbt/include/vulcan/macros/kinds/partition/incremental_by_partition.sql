{#- INCREMENTAL_BY_PARTITION: each run computes the model's query once and, for every
    partition key (the values of `partitioned_by`) the result holds, replaces ALL the table's
    rows of that key; keys absent from the result are left untouched, new keys are inserted.
    No interval state: the query runs in full every time (time tokens span 1970-01-01 .. now).
    A restatement is a full rebuild (--full-refresh, or vulcan_restate whose range is widened
    to the whole history: the next run rebuilds), refused with disable_restatement or
    forward_only. Written with partition_<format>.sql beside this file; the run's life:
    engine/materialize.sql, with the steps of the kinds without interval state
    (engine/whole_table.sql). -#}

{% materialization incremental_by_partition, adapter='spark', supported_languages=['sql', 'python'] %}
  {{ return(dbt_vulcan.vulcan_materialize('incremental_by_partition', dbt_vulcan.vulcan_steps_partition())) }}
{% endmaterialization %}

{#- The partition kind's steps for engine/materialize.sql. -#}
{% macro vulcan_steps_partition() %}
  {{ return(dbt_vulcan.vulcan_whole_table_steps('partition', 'replace partitions', dbt_vulcan._vulcan_partition_check)) }}
{% endmacro %}

{#- The table's layout is described on a table this definition has not written yet: a log
    whose layout is the config's (checked by vulcan_adopt_existing, engine/begin.sql) was
    written by runs that checked it, so a steady run describes nothing (the table is only
    altered by runs of the model, as engine/schema_change.sql assumes of its columns). -#}
{% macro _vulcan_partition_check(cfg, begin, plan, schema_sql) %}
  {%- set logged = plan.has_state and not plan.fingerprint_changed and plan.layout == dbt_vulcan.vulcan_layout(cfg) -%}
  {%- set layout = none if plan.rebuild or logged else dbt_vulcan._vulcan_check_partition_layout(begin.target_relation, cfg) -%}
  {%- set checked = dbt_vulcan.vulcan_whole_table_check(cfg, begin, plan, schema_sql) -%}
  {#- the layout check's description gives the table's columns too (engine/in_table_order.sql) -#}
  {%- if layout is not none -%}{%- do checked.update({'extra': {'table_columns': layout.columns}}) -%}{%- endif -%}
  {{ return(checked) }}
{% endmacro %}

{#- An existing table must have the layout this kind writes into, else a partition overwrite
    would replace the wrong rows (a plain parquet INSERT OVERWRITE replaces the whole table):
    same file format, partitioned by exactly `partitioned_by`, and for parquet the per-table
    dynamic partition overwrite option. Checked before anything is written. Returns the
    table's description (engine/describe.sql, vulcan_table_layout). -#}
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
  {{ return(layout) }}
{% endmacro %}
