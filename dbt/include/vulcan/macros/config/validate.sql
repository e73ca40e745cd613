{#- The model config validator, in Jinja: one implementation for the adapter and the package.

    vulcan_settings(node, kind) reads a dbt node (the materialization's `model`, or a graph
    node of a run-operation: a dict with `name`, `config`, `unrendered_config`) and returns
    its kind's normalized settings, or raises ONE compiler error listing every problem:
    "Invalid config for model '<name>' (<kind>), N problem(s):\n  - ...".

    Each key's check, allowed values, minimum and default come from the one declaration
    (config_keys.sql: `check`, `allowed`, `min`, `value`, `checked_on`, ...). This file adds
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

{#- The problems vulcan_settings would raise, one string each ([] if none). -#}
{% macro vulcan_settings_errors(node, kind=none) %}
  {{ return(dbt_vulcan.vulcan_cfg_run(node, kind).errors) }}
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
      set directly wins. The model being run reads them with dbt's `config.meta_get` where dbt
      has it (1.10+, v2); a graph node (run-operations) from its config's `meta`. -#}
  {%- set current = model is defined and model is not none and node.get('unique_id') == model.get('unique_id') -%}
  {%- set meta_get = config.meta_get if current and config is defined and config.meta_get is defined else none -%}
  {%- set meta = values.get('meta') -%}
  {%- if meta is mapping or meta_get is not none -%}
    {%- for row in dbt_vulcan.vulcan_config_keys() if not row.get('dbt') -%}
      {%- for name in [row.name] + row.get('aliases', []) if name not in values -%}
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

{#- {value, errors} of one set value, by the key's `check`. -#}
{% macro _vulcan_cfg_value(row, kind, value) %}
  {%- set name = row.name -%}
  {%- set check = row.check -%}
  {%- set shown = dbt_vulcan.vulcan_repr(value) -%}
  {%- if check == 'bool' -%}
    {%- if value is boolean -%}
      {{ return({'value': value, 'errors': []}) }}
    {%- elif value is string and value.lower() in ('true', 'false') -%}
      {{ return({'value': value.lower() == 'true', 'errors': []}) }}
    {%- endif -%}
    {{ return({'value': none, 'errors': [name ~ ': ' ~ shown ~ ' is not a boolean (true or false)']}) }}
  {%- elif check == 'int' -%}
    {%- set bad = name ~ ': ' ~ shown ~ ' is not an integer >= ' ~ row.min -%}
    {%- if value is integer -%}
      {%- set number = value -%}
    {%- elif value is string and modules.re.fullmatch('\\s*[+-]?\\d+(?:_\\d+)*\\s*', value) -%}
      {%- set number = value | int -%}
    {%- else -%}
      {{ return({'value': none, 'errors': [bad]}) }}
    {%- endif -%}
    {%- if number < row.min -%}
      {{ return({'value': none, 'errors': [name ~ ': ' ~ number ~ ' is not an integer >= ' ~ row.min]}) }}
    {%- endif -%}
    {{ return({'value': number, 'errors': []}) }}
  {%- elif check == 'choice' -%}
    {%- set allowed = row.get('allowed_by_kind', {}).get(kind, row.allowed) -%}
    {%- if value is string and value.lower() in allowed -%}
      {{ return({'value': value.lower(), 'errors': []}) }}
    {%- endif -%}
    {{ return({'value': none, 'errors': [name ~ ': ' ~ shown ~ ' is not one of: ' ~ allowed | join(', ')]}) }}
  {%- elif check == 'columns' -%}
    {{ return(dbt_vulcan._vulcan_cfg_columns(name, value)) }}
  {%- elif check == 'path' -%}
    {%- if value is string and value.strip() -%}
      {{ return({'value': value.strip(), 'errors': []}) }}
    {%- endif -%}
    {{ return({'value': none, 'errors': [name ~ ': ' ~ shown ~ ' is not a path']}) }}
  {%- elif check == 'tags' -%}
    {{ return(dbt_vulcan.vulcan_tags_value(name, value)) }}
  {%- elif check == 'names' -%}
    {%- set names = [value] if value is string else value -%}
    {%- if value is string or (dbt_vulcan._vulcan_cfg_is_list(value, false) and value | reject('string') | list | length == 0) -%}
      {%- set out = [] -%}
      {%- for item in names if item.strip() -%}{%- do out.append(item.strip() | lower) -%}{%- endfor -%}
      {{ return({'value': out, 'errors': []}) }}
    {%- endif -%}
    {{ return({'value': [], 'errors': [name ~ ': ' ~ shown ~ ' is not a model name or a list of model names']}) }}
  {%- elif check == 'column' or check == 'predicate' -%}
    {%- if value is string and value.strip() -%}
      {{ return({'value': value.strip(), 'errors': []}) }}
    {%- endif -%}
    {{ return({'value': none, 'errors': [name ~ ': ' ~ shown ~ (' is not a column name' if check == 'column' else ' is not a SQL predicate')]}) }}
  {%- elif check == 'scd_columns' -%}
    {%- if value == '*' -%}{{ return({'value': none, 'errors': []}) }}{%- endif -%}
    {%- set result = dbt_vulcan._vulcan_cfg_columns(name, value) -%}
    {%- if not result.value -%}
      {{ return({'value': none, 'errors': result.errors + [name ~ ": give a list of column names or '*'"]}) }}
    {%- endif -%}
    {{ return(result) }}
  {%- elif check == 'when_matched' -%}
    {%- set errors = [] -%}
    {%- set clauses = [] -%}
    {%- if value is string -%}
      {%- if value.strip() -%}{%- do clauses.append(value) -%}{%- endif -%}
    {%- elif dbt_vulcan._vulcan_cfg_is_list(value, true) and value | reject('string') | list | length == 0 -%}
      {%- do clauses.extend(value) -%}
    {%- else -%}
      {%- do errors.append(name ~ ': ' ~ shown ~ " is not a string or a list of 'WHEN MATCHED [AND ...] THEN UPDATE SET ... | DELETE' clauses") -%}
    {%- endif -%}
    {%- for clause in clauses if not clause.strip().lower().startswith('when matched') -%}
      {%- do errors.append(name ~ ': ' ~ dbt_vulcan.vulcan_repr(clause) ~ " does not start with 'WHEN MATCHED'") -%}
    {%- endfor -%}
    {{ return({'value': clauses, 'errors': errors}) }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error('config_keys.sql: key ' ~ name ~ ' has an unknown check ' ~ dbt_vulcan.vulcan_repr(check)) }}
{% endmacro %}

{#- {value, errors}: Unity Catalog tags (`databricks_tags` of a model or of a column, `name` the
    key shown): a mapping of tag names to values, as dbt-databricks reads them, the names and
    values as text (a value left empty is ''). -#}
{% macro vulcan_tags_value(name, value) %}
  {%- set bad = name ~ ': ' ~ dbt_vulcan.vulcan_repr(value) ~ " is not a mapping of tag names to values (e.g. {'team': 'finance'})" -%}
  {%- if value is not mapping -%}{{ return({'value': {}, 'errors': [bad]}) }}{%- endif -%}
  {%- set tags = {} -%}
  {%- for tag, text in value.items() -%}
    {%- if tag is not string or not tag.strip() or text is mapping or (text is iterable and text is not string) -%}
      {{ return({'value': {}, 'errors': [bad]}) }}
    {%- endif -%}
    {%- do tags.update({tag: '' if text is none else text | string}) -%}
  {%- endfor -%}
  {{ return({'value': tags, 'errors': []}) }}
{% endmacro %}

{#- {value, errors}: a column name or a list of names (blank names are dropped). -#}
{% macro _vulcan_cfg_columns(name, value) %}
  {%- if value is string -%}
    {{ return({'value': [value] if value.strip() else [], 'errors': []}) }}
  {%- elif dbt_vulcan._vulcan_cfg_is_list(value, false) and value | reject('string') | list | length == 0 -%}
    {%- set names = [] -%}
    {%- for item in value if item.strip() -%}{%- do names.append(item) -%}{%- endfor -%}
    {{ return({'value': names, 'errors': []}) }}
  {%- endif -%}
  {{ return({'value': [], 'errors': [name ~ ': ' ~ dbt_vulcan.vulcan_repr(value) ~ ' is not a column name or a list of column names']}) }}
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

{#- {column, format, error}: `time_column` is a name, [name, format] or {column:, format:}. -#}
{% macro _vulcan_cfg_time_column(value) %}
  {%- if value is string and value.strip() -%}
    {{ return({'column': value.strip(), 'format': none, 'error': none}) }}
  {%- elif dbt_vulcan._vulcan_cfg_is_list(value, false) and value | length == 2 and value | reject('string') | list | length == 0 -%}
    {{ return({'column': value[0], 'format': value[1], 'error': none}) }}
  {%- elif value is mapping and value.get('column') is string -%}
    {%- set fmt = value.get('format') -%}
    {{ return({'column': value.get('column'), 'format': fmt if fmt is string else none, 'error': none}) }}
  {%- endif -%}
  {{ return({'column': none, 'format': none, 'error': 'time_column: ' ~ dbt_vulcan.vulcan_repr(value) ~ ' is not a column name, [column, format] or {column: ..., format: ...}'}) }}
{% endmacro %}

{#- The problem of a time column's format (timemacros.py's to_python_format), or none: a
    format with '%' is strftime's; else a Spark pattern of yyyy yy MM dd HH mm ss SSSSSS,
    other characters and 'quoted text'. -#}
{% macro _vulcan_cfg_format_error(fmt) %}
  {%- if fmt is none or not fmt.strip() or '%' in fmt -%}{{ return(none) }}{%- endif -%}
  {%- set patterns = ['yyyy', 'yy', 'MM', 'dd', 'HH', 'mm', 'ss', 'SSSSSS'] -%}
  {%- set ns = namespace(next=0, bad=false) -%}
  {%- for pos in range(fmt | length) if not ns.bad and pos >= ns.next -%}
    {%- set ch = fmt[pos] -%}
    {%- if ch == "'" -%}
      {%- set close = fmt.find("'", pos + 1) -%}
      {%- set ns.bad = close < 0 -%}
      {%- set ns.next = close + 1 -%}
    {%- elif ch.isalpha() -%}
      {%- set run = modules.re.match('(.)\\1*', fmt[pos:], modules.re.S).group(0) -%}
      {%- set ns.bad = run not in patterns -%}
      {%- set ns.next = pos + run | length -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if ns.bad -%}
    {{ return('format: ' ~ dbt_vulcan.vulcan_repr(fmt) ~ " is not a supported time format; use Python strftime directives (e.g. '%Y-%m-%d') or Spark patterns built from: " ~ patterns | join(', ')) }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- {cron, interval_unit, week_start, error} as tests/oracle/schedule.py's Schedule.build: no cron, the
    unit's default cron (day if no unit either); else the unit is the cron's, or an explicit
    one no coarser than the cron's (unless allow_partials); a weekly schedule starts on the
    day all of its cron's first ticks share (monday if they do not). Weekdays: 0 = monday. -#}
{% macro _vulcan_cfg_schedule(cron, interval_unit, week_start, allow_partials) %}
  {%- set units = ['five_minute', 'quarter_hour', 'half_hour', 'hour', 'day', 'week', 'month', 'quarter', 'year'] -%}
  {%- if cron is none -%}
    {%- set unit = dbt_vulcan._vulcan_cfg_interval_unit(interval_unit or 'day', units) -%}
    {%- if unit.error -%}{{ return({'error': unit.error}) }}{%- endif -%}
    {%- set day = dbt_vulcan._vulcan_cfg_week_start(week_start) if week_start is not none else {'day': 0} -%}
    {%- if day.error -%}{{ return({'error': day.error}) }}{%- endif -%}
    {%- set crons = {
      'five_minute': '*/5 * * * *', 'quarter_hour': '*/15 * * * *', 'half_hour': '*/30 * * * *',
      'hour': '0 * * * *', 'day': '0 0 * * *', 'week': '0 0 * * ' ~ (day.day + 1) % 7,
      'month': '0 0 1 * *', 'quarter': '0 0 1 */3 *', 'year': '0 0 1 1 *',
    } -%}
    {{ return({'error': none, 'cron': crons[unit.unit], 'interval_unit': unit.unit, 'week_start': day.day}) }}
  {%- endif -%}
  {%- set ticks = dbt_vulcan.vulcan_cron_schedule(cron) -%}
  {%- if ticks.error -%}{{ return({'error': ticks.error}) }}{%- endif -%}
  {%- set normalized = ticks.cron -%}
  {%- set unit = {'unit': ticks.unit} -%}
  {%- if interval_unit is not none -%}
    {%- set unit = dbt_vulcan._vulcan_cfg_interval_unit(interval_unit, units) -%}
    {%- if unit.error -%}{{ return({'error': unit.error}) }}{%- endif -%}
    {%- set finest = units.index(ticks.unit) -%}
    {%- if not allow_partials and units.index(unit.unit) > finest -%}
      {{ return({'error': 'interval_unit: ' ~ dbt_vulcan.vulcan_repr(unit.unit) ~ ' is coarser than the cron ' ~ dbt_vulcan.vulcan_repr(normalized) ~ ' (which runs every ' ~ ticks.unit ~ '); allowed: ' ~ units[:finest + 1] | join(', ') ~ ', or set allow_partials true'}) }}
    {%- endif -%}
  {%- endif -%}
  {%- if week_start is not none -%}
    {%- set day = dbt_vulcan._vulcan_cfg_week_start(week_start) -%}
    {%- if day.error -%}{{ return({'error': day.error}) }}{%- endif -%}
  {%- elif unit.unit == 'week' and ticks.weekdays | length == 1 -%}
    {%- set day = {'day': (ticks.weekdays[0] + 6) % 7} -%}
  {%- else -%}
    {%- set day = {'day': 0} -%}
  {%- endif -%}
  {{ return({'error': none, 'cron': normalized, 'interval_unit': unit.unit, 'week_start': day.day}) }}
{% endmacro %}

{% macro _vulcan_cfg_interval_unit(value, units) %}
  {%- if value is string and value.strip().lower() in units -%}
    {{ return({'unit': value.strip().lower(), 'error': none}) }}
  {%- endif -%}
  {{ return({'unit': none, 'error': 'interval_unit: ' ~ dbt_vulcan.vulcan_repr(value) ~ ' is not one of: ' ~ units | join(', ')}) }}
{% endmacro %}

{#- {day, error}: monday..sunday, mon..sun (any case) or 0..6, 0 being monday. -#}
{% macro _vulcan_cfg_week_start(value) %}
  {%- set days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] -%}
  {%- if value is integer and 0 <= value <= 6 -%}
    {{ return({'day': value, 'error': none}) }}
  {%- elif value is string -%}
    {%- set name = value.strip().lower() -%}
    {%- if name.isdigit() and 0 <= name | int <= 6 -%}
      {{ return({'day': name | int, 'error': none}) }}
    {%- endif -%}
    {%- for day in days if name in (day, day[:3]) -%}
      {{ return({'day': days.index(day), 'error': none}) }}
    {%- endfor -%}
  {%- endif -%}
  {{ return({'day': none, 'error': 'week_start: ' ~ dbt_vulcan.vulcan_repr(value) ~ ' is not one of: ' ~ days | join(', ') ~ ' (or 0..6 with 0=monday)'}) }}
{% endmacro %}

{#- {time, error} as timeutil.py's parse_time (or parse_end when `is_end`: a date-only end
    includes its whole day): a date 'YYYY-MM-DD', a timestamp 'YYYY-MM-DD HH:MM[:SS[.f]]'
    (or 'T'; optional 'Z' or +-HH:MM offset), a date or datetime, or integer epoch seconds
    (milliseconds above 10**11); times lie between 1900-01-01 and 3000-01-01 (UTC). -#}
{% macro vulcan_cfg_parse_time(value, key, is_end=false) %}
  {%- set dt = modules.datetime -%}
  {%- set low = dt.datetime(1900, 1, 1) -%}
  {%- set high = dt.datetime(3000, 1, 1) -%}
  {%- set shown = dbt_vulcan.vulcan_repr(value) -%}
  {%- set bad = key ~ ': ' ~ shown ~ " is not a valid time; expected a date 'YYYY-MM-DD', a timestamp 'YYYY-MM-DD HH:MM[:SS[.ffffff]]' (or with 'T'; optional 'Z' or '+HH:MM' offset), a date/datetime object, or integer epoch seconds (milliseconds if > 10**11)" -%}
  {%- set out_of_range = key ~ ': ' ~ shown ~ ' is out of range; times must lie between 1900-01-01 and 3000-01-01' -%}
  {%- set date_only = false -%}
  {%- if value is string -%}
    {%- set m = modules.re.fullmatch('(?P<y>\\d{4})-(?P<mo>\\d{2})-(?P<d>\\d{2})(?:[ T](?P<h>\\d{2}):(?P<mi>\\d{2})(?::(?P<s>\\d{2})(?:\\.(?P<f>\\d{1,6}))?)?(?P<tz>Z|[+-]\\d{2}:?\\d{2})?)?', value.strip()) -%}
    {%- if m is none -%}{{ return({'time': none, 'error': bad}) }}{%- endif -%}
    {%- set g = m.groupdict() -%}
    {%- set y, mo, d = g['y'] | int, g['mo'] | int, g['d'] | int -%}
    {%- set h, mi, sec = (g['h'] or '0') | int, (g['mi'] or '0') | int, (g['s'] or '0') | int -%}
    {%- if y < 1 or not 1 <= mo <= 12 or not 1 <= d <= (31 if mo == 12 else (dt.date(y, mo + 1, 1) - dt.date(y, mo, 1)).days) or h > 23 or mi > 59 or sec > 59 -%}
      {{ return({'time': none, 'error': bad}) }}
    {%- endif -%}
    {%- set parsed = dt.datetime(y, mo, d, h, mi, sec, (g['f'] or '0').ljust(6, '0') | int) -%}
    {%- set tz = g['tz'] -%}
    {%- if tz and tz != 'Z' -%}
      {%- set digits = tz[1:].replace(':', '') -%}
      {%- if digits[:2] | int > 23 or digits[2:] | int > 59 -%}{{ return({'time': none, 'error': bad}) }}{%- endif -%}
      {%- set offset = dt.timedelta(hours=digits[:2] | int, minutes=digits[2:] | int) -%}
      {#- the UTC time must still be a datetime (Python's overflow) -#}
      {%- if (tz[0] == '+' and parsed - dt.datetime.min < offset) or (tz[0] == '-' and dt.datetime.max - parsed < offset) -%}
        {{ return({'time': none, 'error': bad}) }}
      {%- endif -%}
      {%- set parsed = parsed - offset if tz[0] == '+' else parsed + offset -%}
    {%- endif -%}
    {%- set date_only = modules.re.fullmatch('\\d{4}-\\d{2}-\\d{2}', value.strip()) is not none -%}
  {%- elif value is boolean -%}
    {{ return({'time': none, 'error': bad}) }}
  {%- elif value is integer -%}
    {%- set micros = value * (1000 if value | abs > 10 ** 11 else 1000000) -%}
    {%- if micros < -2208988800000000 or micros > 32503680000000000 -%}
      {{ return({'time': none, 'error': out_of_range}) }}
    {%- endif -%}
    {%- set parsed = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=micros) -%}
  {%- elif value is not mapping and value.year is defined and value.toordinal is defined -%}
    {#- a date or a datetime (naive: UTC; aware: converted to UTC) -#}
    {%- if value.year < 1800 or value.year > 3100 -%}{{ return({'time': none, 'error': out_of_range}) }}{%- endif -%}
    {%- if value.hour is not defined -%}
      {%- set parsed = dt.datetime(value.year, value.month, value.day) -%}
      {%- set date_only = true -%}
    {%- elif value.tzinfo is not none and value.utcoffset() is not none -%}
      {%- set parsed = value.replace(tzinfo=none) - value.utcoffset() -%}
    {%- else -%}
      {%- set parsed = value.replace(tzinfo=none) -%}
    {%- endif -%}
  {%- else -%}
    {{ return({'time': none, 'error': bad}) }}
  {%- endif -%}
  {%- if not low <= parsed <= high -%}{{ return({'time': none, 'error': out_of_range}) }}{%- endif -%}
  {%- if is_end and date_only -%}
    {%- if parsed >= high -%}
      {{ return({'time': none, 'error': out_of_range ~ ' (a date-only end includes its whole day: the last end date is 2999-12-31)'}) }}
    {%- endif -%}
    {{ return({'time': parsed + dt.timedelta(days=1), 'error': none}) }}
  {%- endif -%}
  {{ return({'time': parsed, 'error': none}) }}
{% endmacro %}

{#- A problem as config.py's collector records it: prefixed with the key unless it names it. -#}
{% macro _vulcan_cfg_prefixed(key, text) %}{{ return(text if key in text else key ~ ': ' ~ text) }}{% endmacro %}

{#- A list (or, unless `strict`, a tuple): not a string nor a mapping. -#}
{% macro _vulcan_cfg_is_list(value, strict) %}
  {{ return(value is sequence and value is not string and value is not mapping and (value.append is defined or not strict)) }}
{% endmacro %}
