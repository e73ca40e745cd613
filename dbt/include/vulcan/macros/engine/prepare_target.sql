{#- When the run (re)builds the table (engine/materialize.sql): reset the model's intervals in
    the state log and empty the table, then the batches fill it. Returns true when the table
    was (re)built. One `removed` row (`reset`) comes first: a run stopped after it leaves every
    interval missing and every batch of the next run a replacement (dirty), right whether the
    table was emptied or not. Then the cheapest way the format has:

    - an existing Delta or Iceberg table is replaced atomically (CREATE OR REPLACE, the
      config's columns and clustering): its history and properties stay;
    - anything else (a first build, a view, a parquet table) is dropped and created, with an
      enforced contract's constraints. Parquet has no atomic replace, and emptying its
      partitioned table in place (TRUNCATE: each partition's folder deleted and made again,
      its registration kept) costs more than the DROP, the CREATE and the batches registering
      their partitions again, measured on a 365-day table.
    A model whose write is not idempotent (an accumulating `when_matched`, refused on a dirty
    batch) also gets a `rebuilt` row once the table is empty, so a rebuild stopped half-way is
    finished by the next run (the planner: planning/plan_intervals.sql).
    `checked`: what the kind's check returned (engine/materialize.sql): `query_columns` (the
    columns of `schema_sql`, unless `create_sql` is set) and `extra.write_check` (a write that
    is not idempotent). -#}
{% macro vulcan_prepare_target(relation, existing_relation, rebuild, plan, cfg, schema_sql, checked={}) %}
  {%- if not rebuild -%}{{ return(false) }}{%- endif -%}
  {%- set accumulating = (checked.get('extra') or {}).get('write_check') -%}
  {%- set replace = existing_relation is not none and existing_relation.type == 'table'
                    and cfg.file_format in ('delta', 'iceberg') -%}
  {%- if plan.has_state -%}
    {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_state_values(relation, [plan.all_time], 'removed', plan.fingerprint, tojson({'reset': true}))) %}
  {%- endif -%}
  {%- if existing_relation is not none and not replace -%}
    {% do adapter.drop_relation(existing_relation) %}
  {%- endif -%}
  {#- the query's columns, read by the kind's check, are the new table's unless the kind
      creates it from SQL of its own (`create_sql`): not described twice -#}
  {%- set columns = checked.get('query_columns') if not checked.get('create_sql') else none -%}
  {% do dbt_vulcan.vulcan_create_empty_table(relation, schema_sql, cfg, replace=replace, columns=columns) %}
  {#- an enforced contract's constraints, on the empty table (engine/contract.sql) -#}
  {% do dbt_vulcan.vulcan_contract_constraints(relation, cfg) %}
  {#- the table is empty now: what was processed before it holds nothing (not dirty, for the
      planner) -#}
  {%- if plan.has_state and accumulating -%}
    {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_state_values(relation, [plan.all_time], 'removed', plan.fingerprint, tojson({'reset': true, 'rebuilt': true}))) %}
  {%- endif -%}
  {{ return(true) }}
{% endmacro %}
