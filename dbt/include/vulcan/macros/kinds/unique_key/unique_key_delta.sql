{#- incremental_by_unique_key on Delta: one MERGE per batch (matched: update every column, or
    the `when_matched` clauses; not matched: insert). Duplicate keys in the batch fail the MERGE
    before it commits. The first batch into a just-created table is a plain INSERT. The SQL:
    kinds/unique_key/upsert_sql.sql. -#}
{% macro vulcan_unique_key_delta(args) %}
  {% do dbt_vulcan._vulcan_unique_key_merge(args) %}
{% endmacro %}

{#- Shared with vulcan_unique_key_iceberg: both formats MERGE the same way. -#}
{% macro _vulcan_unique_key_merge(args) %}
  {%- set spec = dbt_vulcan._vulcan_unique_key_batch_spec(args) -%}
  {% call statement('main') -%}
    {%- if args.created and args.batch.index == 1 -%}
      insert into {{ args.relation }}
      {{ dbt_vulcan.vulcan_unique_key_checked_source(spec, args.sql) }}
    {%- else -%}
      {{ dbt_vulcan.vulcan_unique_key_merge_sql(spec, args.relation, args.sql) }}
    {%- endif -%}
  {%- endcall %}
{% endmacro %}

{#- The model's unique-key spec with the batch's time tokens (in when_matched, merge_filter and
    dbt's incremental_predicates). -#}
{% macro _vulcan_unique_key_batch_spec(args) %}
  {%- set values = dbt_vulcan.vulcan_time_tokens(args.batch.start, args.batch.end, args.plan.execution_time) -%}
  {{ return(dbt_vulcan.vulcan_unique_key_spec(args.cfg, values, dbt_vulcan.vulcan_incremental_predicates(args.model))) }}
{% endmacro %}
