{#- The static safety analysis of a time-range model's SQL (patterns that give different rows
    on a time slice than on the whole range): refusals raise, warnings print. It parses SQL
    with sqlglot, so it is an extra of the `vulcan` adapter; the plain package skips it. -#}
{% macro vulcan_check_safety(cfg, compiled_sql) %}{{ return(adapter.dispatch('vulcan_check_safety', 'dbt_vulcan')(cfg, compiled_sql)) }}{% endmacro %}

{% macro default__vulcan_check_safety(cfg, compiled_sql) %}
{% endmacro %}

{% macro vulcan__vulcan_check_safety(cfg, compiled_sql) %}
  {%- for warning in adapter.vulcan_check_safety(model, cfg.kind, compiled_sql) -%}
    {% do exceptions.warn(warning) %}
  {%- endfor -%}
{% endmacro %}
