{#- When the run (re)builds the table (engine/materialize.sql): reset the model's intervals in
    the state log and empty the table, then the batches fill it. Returns true when the table
    was (re)built. Three ways, the cheapest that keeps the table right:

    - in place, when an existing table keeps its layout: a Delta or Iceberg table is replaced
      atomically (CREATE OR REPLACE, the config's columns and clustering); a parquet table
      whose recorded layout, columns, options, comment and properties are the config's is
      truncated (every old partition's files gone, its registration kept: no DROP TABLE of
      every partition, no CREATE, and the batches write into partitions already registered).
      One `removed` row (`reset`) comes first: a run stopped after it leaves every interval
      missing and every batch of the next run a replacement (dirty), right whether the table
      was emptied or not. A model whose write is not idempotent (an accumulating
      `when_matched`, refused on a dirty batch) also gets the `rebuilt` row once the table is
      empty, as below, so a rebuild stopped half-way is finished by the next run;
    - otherwise (a first build, a view, a parquet table whose layout changed): the table is
      dropped and created with an enforced contract's constraints, between a `reset` row and
      a `rebuilt` one (the table is empty: what was processed before it holds nothing; a run
      stopped between the two leaves the old table, whose ranges still count).
    `checked`: what the kind's check returned (engine/materialize.sql): its `query_columns`
    ([{name, dtype}], the table's for SCD type 2; none: a parquet table is dropped and
    created) and `extra.write_check` (a write that is not idempotent). -#}
{% macro vulcan_prepare_target(relation, existing_relation, rebuild, plan, cfg, schema_sql, checked={}) %}
  {%- if not rebuild -%}{{ return(false) }}{%- endif -%}
  {%- set query_columns = checked.get('query_columns') -%}
  {%- set accumulating = (checked.get('extra') or {}).get('write_check') -%}
  {%- set is_table = existing_relation is not none and existing_relation.type == 'table' -%}
  {%- set replace = is_table and cfg.file_format in ('delta', 'iceberg') -%}
  {%- set truncate = is_table and not replace and plan.has_state
                     and dbt_vulcan._vulcan_parquet_keeps_table(relation, plan, cfg, query_columns) -%}
  {%- if plan.has_state -%}
    {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_state_values(relation, [plan.all_time], 'removed', plan.fingerprint, tojson({'reset': true}))) %}
  {%- endif -%}
  {%- if truncate -%}
    {% call statement('vulcan_truncate') -%}
      truncate table {{ relation }}
    {%- endcall %}
  {%- else -%}
    {%- if existing_relation is not none and not replace -%}
      {% do adapter.drop_relation(existing_relation) %}
    {%- endif -%}
    {% do dbt_vulcan.vulcan_create_empty_table(relation, schema_sql, cfg, replace=replace) %}
    {#- an enforced contract's constraints, on the empty table (engine/contract.sql) -#}
    {% do dbt_vulcan.vulcan_contract_constraints(relation, cfg) %}
  {%- endif -%}
  {#- the table is empty now: what was processed before it holds nothing (not dirty, for the
      planner: planning/plan_intervals.sql) -#}
  {%- if plan.has_state and (accumulating or not (replace or truncate)) -%}
    {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_state_values(relation, [plan.all_time], 'removed', plan.fingerprint, tojson({'reset': true, 'rebuilt': true}))) %}
  {%- endif -%}
  {{ return(true) }}
{% endmacro %}

{#- A parquet table a rebuild may truncate instead of dropping: managed (TRUNCATE refuses an
    external table: `location_root`), no enforced contract, its recorded layout the config's,
    and, as one DESCRIBE TABLE EXTENDED shows it, the columns, partition columns, partition
    overwrite option, comment and properties the CREATE would give it. Anything else (or
    unknown) drops and creates. -#}
{% macro _vulcan_parquet_keeps_table(relation, plan, cfg, query_columns) %}
  {%- if cfg.file_format != 'parquet' or query_columns is none or cfg.get('location_root')
         or dbt_vulcan.vulcan_contract_enforced(model) -%}
    {{ return(false) }}
  {%- endif -%}
  {%- set recorded = plan.get('layout') -%}
  {%- set wanted = dbt_vulcan.vulcan_layout(cfg) -%}
  {%- if recorded is not mapping or recorded.get('file_format') != wanted.file_format
         or recorded.get('partitioned_by') != wanted.partitioned_by -%}
    {{ return(false) }}
  {%- endif -%}
  {%- set described = run_query('describe table extended ' ~ relation).rows -%}
  {%- set table = dbt_vulcan.vulcan_table_layout(described) -%}
  {#- a parquet CREATE puts the partition columns last -#}
  {%- set partitions = (cfg.partition_cols or []) | map('lower') | list -%}
  {%- set expected = [] -%}
  {%- for c in query_columns if (c.name | lower) not in partitions -%}
    {%- do expected.append((c.name | lower) ~ ' ' ~ (c.dtype | lower)) -%}
  {%- endfor -%}
  {%- for p in partitions -%}
    {%- for c in query_columns if (c.name | lower) == p -%}
      {%- do expected.append(p ~ ' ' ~ (c.dtype | lower)) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set found = [] -%}
  {%- for name in table.columns -%}
    {%- do found.append((name | lower) ~ ' ' ~ table.types[loop.index0]) -%}
  {%- endfor -%}
  {#- the table's own rows of DESCRIBE, after its columns (a column may be named `Type`) -#}
  {%- set info = {} -%}
  {%- for row in described if row | length > 1 -%}
    {%- if ((row[0] or '') | string).startswith('# Detailed Table') -%}
      {%- do info.update({'#': true}) -%}
    {%- elif info.get('#') and row[0] in ('Type', 'Comment', 'Table Properties') -%}
      {%- do info.update({row[0]: (row[1] or '') | string}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set docs = config.get('persist_docs') or {} -%}
  {%- set comment = model.description if docs is mapping and docs.get('relation') and model.description else '' -%}
  {%- set properties = info.get('Table Properties', '') -%}
  {%- set st = {'same': found == expected
                        and (table.partition_cols | map('lower') | list) == partitions
                        and table.dynamic_overwrite == dbt_vulcan._vulcan_parquet_dynamic(cfg)
                        and info.get('Type', '') | upper == 'MANAGED'
                        and info.get('Comment', '') == comment} -%}
  {%- for key, value in (config.get('tblproperties') or {}).items() if (key ~ '=' ~ value) not in properties -%}
    {%- do st.update({'same': false}) -%}
  {%- endfor -%}
  {{ return(st.same) }}
{% endmacro %}
