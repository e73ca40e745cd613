{#- incremental_by_unique_key on Delta: one MERGE per batch (matched: update every column, or
    the `when_matched` clauses; not matched: insert). Duplicate keys in the batch fail the MERGE
    before it commits. The first batch into a just-created table is a plain INSERT. -#}

{% macro vulcan_unique_key_delta(args) %}
  {% do dbt_vulcan._vulcan_unique_key_merge(args) %}
{% endmacro %}

{#- Shared with vulcan_unique_key_iceberg: both formats MERGE the same way. -#}
{% macro _vulcan_unique_key_merge(args) %}
  {%- set statement_kind = 'rows' if args.target_created and args.batch.index == 1 else 'merge' -%}
  {%- set sql = adapter.vulcan_unique_key_sql(args.model, statement_kind, args.relation, args.batch, args.plan.execution_time, args.sql) -%}
  {% call statement('main') -%}
    {% if statement_kind == 'rows' %}insert into {{ args.relation }}{% endif %}
    {{ sql }}
  {%- endcall %}
{% endmacro %}
