{#- Appends rows to the log (never UPDATE or DELETE), in one statement that is safe while dbt
    threads and other dbt processes append too, in both modes. `values_sql` comes from
    vulcan_state_values (plan.sql): every value is escaped there. -#}
{% macro vulcan_record_intervals(values_sql) %}
  {%- if values_sql -%}
    {% call statement('vulcan_record_intervals') -%}
      {{ dbt_vulcan.vulcan_state_insert_sql(values_sql) }}
    {%- endcall %}
  {%- endif -%}
{% endmacro %}

{#- The append of `values_sql`. Delta and Iceberg: an INSERT (their commits take concurrent
    appends). Parquet: a new partition per relation, named by this append's id (the invocation
    and the moment, unique: a model's appends are sequential statements), written by dynamic
    partition overwrite into a partition no one else writes (create_state_table.sql). -#}
{% macro vulcan_state_insert_sql(values_sql) %}
  {%- set state = dbt_vulcan.vulcan_state_relation() -%}
  {%- set file_format = dbt_vulcan.vulcan_state_file_format() -%}
  {%- if file_format != 'parquet' -%}
    {{ return('insert into ' ~ state ~ ' values ' ~ values_sql) }}
  {%- endif -%}
  {%- set row = dbt_vulcan._vulcan_state_row() | map(attribute=0) | list -%}
  {%- set append_id = invocation_id ~ '-' ~ modules.datetime.datetime.now().strftime('%Y%m%d%H%M%S%f') -%}
  {%- set names = dbt_vulcan.vulcan_state_columns(file_format) | map(attribute=0) | list -%}
  {%- set selected = names[:-1] + [dbt_vulcan.vulcan_sql_string(append_id)] -%}
  {{ return('insert overwrite table ' ~ state ~ ' partition (relation, append_id)\nselect ' ~ selected | join(', ') ~ '\nfrom values ' ~ values_sql ~ '\nas vulcan_rows(' ~ row | join(', ') ~ ')') }}
{% endmacro %}
