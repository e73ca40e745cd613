{#- The batch's rows as a SELECT of the table's columns by name, in the table's order: for the
    statements that match columns by position (Delta's `INSERT INTO ... REPLACE WHERE` takes no
    BY NAME). A query whose columns were reordered (by its author, or by an upstream
    `select *`) then still writes each value into its own column; a column the query lacks is
    Spark's clear "cannot resolve" error, never a shifted value.

    The table's columns, once per run (`args.per_run` keeps them for the next batch, and
    run_batches records them with the batch): those the last run recorded, when the table is
    the one it wrote (not created by this run, the model's definition unchanged, no schema
    change applied by this run); else those the kind's own check read (`args.table_columns`,
    e.g. the partition kind's layout check); else the table is described. -#}
{% macro _vulcan_in_table_order(args) %}
  {%- if 'table_columns' not in args.per_run -%}
    {%- set plan = args.get('plan') or {} -%}
    {%- set same_table = not args.get('created') and not plan.get('fingerprint_changed') and not plan.get('schema_changed') -%}
    {%- set recorded = (plan.get('previous_details') or {}).get('table_columns') -%}
    {%- if same_table and recorded is sequence and recorded is not string and recorded -%}
      {%- set names = recorded | list -%}
    {%- elif args.get('table_columns') and not plan.get('schema_changed') -%}
      {%- set names = args.table_columns | list -%}
    {%- else -%}
      {%- set names = adapter.get_columns_in_relation(args.relation) | map(attribute='name') | list -%}
    {%- endif -%}
    {%- do args.per_run.update({'table_columns': names}) -%}
  {%- endif -%}
  {%- set quoted = [] -%}
  {%- for name in args.per_run.table_columns -%}{%- do quoted.append(dbt_vulcan.vulcan_quote_identifier(name)) -%}{%- endfor -%}
  {{ return('select ' ~ quoted | join(', ') ~ ' from (\n' ~ args.sql ~ '\n) as vulcan_by_name') }}
{% endmacro %}
