{#- INCREMENTAL_UNMANAGED: every run appends the model's query result to the table, with no
    dedupe, no batches (batch_size is refused) and no interval state (time tokens span
    1970-01-01 .. now). A restatement is a full rebuild (--full-refresh), refused with
    disable_restatement or forward_only. Written with unmanaged.sql beside this file; the run's
    life: engine/materialize.sql, with the steps of the kinds without interval state
    (engine/whole_table.sql). -#}

{% materialization incremental_unmanaged, adapter='spark', supported_languages=['sql', 'python'] %}
  {{ return(dbt_vulcan.vulcan_materialize('incremental_unmanaged', dbt_vulcan.vulcan_whole_table_steps('unmanaged', 'append'))) }}
{% endmaterialization %}
