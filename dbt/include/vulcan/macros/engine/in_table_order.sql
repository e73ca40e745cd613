{#- The batch's rows as a SELECT of the table's columns by name, in the table's order: for the
    statements that match columns by position (Delta's `INSERT INTO ... REPLACE WHERE` takes no
    BY NAME). A query whose columns were reordered (by its author, or by an upstream
    `select *`) then still writes each value into its own column; a column the query lacks is
    Spark's clear "cannot resolve" error, never a shifted value.

    The table's columns: vulcan_run_table_columns. -#}
{% macro vulcan_in_table_order(args) %}
  {%- set quoted = [] -%}
  {%- for name in dbt_vulcan.vulcan_run_table_columns(args) -%}{%- do quoted.append(dbt_vulcan.vulcan_quote_identifier(name)) -%}{%- endfor -%}
  {{ return('select ' ~ quoted | join(', ') ~ ' from (\n' ~ args.sql ~ '\n) as vulcan_by_name') }}
{% endmacro %}

{#- The names of the table's columns in its order, once per run (`args.per_run` keeps them,
    `table_columns`, for the next batch, and run_batches records them with the batch), with
    their types (`table_types`) when `with_types`: those the last run recorded, when the table
    is the one it wrote (not created by this run, the model's definition unchanged, no schema
    change applied by this run); else those the kind's own check read (`args.table_columns`,
    e.g. the partition kind's layout check: names only); else the table is described. -#}
{% macro vulcan_run_table_columns(args, with_types=false) %}
  {%- set per_run = args.per_run -%}
  {%- if 'table_columns' not in per_run or (with_types and per_run.get('table_types') is none) -%}
    {%- set plan = args.get('plan') or {} -%}
    {%- set same_table = not args.get('created') and not plan.get('fingerprint_changed') and not plan.get('schema_changed') -%}
    {%- set previous = plan.get('previous_details') or {} -%}
    {%- set recorded = previous.get('table_columns') -%}
    {%- set recorded_types = previous.get('table_types') -%}
    {%- set has_names = recorded is sequence and recorded is not string and recorded | length > 0 -%}
    {%- set has_types = has_names and recorded_types is sequence and recorded_types is not string and recorded_types | length == recorded | length -%}
    {%- if same_table and has_names and (has_types or not with_types) -%}
      {%- do per_run.update({'table_columns': recorded | list, 'table_types': recorded_types | list if has_types else none}) -%}
    {%- elif args.get('table_columns') and not plan.get('schema_changed') and not with_types -%}
      {%- do per_run.update({'table_columns': args.table_columns | list, 'table_types': none}) -%}
    {%- else -%}
      {%- set columns = adapter.get_columns_in_relation(args.relation) -%}
      {%- do per_run.update({'table_columns': columns | map(attribute='name') | list, 'table_types': columns | map(attribute='dtype') | map('lower') | list}) -%}
    {%- endif -%}
  {%- endif -%}
  {{ return(per_run.table_columns) }}
{% endmacro %}
