{#- A model's config checked against its query's columns, before anything is created, written
    or recorded: the time column (present, and a time: an int/bigint column needs an explicit
    time_data_type) and the partition columns of a new table. Every problem at once. The
    columns come from the one schema read a run already makes. tests/oracle/engine.py is the test
    oracle (time_column_type, check, message). -#}

{#- {'time_type': ..., 'problem': none} or {'time_type': none, 'problem': '...'} -#}
{% macro vulcan_time_column_type(cfg, columns) %}
  {%- set column = cfg.time_column -%}
  {%- set r = dbt_vulcan.vulcan_repr -%}
  {%- set hint = 'time_data_type: int, bigint or epoch (epoch seconds) or epoch_millis (epoch milliseconds)' -%}
  {%- set ns = namespace(dtype=none) -%}
  {%- for c in columns if ns.dtype is none and (c.name | lower) == (column | lower) -%}
    {%- set ns.dtype = c.dtype | lower -%}
  {%- endfor -%}
  {%- if ns.dtype is none -%}
    {{ return({'time_type': none, 'problem': 'time_column: ' ~ r(column) ~ " is not a column of the model's query; its columns are: " ~ columns | map(attribute='name') | join(', ')}) }}
  {%- endif -%}
  {%- set dtype = ns.dtype -%}
  {%- set base = dtype.split('(')[0].strip() -%}
  {%- set number = base in ('tinyint', 'smallint', 'int', 'integer', 'bigint', 'decimal', 'float', 'double') -%}
  {%- set times = {'date': 'date', 'timestamp': 'timestamp', 'timestamp_ntz': 'timestamp_ntz'} -%}
  {%- set declared = cfg.time_data_type -%}
  {%- if declared -%}
    {%- if number and declared not in ('int', 'bigint', 'epoch', 'epoch_millis') -%}
      {{ return({'time_type': none, 'problem': 'time_column: ' ~ r(column) ~ ' has type ' ~ dtype ~ ' but time_data_type is ' ~ r(declared) ~ '; a numeric time column holds epochs: set ' ~ hint}) }}
    {%- endif -%}
    {%- if base in times and declared in ('int', 'bigint', 'epoch', 'epoch_millis') -%}
      {{ return({'time_type': none, 'problem': 'time_column: ' ~ r(column) ~ ' has type ' ~ dtype ~ ' but time_data_type is ' ~ r(declared) ~ ' (epoch numbers); remove time_data_type or set it to date, timestamp or timestamp_ntz'}) }}
    {%- endif -%}
    {{ return({'time_type': declared, 'problem': none}) }}
  {%- endif -%}
  {%- if number -%}
    {{ return({'time_type': none, 'problem': 'time_column: ' ~ r(column) ~ ' has type ' ~ dtype ~ ', which is not a time; a number is read as a time only when told how: set ' ~ hint}) }}
  {%- endif -%}
  {%- if base == 'string' -%}{{ return({'time_type': 'string', 'problem': none}) }}{%- endif -%}
  {%- if base in times -%}{{ return({'time_type': times[base], 'problem': none}) }}{%- endif -%}
  {{ return({'time_type': none, 'problem': 'time_column: ' ~ r(column) ~ ' has type ' ~ dtype ~ ", which is not a time; a time column is a date, timestamp or timestamp_ntz column, a string column (with its format, e.g. time_column: ['day', '%Y%m%d']) or an int/bigint epoch column (with " ~ hint ~ ')'}) }}
{% endmacro %}

{#- The problems of the config against the query's columns (a list of strings). `new_table`:
    the run creates the table, so its partition columns are checked; `key`: the config key the
    partition columns came from (vulcan_partition_key). -#}
{% macro vulcan_column_problems(cfg, columns, new_table, key='partitioned_by') %}
  {%- set problems = [] -%}
  {%- if cfg.time_column -%}
    {%- set found = dbt_vulcan.vulcan_time_column_type(cfg, columns) -%}
    {%- if found.problem -%}{%- do problems.append(found.problem) -%}{%- endif -%}
    {%- do problems.extend(dbt_vulcan.vulcan_time_grain_problems(cfg, found.time_type)) -%}
  {%- endif -%}
  {%- if new_table -%}
    {%- set names = columns | map(attribute='name') | list -%}
    {%- set lowered = names | map('lower') | list -%}
    {%- set skip = (cfg.time_column | lower) if cfg.kind == 'incremental_by_time_range' and cfg.time_column else none -%}
    {%- for column in cfg.partition_cols or [] if (column | lower) not in lowered and (column | lower) != skip -%}
      {%- do problems.append(key ~ ': ' ~ dbt_vulcan.vulcan_repr(column) ~ " is not a column of the model's query, so a new table cannot be partitioned by it; its columns are: " ~ names | join(', ')) -%}
    {%- endfor -%}
    {#- Spark refuses a table whose every column is a partition column -#}
    {%- set partitions = (cfg.partition_cols or []) | map('lower') | list -%}
    {%- if names and lowered | reject('in', partitions) | list | length == 0 -%}
      {%- set by_time = skip is not none and cfg.partition_by_time_column and skip in partitions -%}
      {%- set label = 'partition_by_time_column' if by_time and partitions | unique | list == [skip] else key -%}
      {%- set fix = 'set partition_by_time_column: false' if by_time else 'partition by fewer columns' -%}
      {%- do problems.append(label ~ ': every column of the query (' ~ names | join(', ') ~ ') would be a partition column of the new table, and Spark needs at least one that is not: add a column to the query, or ' ~ fix) -%}
    {%- endif -%}
  {%- endif -%}
  {{ return(problems) }}
{% endmacro %}

{#- A time range model's time column that holds days (a date, or a string with a date-only
    format) under an interval unit finer than a day: a batch of hours would replace its whole
    day (parquet's partition overwrite, Delta's REPLACE WHERE) while only its hours are
    recorded. And a text format with a time of day that does not sort as text on Delta.
    Refused (tests/oracle/engine.py's grain_problems). -#}
{% macro vulcan_time_grain_problems(cfg, time_type) %}
  {%- set finer = ['five_minute', 'quarter_hour', 'half_hour', 'hour'] -%}
  {%- set py_format = dbt_vulcan.vulcan_strftime_format(cfg.time_format) -%}
  {%- set with_time = dbt_vulcan.vulcan_format_has_time(py_format) -%}
  {#- a text format with a time of day that does not sort as text is compared parsed, which
      Delta's REPLACE WHERE cannot take -#}
  {%- if cfg.kind == 'incremental_by_time_range' and time_type == 'string' and with_time and cfg.file_format == 'delta' and not dbt_vulcan.vulcan_format_sorts_as_text(py_format) -%}
    {{ return(['time_column: format ' ~ dbt_vulcan.vulcan_repr(cfg.time_format) ~ ' does not sort as text, so a range of it is compared as parsed times, which a Delta REPLACE WHERE cannot take. Use a format that sorts as text (year, month, day, hour, ... in that order, e.g. \'yyyy-MM-dd HH:mm\'), or file_format parquet or iceberg']) }}
  {%- endif -%}
  {%- if cfg.kind != 'incremental_by_time_range' or cfg.interval_unit not in finer or time_type not in ('date', 'string') -%}
    {{ return([]) }}
  {%- endif -%}
  {%- if time_type == 'string' and with_time -%}{{ return([]) }}{%- endif -%}
  {%- set held = 'type date' if time_type == 'date' else 'format ' ~ dbt_vulcan.vulcan_repr(cfg.time_format) -%}
  {{ return(['time_column: ' ~ dbt_vulcan.vulcan_repr(cfg.time_column) ~ ' holds days (' ~ held ~ ') but the interval unit is ' ~ cfg.interval_unit ~ ' (cron ' ~ dbt_vulcan.vulcan_repr(cfg.cron) ~ '): each batch would replace whole days while recording only its ' ~ cfg.interval_unit ~ ' intervals. Use a timestamp time column (or a string format with the hour), or a daily schedule (cron: "@daily" or interval_unit: day)']) }}
{% endmacro %}

{% macro vulcan_config_message(cfg, problems) %}
  {%- set lines = [] -%}
  {%- for p in problems -%}{%- do lines.append('  - ' ~ p) -%}{%- endfor -%}
  {{ return("Invalid config for model '" ~ cfg.model ~ "' (" ~ cfg.kind ~ '), ' ~ problems | length ~ ' problem(s):\n' ~ lines | join('\n')) }}
{% endmacro %}

{#- Raise one error naming every problem (the own ones, then `extra_problems`). -#}
{% macro vulcan_check_columns(cfg, columns, new_table, key='partitioned_by', extra_problems=[]) %}
  {%- set problems = dbt_vulcan.vulcan_column_problems(cfg, columns, new_table, key) + extra_problems -%}
  {%- if problems -%}
    {{ exceptions.raise_compiler_error(dbt_vulcan.vulcan_config_message(cfg, problems)) }}
  {%- endif -%}
{% endmacro %}

{#- The time_data_type of the model's time column from the query's columns, or an error. -#}
{% macro vulcan_time_type(cfg, columns) %}
  {%- set found = dbt_vulcan.vulcan_time_column_type(cfg, columns) -%}
  {%- if found.problem or not found.time_type -%}
    {{ exceptions.raise_compiler_error(dbt_vulcan.vulcan_config_message(cfg, [found.problem])) }}
  {%- endif -%}
  {{ return(found.time_type) }}
{% endmacro %}
