{#- The append-only interval log: one table per dbt target, default `vulcan_state.vulcan_intervals`.
    Schema: profile field `state_schema`, or `--vars '{vulcan_state_schema: ...}'`. -#}
{% macro vulcan_state_relation() %}
  {%- set schema = var('vulcan_state_schema', target.state_schema or 'vulcan_state') -%}
  {#- a name, never SQL: the value is pasted into every state statement -#}
  {%- if not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', schema | string) -%}
    {{ exceptions.raise_compiler_error('vulcan_state_schema / state_schema: ' ~ (schema | string | tojson) ~ ' is not a schema name (letters, digits and _, not starting with a digit)') }}
  {%- endif -%}
  {{ return(api.Relation.create(schema=schema, identifier='vulcan_intervals', type='table')) }}
{% endmacro %}

{#- The table format of the state table: var `vulcan_state_file_format`, else the profile's
    `state_file_format`, else the adapter's default (vulcan_default_file_format). -#}
{% macro vulcan_state_file_format() %}
  {%- set file_format = var('vulcan_state_file_format', target.state_file_format or dbt_vulcan.vulcan_default_file_format()) -%}
  {%- if file_format not in ('parquet', 'delta', 'iceberg') -%}
    {{ exceptions.raise_compiler_error('vulcan_state_file_format / state_file_format: ' ~ (file_format | string | tojson) ~ ' is not one of: parquet, delta, iceberg') }}
  {%- endif -%}
  {{ return(file_format) }}
{% endmacro %}

{#- The default table format of the target's adapter, for models and the state table alike:
    the `file_format` key's declared default (config_keys.sql), parquet on Spark (every Spark
    has it), Delta on Databricks (dbt-databricks' own default; a Unity Catalog managed table
    is Delta). -#}
{% macro vulcan_default_file_format() %}
  {%- set row = dbt_vulcan.vulcan_config_keys() | selectattr('name', 'equalto', 'file_format') | first -%}
  {{ return(row.get('value_by_adapter', {}).get(adapter.type(), row.value)) }}
{% endmacro %}

{#- The log's row, [(name, type)]: what vulcan_state_values writes, in its order. -#}
{% macro _vulcan_state_row() %}
  {{ return([
    ('relation', 'string'), ('model_id', 'string'), ('interval_start', 'string'),
    ('interval_end', 'string'), ('row_type', 'string'), ('fingerprint', 'string'),
    ('invocation_id', 'string'), ('recorded_at', 'string'), ('seq', 'int'), ('details', 'string'),
  ]) }}
{% endmacro %}

{#- The state table's columns in table order: the row, and on parquet the partition columns
    last (relation, then the append's own id; create_state_table.sql). -#}
{% macro vulcan_state_columns(file_format) %}
  {%- set row = dbt_vulcan._vulcan_state_row() -%}
  {%- if file_format != 'parquet' -%}{{ return(row) }}{%- endif -%}
  {{ return(row[1:] + [('relation', 'string'), ('append_id', 'string')]) }}
{% endmacro %}

{#- Before a read of the log: what another Spark session appended must be seen. Parquet (each
    append a new partition, listed from the metastore on every read) and Delta (its log read on
    every query) are never stale; Iceberg's catalog caches a table's snapshot per session (30 s
    by default), so its entry is dropped first. -#}
{% macro vulcan_refresh_state() %}
  {%- if dbt_vulcan.vulcan_state_file_format() == 'iceberg' -%}
    {% do run_query('refresh table ' ~ dbt_vulcan.vulcan_state_relation()) %}
  {%- endif -%}
{% endmacro %}

{#- The key of a relation in the state log: `schema.table`, lower case. -#}
{% macro vulcan_relation_key(relation) %}
  {{ return(dbt_vulcan.vulcan_state_key(relation.database, relation.schema, relation.identifier)) }}
{% endmacro %}

{#- A table's key in the state log, lower case: `schema.table` in the target's own catalog
    (always on type: spark, whose relations have none), `catalog.schema.table` in any other,
    so that two catalogs' tables of one name keep their own intervals (and the keys recorded
    before catalogs counted stay valid). -#}
{% macro vulcan_state_key(catalog, schema, identifier) %}
  {%- set own = (target.database or target.catalog or '') | string | lower -%}
  {%- set key = ((schema | string) ~ '.' ~ (identifier | string)) | lower -%}
  {%- if catalog and (catalog | string | lower) != own -%}
    {{ return(((catalog | string) | lower) ~ '.' ~ key) }}
  {%- endif -%}
  {{ return(key) }}
{% endmacro %}

{#- A model's key in the state log (vulcan_state_key of its catalog, schema and alias). -#}
{% macro vulcan_node_state_key(node) %}
  {{ return(dbt_vulcan.vulcan_state_key(node.database, node.schema, node.alias or node.name)) }}
{% endmacro %}
