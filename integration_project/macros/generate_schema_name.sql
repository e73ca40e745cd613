{#- Schemas are named as in Orders360 (raw, sales, vulcan_demo, ...): a folder's `+schema`
    is used as is, not prefixed with the target's schema. -#}
{% macro generate_schema_name(custom_schema_name, node) -%}
  {{ (custom_schema_name or target.schema) | trim }}
{%- endmacro %}
