{#- The validator's checks of one key's value (validate.sql calls them for each key that is
    set): by the key's `check` in the declaration (config_keys.sql), its value normalized
    (`bool`, `int` with its minimum, `choice` of the allowed values, column names, tags, model
    names, `when_matched` clauses ...) and its problems listed, worded as config.py's. -#}

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

{#- A list (or, unless `strict`, a tuple): not a string nor a mapping. -#}
{% macro _vulcan_cfg_is_list(value, strict) %}
  {{ return(value is sequence and value is not string and value is not mapping and (value.append is defined or not strict)) }}
{% endmacro %}
