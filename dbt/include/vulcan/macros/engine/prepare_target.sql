{#- When the run (re)builds the table (engine/materialize.sql): reset the model's intervals in
    the state log, create the empty table (delta/iceberg atomically replace an existing
    table; parquet drops and recreates it), with an enforced contract's constraints, and record
    that it was rebuilt. Returns true when the table was (re)created. -#}
{% macro vulcan_prepare_target(relation, existing_relation, rebuild, plan, cfg, schema_sql) %}
  {%- if not rebuild -%}{{ return(false) }}{%- endif -%}
  {%- if plan.has_state -%}
    {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_state_values(relation, [plan.all_time], 'removed', plan.fingerprint, tojson({'reset': true}))) %}
  {%- endif -%}
  {%- set replace = existing_relation is not none and existing_relation.type == 'table' and cfg.file_format in ('delta', 'iceberg') -%}
  {%- if existing_relation is not none and not replace -%}
    {% do adapter.drop_relation(existing_relation) %}
  {%- endif -%}
  {% do dbt_vulcan.vulcan_create_empty_table(relation, schema_sql, cfg, replace=replace) %}
  {#- an enforced contract's constraints, on the empty table (engine/contract.sql) -#}
  {% do dbt_vulcan.vulcan_contract_constraints(relation, cfg) %}
  {#- the table is empty now: what was processed before it holds nothing (not dirty, for the
      planner: planning/plan_intervals.sql). A run stopped between the reset and here leaves
      the old table, whose ranges still count. -#}
  {%- if plan.has_state -%}
    {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_state_values(relation, [plan.all_time], 'removed', plan.fingerprint, tojson({'reset': true, 'rebuilt': true}))) %}
  {%- endif -%}
  {{ return(true) }}
{% endmacro %}
