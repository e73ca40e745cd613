{#- dbt model contracts (`contract: {enforced: true}` with `columns:` and their `data_type`) on
    every dbt-vulcan kind, with dbt's own machinery:
    - the check: dbt's get_assert_columns_equivalent (dbt-adapters), as dbt-spark's `table` and
      `incremental` materializations run it: the names, data types and number of the query's
      columns against the contract, raising dbt's contract error. Every run checks, before
      anything is created or written (a source whose types changed fails the next run);
    - the table: created from dbt's get_select_subquery of the query (the contract's columns,
      in the contract's order); each batch selects the table's columns in the table's order;
    - the constraints: as dbt-spark applies them (persist_constraints), on Delta tables, right
      after the empty table is created, so every batch is checked by Delta: model-level `check`
      constraints (ALTER TABLE ADD CONSTRAINT) and column `not_null` (ALTER COLUMN SET NOT
      NULL; other column constraints warn, as in dbt-spark). Parquet and Iceberg tables get
      none (dbt-spark applies none there either).
    SCD type 2: the contract describes the model's query; the kind adds valid_from/valid_to. -#}

{#- Whether `node` (the model, or a graph node in an operation) has an enforced contract. -#}
{% macro vulcan_contract_enforced(node) %}
  {%- set contract = (node.get('config') or {}).get('contract') or {} -%}
  {{ return(contract.get('enforced') is sameas true) }}
{% endmacro %}

{#- The contract's part of the model's fingerprint: [[name, data_type], ...] in the contract's
    order when it is enforced, else none (planner.contract_signature is the same). -#}
{% macro vulcan_contract_signature(node) %}
  {%- if not dbt_vulcan.vulcan_contract_enforced(node) -%}{{ return(none) }}{%- endif -%}
  {%- set signature = [] -%}
  {%- for name, column in (node.columns or {}).items() -%}
    {%- do signature.append([column.get('name') or name, column.get('data_type')]) -%}
  {%- endfor -%}
  {{ return(signature) }}
{% endmacro %}

{#- The model's query checked against its enforced contract (dbt's contract error on a
    mismatch, before anything is touched) and returned as the query the table is created from
    (the contract's columns, in its order); unchanged without a contract. -#}
{% macro vulcan_contract_query(sql) %}
  {{ return(adapter.dispatch('vulcan_contract_query', 'dbt_vulcan')(sql)) }}
{% endmacro %}

{% macro default__vulcan_contract_query(sql) %}
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

{#- The contract's constraints on a table just created (empty), as dbt-spark applies them:
    Delta only. -#}
{% macro vulcan_contract_constraints(relation, cfg) %}
  {{ return(adapter.dispatch('vulcan_contract_constraints', 'dbt_vulcan')(relation, cfg)) }}
{% endmacro %}

{% macro default__vulcan_contract_constraints(relation, cfg) %}
  {%- if not dbt_vulcan.vulcan_contract_enforced(model) -%}{{ return(none) }}{%- endif -%}
  {%- set checks = [] -%}
  {%- for constraint in model.constraints or [] if constraint.type == 'check' -%}
    {%- do checks.append(constraint) -%}
  {%- endfor -%}
  {%- set ns = namespace(column_constraints=false) -%}
  {%- for name, column in (model.columns or {}).items() if column.get('constraints') -%}
    {%- set ns.column_constraints = true -%}
  {%- endfor -%}
  {%- if not checks and not ns.column_constraints -%}{{ return(none) }}{%- endif -%}
  {%- if cfg.file_format != 'delta' -%}
    {{ log("Model '" ~ cfg.model ~ "': the contract's constraints are not applied to a " ~ cfg.file_format ~ " table (as in dbt-spark, only Delta tables get them); its columns and types are enforced.", info=True) }}
    {{ return(none) }}
  {%- endif -%}
  {%- for constraint in checks -%}
    {%- set name = constraint.name or ('vulcan_check_' ~ loop.index) -%}
    {% call statement('vulcan_add_constraint') -%}
      alter table {{ relation }} add constraint {{ dbt_vulcan.vulcan_quote_identifier(name) }} check ({{ constraint.expression }})
    {%- endcall %}
  {%- endfor -%}
  {% do alter_column_set_constraints(relation, model.columns) %}
{% endmacro %}
