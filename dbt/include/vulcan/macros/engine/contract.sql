{#- dbt model contracts (`contract: {enforced: true}` with `columns:` and their `data_type`) on
    every dbt-vulcan kind, with dbt's own machinery:
    - the check: dbt's get_assert_columns_equivalent (dbt-adapters), as dbt-spark's `table` and
      `incremental` materializations run it: the names, data types and number of the query's
      columns against the contract, raising dbt's contract error. Every run checks, before
      anything is created or written (a source whose types changed fails the next run);
    - the table: created from dbt's get_select_subquery of the query (the contract's columns,
      in the contract's order); each batch selects the table's columns in the table's order;
    - the constraints: on Delta tables, as dbt-spark's persist_constraints (check, not_null),
      right after the empty table is created, so Delta checks every batch (below).
    SCD type 2: the contract describes the model's query; the kind adds valid_from/valid_to. -#}

{#- The model's query checked against its enforced contract (dbt's contract error on a
    mismatch, before anything is touched) and returned as the query the table is created from
    (the contract's columns, in its order); unchanged without a contract. -#}
{% macro vulcan_contract_query(sql) %}
  {%- if not dbt_vulcan.vulcan_contract_enforced(model) -%}{{ return(sql) }}{%- endif -%}
  {%- do get_assert_columns_equivalent(sql) -%}
  {{ return(get_select_subquery(sql)) }}
{% endmacro %}

{#- The columns each batch selects under an enforced contract: the contract's (in its order)
    on a table this run created, else the table's, in the table's order (Delta's and Iceberg's
    INSERTs match columns by position); a projection the schema change already decided is
    kept. Without a contract: `projection` as it is. -#}
{% macro vulcan_contract_projection(relation, created, projection) %}
  {%- if projection is not none or not dbt_vulcan.vulcan_contract_enforced(model) -%}{{ return(projection) }}{%- endif -%}
  {%- set names = [] -%}
  {%- if created -%}
    {%- for name, column in model.columns.items() -%}{%- do names.append(column.get('name') or name) -%}{%- endfor -%}
  {%- else -%}
    {%- for column in adapter.get_columns_in_relation(relation) -%}{%- do names.append(column.name) -%}{%- endfor -%}
  {%- endif -%}
  {%- set projection = [] -%}
  {%- for name in names -%}{%- do projection.append(dbt_vulcan.vulcan_quote_identifier(name)) -%}{%- endfor -%}
  {{ return(projection) }}
{% endmacro %}

{#- The contract's constraints on a table just created (empty), on Delta tables (as dbt-spark:
    other formats get none, with one line saying so): every `check` constraint (the model's,
    or a column's) as ALTER TABLE ADD CONSTRAINT ... CHECK, and a column's `not_null` as the
    CHECK constraint `<column>_not_null` (`<column> IS NOT NULL`): Spark refuses dbt-spark's
    ALTER COLUMN ... SET NOT NULL on an existing Delta table. Other constraint types warn
    (Spark enforces none of them). -#}
{% macro vulcan_contract_constraints(relation, cfg) %}
  {%- if not dbt_vulcan.vulcan_contract_enforced(model) -%}{{ return(none) }}{%- endif -%}
  {%- set q = dbt_vulcan.vulcan_quote_identifier -%}
  {%- set checks = [] -%}
  {%- set unsupported = [] -%}
  {%- for constraint in model.constraints or [] -%}
    {%- if constraint.type == 'check' -%}
      {%- do checks.append([constraint.get('name') or ('check_' ~ loop.index), constraint.expression]) -%}
    {%- else -%}
      {%- do unsupported.append(constraint.type) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for key, column in (model.columns or {}).items() -%}
    {%- set name = column.get('name') or key -%}
    {%- for constraint in column.get('constraints') or [] -%}
      {%- if constraint.type == 'not_null' -%}
        {%- do checks.append([constraint.get('name') or (name ~ '_not_null'), q(name) ~ ' is not null']) -%}
      {%- elif constraint.type == 'check' -%}
        {%- do checks.append([constraint.get('name') or (name ~ '_check_' ~ loop.index), constraint.expression]) -%}
      {%- else -%}
        {%- do unsupported.append(name ~ ': ' ~ constraint.type) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if unsupported -%}
    {% do exceptions.warn("Model '" ~ cfg.model ~ "': constraints not enforced on Spark (only check and not_null are): " ~ unsupported | join(', ')) %}
  {%- endif -%}
  {%- if not checks -%}{{ return(none) }}{%- endif -%}
  {%- if cfg.file_format != 'delta' -%}
    {{ log("Model '" ~ cfg.model ~ "': the contract's constraints are not applied to a " ~ cfg.file_format ~ " table (as in dbt-spark, only Delta tables get them); its columns and types are enforced.", info=True) }}
    {{ return(none) }}
  {%- endif -%}
  {%- for name, expression in checks -%}
    {% call statement('vulcan_add_constraint') -%}
      alter table {{ relation }} add constraint {{ q(name) }} check ({{ expression }})
    {%- endcall %}
  {%- endfor -%}
{% endmacro %}
