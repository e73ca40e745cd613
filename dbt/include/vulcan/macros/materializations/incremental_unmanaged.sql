{#- INCREMENTAL_UNMANAGED: every run appends the model's query result to the table, with no
    dedupe, no batches (batch_size is refused) and no interval state (time tokens span
    1970-01-01 .. now). A restatement is a full rebuild (--full-refresh), refused with
    disable_restatement or forward_only. Written with strategies/unmanaged.sql; the flow is shared with incremental_by_partition
    (_vulcan_whole_table_materialization in incremental_by_partition.sql). -#}

{% materialization incremental_unmanaged, adapter='spark', supported_languages=['sql', 'python'] %}
  {{ return(dbt_vulcan._vulcan_whole_table_materialization('incremental_unmanaged', 'unmanaged', 'append')) }}
{% endmaterialization %}
