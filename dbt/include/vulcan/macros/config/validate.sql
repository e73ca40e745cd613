{#- The model config validator, in Jinja: one implementation for the adapter and the package.

    vulcan_settings(node, kind) reads a dbt node (the materialization's `model`, or a graph
    node of a run-operation: a dict with `name`, `config`, `unrendered_config`) and returns
    its kind's normalized settings, or raises ONE compiler error listing every problem:
    "Invalid config for model '<name>' (<kind>), N problem(s):\n  - ...".

    Each key's check, allowed values, minimum and default come from the one declaration
    (config_keys.sql: `check`, `allowed`, `min`, `value`, `checked_on`, ...; a set value is
    checked in validate_values.sql, the time keys in validate_times.sql). This file adds
    the order the problems are listed in and the checks between keys (start before end, the
    schedule, partitions, the SCD type 2 defaults). tests/oracle/config.py
    (`settings(node, kind).as_dict()`) is its test oracle
    (tests/unit/macros/config/test_validate_macros.py): same settings, same message.

    Typo rule (config.py's `closest_key` is the same): an unknown key gets "did you mean" the
    accepted key nearest to it by edit distance (insert, delete or replace a character, or
    swap two adjacent ones), when that distance is at most 1, or at most 2 for a key of 8
    characters or more (dbt's `grants`, on every node, is 2 edits from `grains`); ties go to
    the first in sorted order. -#}
{% macro vulcan_settings(node, kind=none) %}
  {%- set result = dbt_vulcan.vulcan_cfg_run(node, kind) -%}
  {%- if result.message -%}
    {{ exceptions.raise_compiler_error(result.message) }}
  {%- endif -%}
  {{ return(result.settings) }}
{% endmacro %}

{#- A node's config as the user wrote it: a value dbt-core gives every node (a key's
    `dbt_node_value`, e.g. microbatch's `lookback: 1`) is dropped unless the model, a
    properties file or dbt_project.yml set it (it is then in the node's unrendered config).
    dbt-vulcan's own keys may also be given under `meta`. -#}
{% macro vulcan_node_config(node) %}
  {%- set values = {} -%}
  {%- do values.update(node.get('config') or {}) -%}
  {%- set set_by_user = {} -%}
  {%- do set_by_user.update(node.get('unrendered_config') or {}) -%}
  {%- do set_by_user.update(node.get('config_call_dict') or {}) -%}
  {%- for row in dbt_vulcan.vulcan_config_keys() if 'dbt_node_value' in row -%}
    {%- if row.name in values and values[row.name] == row.dbt_node_value and row.name not in set_by_user -%}
      {%- do values.pop(row.name) -%}
    {%- endif -%}
  {%- endfor -%}
  {#- dbt-vulcan's own keys may also sit under `meta` (dbt 1.10+ asks custom keys to, and
      dbt v2 requires it: there `config.get` does not return a custom key set directly); a key
      set directly wins, a key dbt-core gives every node as none (`unique_key`) does not. The
      model being run reads them with dbt's `config.meta_get` where dbt has it (1.10+, v2); a
      graph node (run-operations) from its config's `meta`. -#}
  {%- set current = model is defined and model is not none and node.get('unique_id') == model.get('unique_id') -%}
  {%- set meta_get = config.meta_get if current and config is defined and config.meta_get is defined else none -%}
  {%- set meta = values.get('meta') -%}
  {%- if meta is mapping or meta_get is not none -%}
    {%- for row in dbt_vulcan.vulcan_config_keys() if not row.get('dbt') -%}
      {%- for name in [row.name] + row.get('aliases', []) if values.get(name) is none -%}
        {%- set value = meta_get(name) if meta_get is not none else meta.get(name) -%}
        {%- if value is not none -%}
          {%- do values.update({name: value}) -%}
        {%- endif -%}
      {%- endfor -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return(values) }}
{% endmacro %}

{#- The key a model's partition columns were given with, for messages: dbt's `partition_by`
    when only it is set, else `partitioned_by`. -#}
{% macro vulcan_partition_key(node) %}
  {%- set config = dbt_vulcan.vulcan_node_config(node) -%}
  {{ return('partition_by' if config.get('partitioned_by') is none and config.get('partition_by') is not none else 'partitioned_by') }}
{% endmacro %}

{# ------------------------------------------------------------------------------ helpers #}

{#- {settings, errors, message}: message is none when there is no problem. -#}
{% macro vulcan_cfg_run(node, kind) %}
  {%- set config = dbt_vulcan.vulcan_node_config(node) -%}
  {%- set name = node.get('name', '?') | string -%}
  {%- set chosen = kind or (config.get('materialized', '') | string) -%}
  {%- set kinds = dbt_vulcan.vulcan_kinds() -%}
  {%- if chosen not in kinds -%}
    {%- set message = "Model '" ~ name ~ "': materialized " ~ dbt_vulcan.vulcan_repr(chosen) ~ ' is not one of: ' ~ kinds | join(', ') -%}
    {{ return({'settings': none, 'errors': [message], 'message': message}) }}
  {%- endif -%}
  {%- set result = dbt_vulcan._vulcan_cfg_validate(name, chosen, config) -%}
  {%- set errors = result.errors -%}
  {%- set message = none -%}
  {%- if errors -%}
    {%- set lines = [] -%}
    {%- for problem in errors -%}{%- do lines.append('  - ' ~ problem) -%}{%- endfor -%}
    {%- set message = "Invalid config for model '" ~ name ~ "' (" ~ chosen ~ '), ' ~ errors | length ~ ' problem(s):\n' ~ lines | join('\n') -%}
  {%- endif -%}
  {{ return({'settings': none if errors else result.settings, 'errors': errors, 'message': message}) }}
{% endmacro %}

{#- The declaration, indexed: {rows: {name: row with `kinds` and `checked_on` as lists},
    kind_keys: {kind: the names and aliases it accepts}, dbt_keys: dbt's keys never refused}. -#}
{% macro _vulcan_cfg_table() %}
  {%- set kinds = dbt_vulcan.vulcan_kinds() -%}
  {%- set rows = {} -%}
  {%- set kind_keys = {} -%}
  {%- for kind in kinds -%}{%- do kind_keys.update({kind: []}) -%}{%- endfor -%}
  {%- set dbt_keys = dbt_vulcan.vulcan_dbt_other_keys() | list -%}
  {%- for declared in dbt_vulcan.vulcan_config_keys() -%}
    {%- set row = {} -%}
    {%- do row.update(declared) -%}
    {%- do row.update({'kinds': kinds if declared.kinds == 'all' else declared.kinds}) -%}
    {%- set checked_on = declared.get('checked_on', row.kinds) -%}
    {%- do row.update({'checked_on': kinds if checked_on == 'all' else checked_on}) -%}
    {%- do rows.update({row.name: row}) -%}
    {%- set names = [row.name] + row.get('aliases', []) -%}
    {%- if row.get('dbt') -%}
      {%- do dbt_keys.extend(names) -%}
    {%- else -%}
      {%- for kind in row.kinds -%}{%- do kind_keys[kind].extend(names) -%}{%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'rows': rows, 'kind_keys': kind_keys, 'dbt_keys': dbt_keys}) }}
{% endmacro %}

{#- The checks, in the order config.py lists their problems: a key name (checked on its
    `checked_on` kinds) or [name, kinds] where a key is checked at two places. -#}
{% macro _vulcan_cfg_steps() %}
  {%- set SCD = ['scd_type_2_by_time', 'scd_type_2_by_column'] -%}
  {{ return([
    'file_format', 'forward_only', 'disable_restatement', 'on_destructive_change',
    'on_additive_change', 'partition_by',
    'liquid_clustered_by', 'auto_liquid_cluster', 'zorder', 'skip_optimize', 'location_root',
    'databricks_tags',
    'start', 'end', 'allow_partials', 'lookback', 'batch_size', 'cron',
    'wait_for_upstream', 'ignore_upstream', 'ready_when', 'ready_intervals',
    'time_column', ['time_data_type', ['incremental_by_time_range', 'tracked']], 'partition_by_time_column',
    'unique_key', 'when_matched', 'merge_filter', 'skip_unchanged_rows',
    'valid_from_name', 'valid_to_name', 'updated_at_name', 'invalidate_hard_deletes',
    ['disable_restatement', SCD], ['time_data_type', SCD],
    'updated_at_as_valid_from', 'execution_time_as_valid_from', 'columns',
    ['batch_size', ['incremental_unmanaged']],
    'group_key', 'content_hash_column',
    'grains', 'audits', 'safety_overrides',
  ]) }}
{% endmacro %}

{% macro _vulcan_cfg_validate(model, kind, config) %}
  {%- set table = dbt_vulcan._vulcan_cfg_table() -%}
  {%- set rows = table.rows -%}
  {%- set errors = [] -%}
  {#- every setting starts at its default -#}
  {#- grains_audit as given: the audits' parser (audits/audit_parse.sql) checks it with the audits -#}
  {%- set s = {'model': model, 'kind': kind, 'time_format': none, 'partition_cols': [], 'grains_audit': config.get('grains_audit')} -%}
  {%- for row in rows.values() if 'value' in row -%}
    {%- set value = row.get('value_by_adapter', {}).get(adapter.type(), row.value) -%}
    {%- do s.update({row.name: row.get('value_by_kind', {}).get(kind, value)}) -%}
  {%- endfor -%}
  {%- do errors.extend(dbt_vulcan._vulcan_cfg_unknown_keys(kind, config, table)) -%}
  {%- for row in rows.values() if kind in row.get('required_by', []) -%}
    {%- if config.get(row.name) in (none, '', []) -%}
      {%- do errors.append(row.name ~ ': required for ' ~ kind) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set extra = {'partitions': []} -%}
  {%- for step in dbt_vulcan._vulcan_cfg_steps() -%}
    {%- set row = rows[step] if step is string else rows[step[0]] -%}
    {%- set kinds = row.checked_on if step is string else step[1] -%}
    {%- if kind in kinds -%}
      {%- do dbt_vulcan._vulcan_cfg_step(row, kind, config, s, errors, extra) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do dbt_vulcan._vulcan_cfg_clustering(kind, config, s, errors, extra) -%}
  {#- an external parquet table (location_root) is not partitioned: Spark keeps the files of
      its dropped partitions, and a rebuild's CREATE TABLE AS SELECT recovers every partition
      folder it finds -#}
  {%- set by_time = [s.time_column] if kind == 'incremental_by_time_range' and s.time_column and s.partition_by_time_column else [] -%}
  {%- if s.location_root and s.file_format == 'parquet' and (extra.partitions or by_time) -%}
    {%- do errors.append('location_root: ' ~ dbt_vulcan.vulcan_repr(s.location_root) ~ ' with a parquet table partitioned by ' ~ dbt_vulcan.vulcan_repr(by_time + extra.partitions) ~ ": Spark keeps the files of an external table's dropped partitions and a rebuild finds them again, so rows a run removed could come back (use file_format delta or iceberg, leave location_root out, or do not partition" ~ (': partition_by_time_column: false' if by_time else '') ~ ')') -%}
  {%- endif -%}
  {%- if kind == 'incremental_by_time_range' -%}
    {%- set leading = [s.time_column] if s.time_column and s.partition_by_time_column else [] -%}
    {%- do s.update({'partition_cols': leading + extra.partitions | reject('equalto', s.time_column) | list}) -%}
  {%- else -%}
    {%- do s.update({'partition_cols': extra.partitions}) -%}
  {%- endif -%}
  {{ return({'settings': s, 'errors': errors}) }}
{% endmacro %}

{#- Delta's liquid clustering and Z-ordering, as dbt-databricks configures them, checked
    together: a Delta table is clustered or partitioned, not both (a clustered time range table
    is not partitioned by its time column unless partition_by_time_column says so, which is
    refused), and Delta's OPTIMIZE refuses ZORDER BY on a clustered table. -#}
{% macro _vulcan_cfg_clustering(kind, config, s, errors, extra) %}
  {%- set key = 'liquid_clustered_by' if s.liquid_clustered_by else ('auto_liquid_cluster' if s.auto_liquid_cluster else none) -%}
  {%- if s.liquid_clustered_by and s.auto_liquid_cluster -%}
    {%- do errors.append('auto_liquid_cluster: true with liquid_clustered_by ' ~ dbt_vulcan.vulcan_repr(s.liquid_clustered_by) ~ ': set one (liquid_clustered_by names the columns, auto_liquid_cluster lets Databricks choose them)') -%}
  {%- endif -%}
  {%- for name in [key, 'zorder'] if name and s[name] and s.file_format != 'delta' -%}
    {%- do errors.append(name ~ ': a Delta feature, and file_format is ' ~ dbt_vulcan.vulcan_repr(s.file_format) ~ ' (set file_format: delta, or remove ' ~ name ~ ')') -%}
  {%- endfor -%}
  {%- if key and extra.partitions -%}
    {%- set why = ', which incremental_by_partition needs (it replaces whole partitions): cluster a model of another kind' if kind == 'incremental_by_partition' else ': remove one of the two' -%}
    {%- do errors.append(key ~ ': Delta clusters a table or partitions it, not both, and partition_by is ' ~ dbt_vulcan.vulcan_repr(extra.partitions) ~ why) -%}
  {%- endif -%}
  {%- if key and kind == 'incremental_by_time_range' -%}
    {%- if config.get('partition_by_time_column') is not none and s.partition_by_time_column -%}
      {%- do errors.append('partition_by_time_column: true with ' ~ key ~ ': Delta clusters a table or partitions it, not both (remove partition_by_time_column: a clustered table is not partitioned by its time column)') -%}
    {%- endif -%}
    {%- do s.update({'partition_by_time_column': false}) -%}
  {%- endif -%}
  {%- if key and s.zorder -%}
    {%- do errors.append('zorder: ' ~ dbt_vulcan.vulcan_repr(s.zorder) ~ ' with ' ~ key ~ ": Delta's OPTIMIZE does not Z-order a clustered table (remove zorder: clustering orders the data)") -%}
  {%- endif -%}
{% endmacro %}

{#- One step: check the key's value, record its problems, update the settings `s`. -#}
{% macro _vulcan_cfg_step(row, kind, config, s, errors, extra) %}
  {%- set name = row.name -%}
  {%- set check = row.check -%}
  {%- set value = config.get(name) -%}
  {%- if kind == 'incremental_unmanaged' and name == 'batch_size' -%}
    {%- if value is not none -%}
      {%- do errors.append('batch_size: incremental_unmanaged appends the whole query result each run; it has no batches (remove batch_size)') -%}
    {%- endif -%}
  {%- elif check == 'partitions' -%}
    {%- do dbt_vulcan._vulcan_cfg_partitions(row, kind, config, errors, extra) -%}
  {%- elif check == 'cron' -%}
    {%- set schedule = dbt_vulcan._vulcan_cfg_schedule(value, config.get('interval_unit'), config.get('week_start'), s.allow_partials) -%}
    {%- if schedule.error -%}
      {%- do errors.append(dbt_vulcan._vulcan_cfg_prefixed('cron', schedule.error)) -%}
    {%- else -%}
      {%- do s.update({'cron': schedule.cron, 'interval_unit': schedule.interval_unit, 'week_start': schedule.week_start}) -%}
    {%- endif -%}
  {%- elif check in ('time', 'end_time') -%}
    {%- if value is not none -%}
      {%- set parsed = dbt_vulcan.vulcan_cfg_parse_time(value, name, check == 'end_time') -%}
      {%- if parsed.error -%}
        {%- do errors.append(dbt_vulcan._vulcan_cfg_prefixed(name, parsed.error)) -%}
      {%- else -%}
        {%- do s.update({name: dbt_vulcan.vulcan_format_ts(parsed.time)}) -%}
      {%- endif -%}
    {%- endif -%}
    {%- if check == 'end_time' and value is not none and s.start and s.end and dbt_vulcan.vulcan_parse_ts(s.start) >= dbt_vulcan.vulcan_parse_ts(s.end) -%}
      {%- do errors.append('start: ' ~ dbt_vulcan.vulcan_repr(config.get('start')) ~ ' is not before end ' ~ dbt_vulcan.vulcan_repr(value)) -%}
    {%- endif -%}
  {%- elif check == 'time_column' -%}
    {%- if value is not none -%}
      {%- set column = dbt_vulcan._vulcan_cfg_time_column(value) -%}
      {%- if column.error -%}
        {%- do errors.append(column.error) -%}
      {%- else -%}
        {%- do s.update({'time_column': column.column, 'time_format': column.format}) -%}
        {%- set format_error = dbt_vulcan._vulcan_cfg_format_error(column.format) -%}
        {%- if format_error -%}
          {%- do errors.append(dbt_vulcan._vulcan_cfg_prefixed('time_column', format_error)) -%}
        {%- endif -%}
        {%- if column.format is not none -%}{%- do s.update({'time_data_type': 'string'}) -%}{%- endif -%}
      {%- endif -%}
    {%- endif -%}
  {%- elif check == 'audits' -%}
    {%- set ns = namespace(value=none) -%}
    {%- for key in [name] + row.get('aliases', []) if ns.value is none -%}
      {%- set ns.value = config.get(key) -%}
    {%- endfor -%}
    {%- if ns.value is not none and not dbt_vulcan._vulcan_cfg_is_list(ns.value, true) -%}
      {%- do errors.append(name ~ ': ' ~ dbt_vulcan.vulcan_repr(ns.value) ~ ' is not a list of audits') -%}
    {%- else -%}
      {%- do s.update({name: (ns.value or []) | list}) -%}
    {%- endif -%}
  {%- elif value is not none -%}
    {%- set result = dbt_vulcan._vulcan_cfg_value(row, kind, value) -%}
    {%- do errors.extend(result.errors) -%}
    {%- if not result.errors -%}{%- do s.update({name: result.value}) -%}{%- endif -%}
  {%- endif -%}
{% endmacro %}

{#- The extra partition columns, from the alias (`partitioned_by`, Vulcan's name) or dbt's
    `partition_by`: both set, they must name the same columns. -#}
{% macro _vulcan_cfg_partitions(row, kind, config, errors, extra) %}
  {%- set given = {} -%}
  {%- set names = row.get('aliases', []) + [row.name] -%}
  {%- for key in names if config.get(key) is not none -%}
    {%- set result = dbt_vulcan._vulcan_cfg_columns(key, config.get(key)) -%}
    {%- do errors.extend(result.errors) -%}
    {%- do given.update({key: result.value}) -%}
  {%- endfor -%}
  {%- if given | length == 2 -%}
    {%- set first = given[names[0]] -%}
    {%- set second = given[names[1]] -%}
    {%- if first and second and first | map('lower') | list != second | map('lower') | list -%}
      {%- do errors.append(names[0] ~ ': ' ~ dbt_vulcan.vulcan_repr(config[names[0]]) ~ ' differs from ' ~ names[1] ~ ': ' ~ dbt_vulcan.vulcan_repr(config[names[1]]) ~ '; ' ~ names[0] ~ " is an alias of dbt's " ~ names[1] ~ ': set one of them (or both to the same columns)') -%}
    {%- endif -%}
  {%- endif -%}
  {%- for key in names if key in given -%}
    {%- if loop.first -%}{%- do extra.update({'partitions': given[key]}) -%}{%- endif -%}
  {%- endfor -%}
  {%- if kind == 'incremental_by_partition' and not extra.partitions and not given -%}
    {%- do errors.append(names[0] ~ ': required for incremental_by_partition: the column(s) whose values make a partition, e.g. ' ~ names[0] ~ ": ['warehouse_id'] (dbt's " ~ names[1] ~ ' works too)') -%}
  {%- endif -%}
{% endmacro %}

{#- Keys this kind does not accept: one of another kind names its owners; an unknown one near
    an accepted key (the typo rule above) gets "did you mean". Unset keys (none) are fine. -#}
{% macro _vulcan_cfg_unknown_keys(kind, config, table) %}
  {%- set allowed = table.kind_keys[kind] -%}
  {%- set candidates = (allowed + table.dbt_keys) | unique(case_sensitive=true) | sort(case_sensitive=true) -%}
  {%- set errors = [] -%}
  {%- for key in config.keys() | sort(case_sensitive=true) -%}
    {%- if key not in allowed and key not in table.dbt_keys and config[key] is not none -%}
      {%- set owners = [] -%}
      {%- for other in table.kind_keys if key in table.kind_keys[other] -%}{%- do owners.append(other) -%}{%- endfor -%}
      {%- if owners -%}
        {%- do errors.append(key ~ ': not an option of ' ~ kind ~ ' (it belongs to ' ~ owners | join(', ') ~ '); allowed here: ' ~ allowed | unique(case_sensitive=true) | sort(case_sensitive=true) | join(', ')) -%}
      {%- else -%}
        {%- set close = dbt_vulcan.vulcan_closest(key, candidates) -%}
        {%- if close is not none -%}
          {%- do errors.append(key ~ ': unknown config key; did you mean `' ~ close ~ '`?') -%}
        {%- endif -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(errors) }}
{% endmacro %}

{#- A problem as config.py's collector records it: prefixed with the key unless it names it. -#}
{% macro _vulcan_cfg_prefixed(key, text) %}{{ return(text if key in text else key ~ ': ' ~ text) }}{% endmacro %}
