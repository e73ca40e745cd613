{#- The write strategy of a kind for a table format: the macro `vulcan_<kind>_<file_format>`
    (kinds/<kind>/), from the root project first, so a project can add a format or replace
    one, then from this package. An unknown format names the ones available. -#}
{% macro vulcan_strategy_macro(kind, file_format) %}
  {%- set prefix = 'vulcan_' ~ kind ~ '_' -%}
  {%- set name = prefix ~ file_format -%}
  {%- for namespace in [context, dbt_vulcan] -%}
    {%- if name in namespace -%}{{ return(namespace[name]) }}{%- endif -%}
  {%- endfor -%}
  {%- set available = [] -%}
  {%- for namespace in [context, dbt_vulcan] -%}
    {%- for key in namespace if key.startswith(prefix) and key[prefix | length:] not in available -%}
      {%- do available.append(key[prefix | length:]) -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ exceptions.raise_compiler_error('No ' ~ kind ~ ' write strategy for file_format ' ~ (file_format | string | tojson) ~ ' (macro ' ~ name ~ '); available: ' ~ available | sort | join(', ')) }}
{% endmacro %}
