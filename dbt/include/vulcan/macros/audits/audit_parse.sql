{#- Audit configs -> audits (every problem at once). The Python oracle of every rule and message
    is tests/oracle/audits.py (parse_audits, parse_call, Audit.label); the unit tests
    (tests/unit/macros/audits/test_audit_macros.py) require equal results and messages.

    A model lists its audits under `audits` (alias `assertions`); `grains` adds a uniqueness
    audit on the grain unless `grains_audit: false`. Each item is a mapping
    (`{name: not_null, columns: [id], blocking: false}`), a one-key mapping
    (`{not_null: {columns: [id]}}`) or a call string (`"not_null(columns=[id])"`, SQLMesh's
    `columns := (id)` too). A name that is not built in refers to a project macro
    `audit_<name>(relation, **args)` returning the SQL of the offending rows.

    An audit: {name, args, blocking, builtin, from_grains, label, macro}. -#}

{#- The model's audits (the grain audit included), or one compiler error listing every
    problem. `cfg`: the validated settings (vulcan_settings). -#}
{% macro vulcan_audits(cfg) %}
  {%- set parsed = dbt_vulcan._vulcan_audit_parse(cfg.model, cfg.audits, cfg.grains, cfg.get('grains_audit'), context) -%}
  {%- if parsed.error is not none -%}
    {{ exceptions.raise_compiler_error(parsed.error) }}
  {%- endif -%}
  {{ return(parsed.audits) }}
{% endmacro %}

{#- vulcan_check_extras (engine/begin.sql), in both modes: a model with audits, grains
    or grains_audit gets its audits checked before anything is written. -#}
{% macro vulcan_check_audits(cfg) %}
  {%- if cfg.audits or cfg.grains or cfg.get('grains_audit') is not none -%}
    {% do dbt_vulcan.vulcan_audits(cfg) %}
  {%- endif -%}
{% endmacro %}

{#- name -> [required arguments, optional arguments] -#}
{% macro _vulcan_audit_builtins() %}
  {{ return({
    'not_null': [['columns'], []],
    'unique_values': [['columns'], []],
    'unique_combination_of_columns': [['columns'], []],
    'positive_values': [['column'], []],
    'non_negative_values': [['column'], []],
    'accepted_values': [['column', 'values'], []],
    'accepted_range': [['column'], ['min', 'max', 'inclusive']],
    'number_of_rows': [['threshold'], []],
  }) }}
{% endmacro %}

{#- {audits, error}: `known` is the mapping the user-defined audit macros are looked up in
    (`context`; none: do not check them). -#}
{% macro _vulcan_audit_parse(model_name, items, grains, grains_audit, known) %}
  {%- set problems = [] -%}
  {%- set audits = [] -%}
  {%- for item in items or [] -%}
    {%- set parsed = dbt_vulcan._vulcan_audit_parse_item(item, known) -%}
    {%- if parsed.error is none -%}
      {%- do audits.append(parsed.audit) -%}
    {%- else -%}
      {%- do problems.append('audits[' ~ loop.index ~ '] ' ~ dbt_vulcan._vulcan_audit_show_item(item) ~ ': ' ~ parsed.error) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set implied = dbt_vulcan._vulcan_audit_bool(grains_audit, true) -%}
  {%- if implied is none -%}
    {%- do problems.append('grains_audit: ' ~ dbt_vulcan.vulcan_repr(grains_audit) ~ ' is not a boolean (true or false)') -%}
  {%- elif implied and grains -%}
    {%- set grain = grains | list -%}
    {%- set covered = [] -%}
    {%- for audit in audits if dbt_vulcan._vulcan_audit_covers_grain(audit, grain) -%}
      {%- do covered.append(audit) -%}
    {%- endfor -%}
    {%- if not covered -%}
      {%- do audits.append(dbt_vulcan._vulcan_audit_new('unique_combination_of_columns', {'columns': grain}, true, true, true)) -%}
    {%- endif -%}
  {%- endif -%}
  {%- if problems -%}
    {%- set lines = [] -%}
    {%- for problem in problems -%}{%- do lines.append('  - ' ~ problem) -%}{%- endfor -%}
    {{ return({'audits': none, 'error': "Invalid audits for model '" ~ model_name ~ "', " ~ (problems | length) ~ " problem(s):\n" ~ lines | join('\n')}) }}
  {%- endif -%}
  {{ return({'audits': audits, 'error': none}) }}
{% endmacro %}

{% macro _vulcan_audit_new(name, args, blocking, builtin, from_grains=false) %}
  {{ return({
    'name': name, 'args': args, 'blocking': blocking, 'builtin': builtin,
    'from_grains': from_grains, 'macro': 'audit_' ~ name,
    'label': dbt_vulcan._vulcan_audit_label(name, args, from_grains),
  }) }}
{% endmacro %}

{% macro _vulcan_audit_covers_grain(audit, grain) %}
  {%- if not audit.builtin -%}{{ return(false) }}{%- endif -%}
  {%- set wanted = dbt_vulcan._vulcan_audit_lowered(grain) -%}
  {%- set columns = dbt_vulcan._vulcan_audit_lowered(audit.args.get('columns', [])) -%}
  {%- if audit.name == 'unique_combination_of_columns' -%}
    {{ return(columns == wanted) }}
  {%- elif audit.name == 'unique_values' and grain | length == 1 -%}
    {{ return(grain[0].lower() in columns) }}
  {%- endif -%}
  {{ return(false) }}
{% endmacro %}

{#- The distinct lowercased names, sorted (a set to compare). -#}
{% macro _vulcan_audit_lowered(names) %}
  {%- set found = {} -%}
  {%- for name in names -%}{%- do found.update({name.lower(): true}) -%}{%- endfor -%}
  {{ return(found.keys() | list | sort(case_sensitive=true)) }}
{% endmacro %}

{#- {audit, error} of one item of the list -#}
{% macro _vulcan_audit_parse_item(item, known) %}
  {%- if item is string -%}
    {%- set found = dbt_vulcan._vulcan_audit_parse_call(item) -%}
  {%- elif item is mapping -%}
    {%- set found = dbt_vulcan._vulcan_audit_from_mapping(item) -%}
  {%- else -%}
    {{ return({'error': "is not an audit: give {name: ..., <arguments>} or a call like 'not_null(columns=[id])'"}) }}
  {%- endif -%}
  {%- if found.error is not none -%}{{ return({'error': found.error}) }}{%- endif -%}
  {%- set name = found.name.strip().lower() -%}
  {%- if not modules.re.match('[A-Za-z_][A-Za-z0-9_]*\\Z', name) -%}
    {{ return({'error': dbt_vulcan.vulcan_repr(name) ~ ' is not an audit name'}) }}
  {%- endif -%}
  {%- set args = {} -%}
  {%- for key, value in found.args.items() -%}
    {%- do args.update({(key | string).strip().lower(): value}) -%}
  {%- endfor -%}
  {%- set blocking = dbt_vulcan._vulcan_audit_bool(args.get('blocking'), true) -%}
  {%- if blocking is none -%}
    {{ return({'error': 'blocking: is not a boolean (true or false)'}) }}
  {%- endif -%}
  {%- set rest = {} -%}
  {%- for key, value in args.items() if key != 'blocking' -%}
    {%- do rest.update({key: value}) -%}
  {%- endfor -%}
  {%- set builtins = dbt_vulcan._vulcan_audit_builtins() -%}
  {%- if name in builtins -%}
    {%- set checked = dbt_vulcan._vulcan_audit_builtin_args(name, rest) -%}
    {%- if checked.error is not none -%}{{ return({'error': checked.error}) }}{%- endif -%}
    {{ return({'audit': dbt_vulcan._vulcan_audit_new(name, checked.args, blocking, true), 'error': none}) }}
  {%- endif -%}
  {%- if known is not none and ('audit_' ~ name) not in known -%}
    {{ return({'error': "unknown audit '" ~ name ~ "': not built in (" ~ builtins.keys() | join(', ') ~ ") and the project has no macro audit_" ~ name ~ "(relation, ...) returning the offending rows"}) }}
  {%- endif -%}
  {{ return({'audit': dbt_vulcan._vulcan_audit_new(name, rest, blocking, false), 'error': none}) }}
{% endmacro %}

{#- {name, args, error} of a mapping item -#}
{% macro _vulcan_audit_from_mapping(item) %}
  {%- if 'name' in item -%}
    {%- set name = item['name'] -%}
    {%- if name is not string -%}
      {{ return({'error': 'name: ' ~ dbt_vulcan.vulcan_repr(name) ~ ' is not an audit name'}) }}
    {%- endif -%}
    {%- set args = {} -%}
    {%- for key, value in item.items() if key != 'name' -%}{%- do args.update({key: value}) -%}{%- endfor -%}
    {{ return({'name': name, 'args': args, 'error': none}) }}
  {%- endif -%}
  {%- if item | length == 1 -%}
    {%- set first = (item.items() | list)[0] -%}
    {%- if first[1] is mapping -%}
      {%- set args = {} -%}
      {%- do args.update(first[1]) -%}
      {{ return({'name': first[0] | string, 'args': args, 'error': none}) }}
    {%- elif first[1] is none -%}
      {{ return({'name': first[0] | string, 'args': {}, 'error': none}) }}
    {%- endif -%}
  {%- endif -%}
  {{ return({'error': 'has no `name` (e.g. {name: not_null, columns: [id]})'}) }}
{% endmacro %}

{#- {args, error}: the arguments of a built-in audit, aliases resolved and values checked -#}
{% macro _vulcan_audit_builtin_args(name, args) %}
  {%- set spec = dbt_vulcan._vulcan_audit_builtins()[name] -%}
  {%- set required, optional = spec[0], spec[1] -%}
  {%- set allowed = required + optional -%}
  {%- set aliases = {'is_in': 'values', 'min_v': 'min', 'max_v': 'max', 'min_value': 'min', 'max_value': 'max'} -%}
  {%- set given = {} -%}
  {%- for raw_key, value in args.items() -%}
    {%- set key = aliases.get(raw_key, raw_key) -%}
    {%- if key == 'column' and 'columns' in allowed -%}{%- set key = 'columns' -%}{%- endif -%}
    {%- if key not in allowed -%}
      {{ return({'error': name ~ " takes no argument '" ~ key ~ "' (arguments: " ~ (allowed + ['name', 'blocking']) | join(', ') ~ ")"}) }}
    {%- endif -%}
    {%- do given.update({key: value}) -%}
  {%- endfor -%}
  {%- set missing = [] -%}
  {%- for key in required if given.get(key) in (none, '', []) -%}{%- do missing.append(key) -%}{%- endfor -%}
  {%- if missing -%}
    {{ return({'error': name ~ ' needs ' ~ missing | join(', ')}) }}
  {%- endif -%}
  {%- set out = {} -%}
  {%- for key in allowed if key in given and given[key] is not none -%}
    {%- set value = given[key] -%}
    {%- if key == 'columns' -%}
      {%- set checked = dbt_vulcan._vulcan_audit_columns(value) -%}
    {%- elif key == 'column' -%}
      {%- set checked = dbt_vulcan._vulcan_audit_column(value) -%}
    {%- elif key == 'values' -%}
      {%- set checked = dbt_vulcan._vulcan_audit_values(value) -%}
    {%- elif key in ('min', 'max') -%}
      {%- set checked = dbt_vulcan._vulcan_audit_scalar(value, key) -%}
    {%- elif key == 'inclusive' -%}
      {%- set flag = dbt_vulcan._vulcan_audit_bool(value, true) -%}
      {%- set checked = {'value': flag, 'error': none if flag is not none else 'inclusive: ' ~ dbt_vulcan.vulcan_repr(value) ~ ' is not a boolean'} -%}
    {%- else -%}
      {%- set checked = dbt_vulcan._vulcan_audit_threshold(value) -%}
    {%- endif -%}
    {%- if checked.error is not none -%}{{ return({'error': checked.error}) }}{%- endif -%}
    {%- do out.update({key: checked.value}) -%}
  {%- endfor -%}
  {%- if name == 'accepted_range' and 'min' not in out and 'max' not in out -%}
    {{ return({'error': 'accepted_range needs min, max or both'}) }}
  {%- endif -%}
  {{ return({'args': out, 'error': none}) }}
{% endmacro %}

{% macro _vulcan_audit_column(value) %}
  {%- if dbt_vulcan._vulcan_audit_is_list(value) and value | length == 1 -%}
    {%- set value = value[0] -%}
  {%- endif -%}
  {%- if value is string and value.strip() -%}
    {{ return({'value': value.strip(), 'error': none}) }}
  {%- endif -%}
  {{ return({'error': 'column: ' ~ dbt_vulcan.vulcan_repr(value) ~ ' is not a column name'}) }}
{% endmacro %}

{% macro _vulcan_audit_columns(value) %}
  {%- set values = [value] if value is string else value -%}
  {%- if dbt_vulcan._vulcan_audit_is_list(values) and values | length > 0 -%}
    {%- set names = [] -%}
    {%- for v in values if v is string and v.strip() -%}{%- do names.append(v.strip()) -%}{%- endfor -%}
    {%- if names | length == values | length -%}
      {{ return({'value': names, 'error': none}) }}
    {%- endif -%}
  {%- endif -%}
  {{ return({'error': 'columns: ' ~ dbt_vulcan.vulcan_repr(value) ~ ' is not a column name or a list of column names'}) }}
{% endmacro %}

{% macro _vulcan_audit_values(value) %}
  {%- set values = (value | list) if dbt_vulcan._vulcan_audit_is_list(value) else [value] -%}
  {%- if not values -%}
    {{ return({'error': 'values: give at least one accepted value'}) }}
  {%- endif -%}
  {%- set out = [] -%}
  {%- for v in values -%}
    {%- set checked = dbt_vulcan._vulcan_audit_scalar(v, 'values') -%}
    {%- if checked.error is not none -%}{{ return(checked) }}{%- endif -%}
    {%- do out.append(checked.value) -%}
  {%- endfor -%}
  {{ return({'value': out, 'error': none}) }}
{% endmacro %}

{% macro _vulcan_audit_scalar(value, key) %}
  {%- if value is boolean or value is integer or value is float or value is string or dbt_vulcan._vulcan_audit_is_date(value) -%}
    {{ return({'value': value, 'error': none}) }}
  {%- endif -%}
  {{ return({'error': key ~ ': ' ~ dbt_vulcan.vulcan_repr(value) ~ ' is not a number, string, date or boolean'}) }}
{% endmacro %}

{#- A whole number >= 0: an int, a float without fraction or a string Python's int() reads. -#}
{% macro _vulcan_audit_threshold(value) %}
  {%- set bad = {'error': 'threshold: ' ~ dbt_vulcan.vulcan_repr(value) ~ ' is not a whole number >= 0'} -%}
  {%- if value is integer -%}
    {%- set number = value -%}
  {%- elif value is float -%}
    {%- if value != value -%}{{ return(bad) }}{%- endif -%}
    {%- set number = value | int -%}
    {%- if number != value -%}{{ return(bad) }}{%- endif -%}
  {%- elif value is string and modules.re.fullmatch('\\s*[+-]?\\d+(?:_\\d+)*\\s*', value) -%}
    {%- set number = value | int -%}
  {%- else -%}
    {{ return(bad) }}
  {%- endif -%}
  {%- if number < 0 -%}{{ return(bad) }}{%- endif -%}
  {{ return({'value': number, 'error': none}) }}
{% endmacro %}

{#- A boolean config value; none for something that is not one. -#}
{% macro _vulcan_audit_bool(value, default) %}
  {%- if value is none -%}{{ return(default) }}{%- endif -%}
  {%- if value is boolean -%}{{ return(value) }}{%- endif -%}
  {%- if value is string and value.strip().lower() in ('true', 'false') -%}
    {{ return(value.strip().lower() == 'true') }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- A list or a tuple (Python's `isinstance(value, list | tuple)` for config values). -#}
{% macro _vulcan_audit_is_list(value) %}
  {{ return(value is sequence and value is not string and value is not mapping and value.decode is not defined and value.stop is not defined) }}
{% endmacro %}

{#- A date or a datetime (YAML dates). -#}
{% macro _vulcan_audit_is_date(value) %}
  {{ return(value is not mapping and value is not string and value.year is defined and value.isoformat is defined and value.weekday is defined) }}
{% endmacro %}

{% macro _vulcan_audit_show_item(item) %}
  {%- set text = dbt_vulcan.vulcan_repr(item) -%}
  {{ return(text if text | length <= 80 else text[:77] ~ '...') }}
{% endmacro %}

{#- How messages name an audit: `accepted_range(column=x, min=0)`, column names bare. -#}
{% macro _vulcan_audit_label(name, args, from_grains) %}
  {%- set shown = [] -%}
  {%- for key, value in args.items() -%}
    {%- do shown.append(key ~ '=' ~ dbt_vulcan._vulcan_audit_show_arg(value, key in ('column', 'columns'))) -%}
  {%- endfor -%}
  {{ return(name ~ '(' ~ shown | join(', ') ~ ')' ~ (' (from grains)' if from_grains else '')) }}
{% endmacro %}

{% macro _vulcan_audit_show_arg(value, bare) %}
  {%- if dbt_vulcan._vulcan_audit_is_list(value) -%}
    {%- set shown = [] -%}
    {%- for v in value -%}{%- do shown.append(dbt_vulcan._vulcan_audit_show_arg(v, bare)) -%}{%- endfor -%}
    {{ return('[' ~ shown | join(', ') ~ ']') }}
  {%- elif value is string -%}
    {{ return(value if bare and modules.re.match('[A-Za-z_][A-Za-z0-9_]*\\Z', value) else dbt_vulcan.vulcan_repr(value)) }}
  {%- elif dbt_vulcan._vulcan_audit_is_date(value) -%}
    {{ return(value.isoformat()) }}
  {%- elif value is boolean -%}
    {{ return('true' if value else 'false') }}
  {%- endif -%}
  {{ return(value | string) }}
{% endmacro %}
