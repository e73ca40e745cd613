{#- The append-only interval log: one table per dbt target, default `vulcan_state.vulcan_intervals`.
    Schema: profile field `state_schema`, or `--vars '{vulcan_state_schema: ...}'`. -#}

{% macro vulcan_state_relation() %}
  {{ return(adapter.dispatch('vulcan_state_relation', 'dbt_vulcan')()) }}
{% endmacro %}

{% macro default__vulcan_state_relation() %}
  {%- set schema = var('vulcan_state_schema', target.state_schema or 'vulcan_state') -%}
  {#- a name, never SQL: the value is pasted into every state statement -#}
  {%- if not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', schema | string) -%}
    {{ exceptions.raise_compiler_error('vulcan_state_schema / state_schema: ' ~ (schema | string | tojson) ~ ' is not a schema name (letters, digits and _, not starting with a digit)') }}
  {%- endif -%}
  {{ return(api.Relation.create(schema=schema, identifier='vulcan_intervals', type='table')) }}
{% endmacro %}

{#- The table format of the state table: var `vulcan_state_file_format`, else the profile's
    `state_file_format`, else parquet. -#}
{% macro vulcan_state_file_format() %}
  {%- set file_format = var('vulcan_state_file_format', target.state_file_format or 'parquet') -%}
  {%- if file_format not in ('parquet', 'delta', 'iceberg') -%}
    {{ exceptions.raise_compiler_error('vulcan_state_file_format / state_file_format: ' ~ (file_format | string | tojson) ~ ' is not one of: parquet, delta, iceberg') }}
  {%- endif -%}
  {{ return(file_format) }}
{% endmacro %}
