{#- INCREMENTAL_BY_UNIQUE_KEY: an upsert on `unique_key` (columns or SQL expressions). Each batch
    inserts rows with new keys, updates rows whose key matches (every column, or as the
    `when_matched` clauses say) and leaves rows whose key it lacks alone; `merge_filter` narrows
    the match. Batches come from the shared planner: with `start` they are tracked intervals
    (time tokens render per batch), without it one untracked batch. Restatement is full-history
    only (vulcan_restate widens it; the next run rebuilds). The first batch after a (re)build is
    a plain INSERT. Rules: unique_key_spec.sql (columns: unique_key_columns.sql); SQL: unique_key_sql.sql (their test oracle: tests/oracle/unique_key.py);
    writes: unique_key_<file_format>.sql, all beside this file; the run's life: engine/materialize.sql. -#}

{% materialization incremental_by_unique_key, adapter='spark', supported_languages=['sql', 'python'] %}
  {{ return(dbt_vulcan.vulcan_materialize('incremental_by_unique_key', dbt_vulcan.vulcan_steps_unique_key())) }}
{% endmaterialization %}

{#- The unique key kind's steps for engine/materialize.sql. -#}
{% macro vulcan_steps_unique_key() %}
  {{ return({
    'strategy': 'unique_key',
    'action': 'upsert',
    'validate': dbt_vulcan._vulcan_unique_key_validate,
    'check': dbt_vulcan._vulcan_unique_key_check,
    'schema_change': 'on_change',
  }) }}
{% endmacro %}

{#- unique_key, when_matched and merge_filter parse: bad ones raise before anything is touched
    (time tokens left as they are: they render per batch) -#}
{% macro _vulcan_unique_key_validate(cfg) %}
  {%- do dbt_vulcan.vulcan_unique_key_spec(cfg, {}, dbt_vulcan.vulcan_incremental_predicates(model)) -%}
{% endmacro %}

{#- A new table or a changed definition: the key, merge_filter, when_matched and the partition
    columns checked against the query's columns (one schema read, reused by the schema change)
    and the columns the table will have when the batches run, before anything is touched; an
    unchanged model on its table was checked when it last changed. -#}
{% macro _vulcan_unique_key_check(cfg, begin, plan, schema_sql) %}
  {%- set accumulating = dbt_vulcan._vulcan_unique_key_check_reapply(cfg, plan) -%}
  {%- set query_columns = none -%}
  {%- if plan.rebuild or plan.fingerprint_changed -%}
    {%- set query_columns = dbt_vulcan.vulcan_query_columns(schema_sql) -%}
    {%- do dbt_vulcan._vulcan_unique_key_check_columns(cfg, plan, query_columns, plan.rebuild, begin.target_relation) -%}
  {%- endif -%}
  {#- an accumulating batch applied twice counts twice: its write is bracketed in the log -#}
  {{ return({'query_columns': query_columns, 'time_type': none, 'extra': {'write_check': accumulating}}) }}
{% endmacro %}

{#- A when_matched whose assignments read the table's values (`target.qty + source.qty`) is not
    idempotent: a range applied twice counts twice. So it never applies a processed range
    again: `lookback` is refused, and so is a run whose batches meet processed intervals (an
    explicit vulcan_start/vulcan_end over them); a full restatement (a rebuild) is the way to
    recompute; a batch written but not recorded is settled by the next run
    (engine/write_check.sql). Before anything is touched. Returns whether it accumulates. -#}
{% macro _vulcan_unique_key_check_reapply(cfg, plan) %}
  {%- if not cfg.when_matched -%}{{ return(false) }}{%- endif -%}
  {%- set reads = dbt_vulcan.vulcan_unique_key_reads_target(dbt_vulcan.vulcan_unique_key_spec(cfg, {}, [])) -%}
  {%- if not reads -%}{{ return(false) }}{%- endif -%}
  {%- set why = 'when_matched assigns ' ~ reads | join(', ') ~ ', which reads the table\'s own values: applied twice to the same rows, a range counts twice' -%}
  {%- if cfg.lookback -%}
    {{ exceptions.raise_compiler_error(dbt_vulcan.vulcan_config_message(cfg, ['lookback: ' ~ cfg.lookback ~ ' re-applies processed intervals, and ' ~ why ~ '. Set lookback: 0, or assign values computed from source columns only'])) }}
  {%- endif -%}
  {%- set again = plan.batches | selectattr('dirty') | list -%}
  {%- if again -%}
    {{ exceptions.raise_compiler_error("Model '" ~ cfg.model ~ "' (" ~ cfg.kind ~ '): this run would apply processed intervals again (' ~ again | map(attribute='label') | join(', ') ~ '), and ' ~ why ~ '. Nothing was written. Run without vulcan_start/vulcan_end (or --event-time-start/--event-time-end) over processed intervals, or restate the model (`dbt run-operation vulcan_restate`: its whole history is rebuilt by the next run)') }}
  {%- endif -%}
  {{ return(true) }}
{% endmacro %}

{#- The key, merge_filter and when_matched (time tokens of the model's first interval) against
    the query's columns (source) and the columns the table has when the batches run (target),
    with the partition columns of a new table: one error naming every problem. The target: a
    new table's, and an existing one's after the run's schema change (engine/schema_change.sql,
    applied after this check), are the query's columns, unless the existing table keeps
    columns of its own (on_*_change 'ignore'); then its columns are read (`relation`; not
    given: not checked), only when the key's SQL names the table's columns, and taken as the
    schema change will leave them. tests/oracle/engine.py's check is the test oracle. -#}
{% macro _vulcan_unique_key_check_columns(cfg, plan, query_columns, new_table, relation=none) %}
  {%- set first = plan.first_interval -%}
  {%- set values = dbt_vulcan.vulcan_time_tokens(first[0], first[1], plan.execution_time) -%}
  {%- set spec = dbt_vulcan.vulcan_unique_key_spec(cfg, values, dbt_vulcan.vulcan_incremental_predicates(model)) -%}
  {%- set names = query_columns | map(attribute='name') | list -%}
  {%- set target = names -%}
  {%- if not new_table and 'ignore' in (cfg.on_additive_change, cfg.on_destructive_change) -%}
    {%- set target = none -%}
    {%- if relation is not none and dbt_vulcan._vulcan_uk_names_table(spec, names) -%}
      {%- set table_columns = dbt_vulcan.vulcan_table_columns(relation) -%}
      {%- set target = dbt_vulcan._vulcan_unique_key_table_after_change(cfg, table_columns, query_columns) -%}
    {%- endif -%}
  {%- endif -%}
  {%- set problems = dbt_vulcan.vulcan_unique_key_column_problems(spec, names, target) -%}
  {%- do dbt_vulcan.vulcan_check_columns(cfg, query_columns, new_table, dbt_vulcan.vulcan_partition_key(model), problems) -%}
{% endmacro %}

{#- The names of an existing table's columns (`table_columns`: name, dtype) once the run's
    schema change against the query's columns is applied: the query's after a rewrite, the
    table's plus the added ones after ADD COLUMNS, else (nothing changes, or the change is
    refused) the table's. tests/oracle/engine.py's table_after_change is the test oracle. -#}
{% macro _vulcan_unique_key_table_after_change(cfg, table_columns, query_columns) %}
  {%- set change = dbt_vulcan.vulcan_schema_change_plan(cfg, table_columns, query_columns) -%}
  {%- set names = table_columns | map(attribute='name') | list -%}
  {%- if change.errors -%}{{ return(names) }}{%- endif -%}
  {%- if change.rewrite -%}{{ return(query_columns | map(attribute='name') | list) }}{%- endif -%}
  {%- if change.add_columns -%}
    {%- set lowered = names | map('lower') | list -%}
    {%- for c in query_columns if (c.name | lower) not in lowered -%}
      {%- do names.append(c.name) -%}
      {%- do lowered.append(c.name | lower) -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return(names) }}
{% endmacro %}
