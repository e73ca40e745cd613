{#- INCREMENTAL_BY_TIME_RANGE: the model's missing intervals (plus lookback) are computed from the
    interval state log (planning/), grouped into batches, and each batch is rendered with its
    time tokens, wrapped in the automatic output filter on `time_column`, written with the file
    format's strategy (time_range_<format>.sql beside this file) and then recorded as
    processed. The run's life is engine/materialize.sql; what is this kind's own is below. -#}

{% materialization incremental_by_time_range, adapter='spark', supported_languages=['sql', 'python'] %}
  {{ return(dbt_vulcan.vulcan_materialize('incremental_by_time_range', dbt_vulcan.vulcan_steps_time_range())) }}
{% endmaterialization %}

{#- The time range kind's steps for engine/materialize.sql. -#}
{% macro vulcan_steps_time_range() %}
  {{ return({
    'strategy': 'time_range',
    'action': 'insert',
    'check': dbt_vulcan._vulcan_time_range_check,
    'adopt_after_check': true,
    'safety': true,
    'schema_change': 'on_change',
  }) }}
{% endmacro %}

{#- The config against the query's columns, read only when the model is new, rebuilt or changed
    (or the log has no time type yet): bad ones raise before anything is touched, and before
    the existing table's layout is compared (time_column sets the default partitioning: a
    misnamed one is reported as itself). A table without state is rebuilt (or refused) by the
    adoption that follows: its partition columns are checked too. The time type read here
    becomes the plan's (`plan.time_type`), which the safety analysis that follows reads
    (safety/ts_bounds.sql: a `_ts` token bounding a TIMESTAMP time column). -#}
{% macro _vulcan_time_range_check(cfg, begin, plan, schema_sql) %}
  {%- set time_type = plan.time_type -%}
  {%- set query_columns = none -%}
  {%- if plan.rebuild or plan.fingerprint_changed or not time_type -%}
    {%- set query_columns = dbt_vulcan.vulcan_query_columns(schema_sql) -%}
    {%- do dbt_vulcan.vulcan_check_columns(cfg, query_columns, plan.rebuild or not plan.has_state, dbt_vulcan.vulcan_partition_key(model)) -%}
    {%- set time_type = dbt_vulcan.vulcan_time_type(cfg, query_columns) -%}
    {%- do plan.update({'time_type': time_type}) -%}
  {%- endif -%}
  {{ return({'query_columns': query_columns, 'time_type': time_type}) }}
{% endmacro %}
