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
