{#- The append-only interval log: one table per dbt target, default `vulcan_state.vulcan_intervals`.
    Schema: profile field `state_schema`, or `--vars '{vulcan_state_schema: ...}'`. -#}

{% macro vulcan_state_relation() %}
  {{ return(adapter.dispatch('vulcan_state_relation', 'dbt')()) }}
{% endmacro %}

{% macro default__vulcan_state_relation() %}
  {%- set schema = var('vulcan_state_schema', target.state_schema or 'vulcan_state') -%}
  {{ return(api.Relation.create(schema=schema, identifier='vulcan_intervals', type='table')) }}
{% endmacro %}
