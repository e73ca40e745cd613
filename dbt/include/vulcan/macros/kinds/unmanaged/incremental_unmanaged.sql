{#- INCREMENTAL_UNMANAGED: every run appends the model's query result to the table, with no
    dedupe, no batches (batch_size is refused) and no interval state (time tokens span
    1970-01-01 .. now). A restatement is a full rebuild (--full-refresh), refused with
    disable_restatement or forward_only. Written with unmanaged_<format>.sql beside this file; the run's
    life: engine/materialize.sql, with the steps of the kinds without interval state
    (engine/whole_table.sql). -#}

{% materialization incremental_unmanaged, adapter='spark', supported_languages=['sql', 'python'] %}
  {{ return(dbt_vulcan.vulcan_materialize('incremental_unmanaged', dbt_vulcan.vulcan_steps_unmanaged())) }}
{% endmaterialization %}

{#- The unmanaged kind's steps for engine/materialize.sql. -#}
{% macro vulcan_steps_unmanaged() %}
  {{ return(dbt_vulcan.vulcan_whole_table_steps('unmanaged', 'append')) }}
{% endmacro %}

{#- The append of every format: the query's rows, by column name; no dedupe, update or delete. -#}
{% macro _vulcan_unmanaged_append(args) %}
  {% call statement('main') -%}
    insert into {{ args.relation }} by name
    {{ args.sql }}
  {%- endcall %}
{% endmacro %}
