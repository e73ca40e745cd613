{#- Appends rows to the log (never UPDATE or DELETE), in one statement that is safe while dbt
    threads and other dbt processes append too, in both modes. `values_sql` comes from
    vulcan_state_values (below): every value is escaped there. -#}
{% macro vulcan_record_intervals(values_sql, append_id=none) %}
  {%- if values_sql -%}
    {%- set append_id = append_id or (dbt_vulcan.vulcan_state_append_id() if dbt_vulcan.vulcan_state_file_format() == 'parquet' else none) -%}
    {% call statement('vulcan_record_intervals') -%}
      {{ dbt_vulcan.vulcan_state_insert_sql(values_sql, append_id) }}
    {%- endcall %}
    {% do dbt_vulcan._vulcan_state_appended(values_sql, append_id) %}
  {%- endif -%}
{% endmacro %}

{#- After an append committed: the `vulcan` adapter keeps its rows with the rows this
    invocation read (state/log.sql, vulcan___vulcan_log_rows); nothing to do in the package. -#}
{% macro _vulcan_state_appended(values_sql, append_id) %}
  {{ return(adapter.dispatch('_vulcan_state_appended', 'dbt_vulcan')(values_sql, append_id)) }}
{% endmacro %}

{% macro default___vulcan_state_appended(values_sql, append_id) %}{% endmacro %}

{% macro vulcan___vulcan_state_appended(values_sql, append_id) %}
  {% do adapter.vulcan_state_appended(dbt_vulcan.vulcan_state_relation() | string, invocation_id, values_sql, append_id) %}
{% endmacro %}

{#- After relation `key`'s log (every relation's when none) was rewritten (a fold, the janitor,
    a compaction): the `vulcan` adapter reads it again when next asked for. -#}
{% macro vulcan_state_rewritten(key=none) %}
  {{ return(adapter.dispatch('vulcan_state_rewritten', 'dbt_vulcan')(key)) }}
{% endmacro %}

{% macro default__vulcan_state_rewritten(key=none) %}{% endmacro %}

{% macro vulcan__vulcan_state_rewritten(key=none) %}
  {% do adapter.vulcan_state_rewritten(dbt_vulcan.vulcan_state_relation() | string, invocation_id, key) %}
{% endmacro %}

{#- The append of `values_sql`. Delta and Iceberg: an INSERT (their commits take concurrent
    appends). Parquet: a new partition per relation, named by this append's id (the invocation
    and the moment, unique: a model's appends are sequential statements), written by dynamic
    partition overwrite into a partition no one else writes (create_state_table.sql); a
    caller that keeps the rows it appends (the settle of a stopped run's writes, which a fold
    of the same run may drop again) names the append with vulcan_state_append_id first. -#}
{% macro vulcan_state_insert_sql(values_sql, append_id=none) %}
  {%- set state = dbt_vulcan.vulcan_state_relation() -%}
  {%- set file_format = dbt_vulcan.vulcan_state_file_format() -%}
  {%- if file_format != 'parquet' -%}
    {{ return('insert into ' ~ state ~ ' values ' ~ values_sql) }}
  {%- endif -%}
  {%- set row = dbt_vulcan._vulcan_state_row() | map(attribute=0) | list -%}
  {%- set append_id = append_id or dbt_vulcan.vulcan_state_append_id() -%}
  {%- set names = dbt_vulcan.vulcan_state_columns(file_format) | map(attribute=0) | list -%}
  {%- set selected = names[:-1] + [dbt_vulcan.vulcan_sql_string(append_id)] -%}
  {{ return('insert overwrite table ' ~ state ~ ' partition (relation, append_id)\nselect ' ~ selected | join(', ') ~ '\nfrom values ' ~ values_sql ~ '\nas vulcan_rows(' ~ row | join(', ') ~ ')') }}
{% endmacro %}

{#- A new parquet append's id: the invocation and the moment (a model's appends are sequential
    statements, so unique). -#}
{% macro vulcan_state_append_id() %}
  {{ return(invocation_id ~ '-' ~ modules.datetime.datetime.now().strftime('%Y%m%d%H%M%S%f')) }}
{% endmacro %}

{#- One state row per [start, end] interval, as the VALUES list of an INSERT into the log
    (every value escaped here). `recorded_at` is now in UTC with microseconds; `seq` orders the
    rows of one statement. -#}
{% macro vulcan_state_values(relation, intervals, row_type, fingerprint, details='', model_id=none) %}
  {%- set s = dbt_vulcan.vulcan_sql_string -%}
  {%- set recorded = modules.datetime.datetime.utcnow().isoformat(' ') -%}
  {%- set tuples = [] -%}
  {%- for start, end in intervals -%}
    {%- do tuples.append('(' ~ [
      s(dbt_vulcan.vulcan_relation_key(relation)), s(model_id if model_id is not none else model.unique_id), s(start), s(end), s(row_type),
      s(fingerprint), s(invocation_id), s(recorded), loop.index | string, s(details),
    ] | join(', ') ~ ')') -%}
  {%- endfor -%}
  {{ return(tuples | join(',\n')) }}
{% endmacro %}
