{#- Appends rows to the log (never UPDATE or DELETE), in one statement that is safe while dbt
    threads and other dbt processes append too, in both modes. `values_sql` comes from
    vulcan_state_values (below): every value is escaped there. -#}
{% macro vulcan_record_intervals(values_sql, append_id=none) %}
  {%- if values_sql -%}
    {%- set append_id = append_id or (dbt_vulcan.vulcan_state_append_id() if dbt_vulcan.vulcan_state_file_format() == 'parquet' else none) -%}
    {% do dbt_vulcan._vulcan_state_append(dbt_vulcan._vulcan_state_insert_head(), dbt_vulcan._vulcan_state_insert_body(values_sql, append_id), values_sql, append_id) %}
  {%- endif -%}
{% endmacro %}

{#- The append's statement: its own in the package. The `vulcan` adapter commits the appends
    of its threads that come together in one statement (group_commit.py), returning once this
    one's rows are committed, and keeps them with the rows this invocation read (state/log.sql,
    vulcan___vulcan_log_rows). -#}
{% macro _vulcan_state_append(head, body, values_sql, append_id) %}
  {{ return(adapter.dispatch('_vulcan_state_append', 'dbt_vulcan')(head, body, values_sql, append_id)) }}
{% endmacro %}

{% macro default___vulcan_state_append(head, body, values_sql, append_id) %}
  {% call statement('vulcan_record_intervals') -%}
    {{ head ~ body }}
  {%- endcall %}
{% endmacro %}

{% macro vulcan___vulcan_state_append(head, body, values_sql, append_id) %}
  {% do adapter.vulcan_state_append(dbt_vulcan.vulcan_state_relation() | string, invocation_id, head, body, values_sql, append_id) %}
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
    of the same run may drop again) names the append with vulcan_state_append_id first.
    The INSERT's head, which the appends of one statement share (group_commit.py): -#}
{% macro _vulcan_state_insert_head() %}
  {%- set state = dbt_vulcan.vulcan_state_relation() -%}
  {%- if dbt_vulcan.vulcan_state_file_format() != 'parquet' -%}
    {{ return('insert into ' ~ state ~ ' ') }}
  {%- endif -%}
  {{ return('insert overwrite table ' ~ state ~ ' partition (relation, append_id)\n') }}
{% endmacro %}

{#- One append's rows after the head: `values ...`, or on parquet the select of them with the
    append's id (vulcan_record_intervals chose it; several appends' bodies join with
    `union all`). -#}
{% macro _vulcan_state_insert_body(values_sql, append_id) %}
  {%- set file_format = dbt_vulcan.vulcan_state_file_format() -%}
  {%- if file_format != 'parquet' -%}
    {{ return('values ' ~ values_sql) }}
  {%- endif -%}
  {%- set row = dbt_vulcan._vulcan_state_row() | map(attribute=0) | list -%}
  {%- set names = dbt_vulcan.vulcan_state_columns(file_format) | map(attribute=0) | list -%}
  {%- set selected = names[:-1] + [dbt_vulcan.vulcan_sql_string(append_id)] -%}
  {{ return('select ' ~ selected | join(', ') ~ '\nfrom values ' ~ values_sql ~ '\nas vulcan_rows(' ~ row | join(', ') ~ ')') }}
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
