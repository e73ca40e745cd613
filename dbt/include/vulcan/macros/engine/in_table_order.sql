{#- The batch's rows as a SELECT of the table's columns by name, in the table's order: for the
    statements that match columns by position (Delta's `INSERT INTO ... REPLACE WHERE` takes no
    BY NAME). A query whose columns were reordered (by its author, or by an upstream
    `select *`) then still writes each value into its own column; a column the query lacks is
    Spark's clear "cannot resolve" error, never a shifted value. The table's columns are read
    once per run (the first batch; `args.per_run` keeps them for the next). -#}
{% macro _vulcan_in_table_order(args) %}
  {%- if 'table_columns' not in args.per_run -%}
    {%- set names = [] -%}
    {%- for column in adapter.get_columns_in_relation(args.relation) -%}
      {%- do names.append(dbt_vulcan.vulcan_quote_identifier(column.name)) -%}
    {%- endfor -%}
    {%- do args.per_run.update({'table_columns': names}) -%}
  {%- endif -%}
  {{ return('select ' ~ args.per_run.table_columns | join(', ') ~ ' from (\n' ~ args.sql ~ '\n) as vulcan_by_name') }}
{% endmacro %}
