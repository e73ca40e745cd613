{#- The steps (engine/materialize.sql) of the kinds without interval state
    (incremental_by_partition, incremental_unmanaged): each run computes the whole query once
    and hands it to the kind's strategy; the query's columns are read on every run (the
    partition columns of a new table checked, an existing table's schema change). `check`: the
    kind's own check, which calls `vulcan_whole_table_check`. -#}
{% macro vulcan_whole_table_steps(strategy, action, check=none) %}
  {{ return({
    'strategy': strategy,
    'action': action,
    'validate': dbt_vulcan.vulcan_whole_table_only,
    'check': check or dbt_vulcan.vulcan_whole_table_check,
    'schema_change': 'every_run',
  }) }}
{% endmacro %}

{% macro vulcan_whole_table_check(cfg, begin, plan, schema_sql) %}
  {%- set query_columns = dbt_vulcan.vulcan_query_columns(schema_sql) -%}
  {%- do dbt_vulcan.vulcan_check_columns(cfg, query_columns, plan.rebuild, dbt_vulcan.vulcan_partition_key(model)) -%}
  {{ return({'query_columns': query_columns, 'time_type': none}) }}
{% endmacro %}

{#- A range given with vulcan_start/vulcan_end does not apply to a kind without intervals (a
    restatement is --full-refresh): one line says so. -#}
{% macro vulcan_whole_table_only(cfg) %}
  {%- if var('vulcan_start', none) or var('vulcan_end', none) -%}
    {{ log('Note: ' ~ model.name ~ ' (' ~ cfg.kind ~ ') has no time intervals: vulcan_start/vulcan_end do not apply to it; restate it with --full-refresh.', info=True) }}
  {%- endif -%}
{% endmacro %}
