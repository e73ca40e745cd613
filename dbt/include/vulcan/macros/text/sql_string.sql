{#- The quoting of what the package pastes into SQL: string literals and identifiers. -#}

{#- A Spark SQL string literal of any value: single-quoted, with backslash and quote escaped
    (Spark reads a backslash in a literal as an escape character). Every value the package
    pastes into SQL as a string goes through here. -#}
{% macro vulcan_sql_string(value) %}
  {{ return("'" ~ (value | string).replace('\\', '\\\\').replace("'", "\\'") ~ "'") }}
{% endmacro %}

{#- A Spark SQL identifier (a column name) in backquotes, backquotes doubled. -#}
{% macro vulcan_quote_identifier(name) %}
  {{ return('`' ~ (name | string).replace('`', '``') ~ '`') }}
{% endmacro %}

{#- Column names in backquotes (vulcan_quote_identifier), as a list. -#}
{% macro vulcan_quote_identifiers(names) %}
  {%- set out = [] -%}
  {%- for name in names -%}{%- do out.append(dbt_vulcan.vulcan_quote_identifier(name)) -%}{%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- A column type as Spark describes it (`DESCRIBE QUERY`, a schema's simpleString), written
    back as SQL: the field names of a struct, which Spark prints bare (`struct<a b:int>`), in
    backquotes (struct<`a b`:int>); every other type as it is. A field's name runs to its first
    colon: Spark prints it unquoted, so a name holding a colon (or starting with `>`, read as
    an empty `struct<>`) cannot be told from its type.
    tests/oracle/engine.py's type_sql is the test oracle. -#}
{% macro vulcan_type_sql(dtype) %}
  {%- set text = dtype | string | trim -%}
  {%- if 'struct<' not in text | lower -%}{{ return(text) }}{%- endif -%}
  {#- name: the field name being read (none: not in a name); word: the text since the last
      delimiter (`struct` before a `<` opens a struct); open: what each open `<` began -#}
  {%- set ns = namespace(out='', name=none, word='', parens=0) -%}
  {%- set open = [] -%}
  {%- for ch in text -%}
    {%- if ns.name is not none -%}
      {%- if ch == ':' -%}
        {%- set ns.out = ns.out ~ dbt_vulcan.vulcan_quote_identifier(ns.name) ~ ':' -%}
        {%- set ns.name = none -%}
      {%- elif ch == '>' and ns.name == '' -%}
        {#- struct<>: no fields -#}
        {%- do open.pop() -%}
        {%- set ns.out = ns.out ~ ch -%}
        {%- set ns.name = none -%}
      {%- else -%}
        {%- set ns.name = ns.name ~ ch -%}
      {%- endif -%}
    {%- elif ch == '<' -%}
      {%- do open.append('struct' if ns.word | trim | lower == 'struct' else 'other') -%}
      {%- set ns.out = ns.out ~ ch -%}
      {%- set ns.word = '' -%}
      {%- if open[-1] == 'struct' -%}{%- set ns.name = '' -%}{%- endif -%}
    {%- elif ch == '>' -%}
      {%- if open -%}{%- do open.pop() -%}{%- endif -%}
      {%- set ns.out = ns.out ~ ch -%}
      {%- set ns.word = '' -%}
    {%- elif ch == ',' and ns.parens == 0 and open and open[-1] == 'struct' -%}
      {%- set ns.out = ns.out ~ ch -%}
      {%- set ns.word = '' -%}
      {%- set ns.name = '' -%}
    {%- else -%}
      {%- if ch == '(' -%}{%- set ns.parens = ns.parens + 1 -%}{%- elif ch == ')' -%}{%- set ns.parens = ns.parens - 1 -%}{%- endif -%}
      {%- set ns.out = ns.out ~ ch -%}
      {%- set ns.word = '' if ch in ',:()' else ns.word ~ ch -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(ns.out) }}
{% endmacro %}

{#- A column's definition for a CREATE TABLE's column list or an ADD COLUMNS: its name in
    backquotes and its type (vulcan_type_sql). -#}
{% macro vulcan_column_sql(name, dtype) %}
  {{ return(dbt_vulcan.vulcan_quote_identifier(name) ~ ' ' ~ dbt_vulcan.vulcan_type_sql(dtype)) }}
{% endmacro %}
