{#- The static safety analysis of a time-range model's SQL (patterns that give different rows
    on a time slice than on the whole range): refusals raise, warnings print, before anything
    is written. The `vulcan` adapter parses the SQL with sqlglot (dbt/adapters/vulcan/safety.py);
    the plain package reads its tokens in Jinja (safety/analysis.sql and the files beside it): the same patterns, verdicts
    and messages on the shared catalogue (tests/support/safety_catalogue.py), the adapter's reading
    finer where the two differ (see the header of safety/analysis.sql). -#}
{#- The analysis once per definition: skipped when the latest processed row recorded the same
    key (a run that passed the analysis of the same compiled SQL and settings); the key goes into
    the plan (`plan.safety`), and from there into the details of every batch this run records
    (run_batches.sql). -#}
{% macro vulcan_check_safety_once(cfg, compiled_sql, plan) %}
  {%- set key = dbt_vulcan.vulcan_safety_key(cfg, compiled_sql) -%}
  {%- if key == plan.previous_details.get('safety') -%}
    {{ log("Model '" ~ cfg.model ~ "': safety analysis skipped (its definition passed it before)", info=false) }}
  {%- else -%}
    {% do dbt_vulcan.vulcan_check_safety(cfg, compiled_sql) %}
  {%- endif -%}
  {% do plan.update({'safety': key}) %}
{% endmacro %}

{#- What the analysis' verdict depends on: the compiled SQL (its time tokens not yet rendered),
    the time column, the overrides, the unit and week start. -#}
{% macro vulcan_safety_key(cfg, compiled_sql) %}
  {{ return(local_md5(tojson([compiled_sql | string, cfg.time_column, cfg.safety_overrides or [], cfg.interval_unit, cfg.week_start]))[:16]) }}
{% endmacro %}

{% macro vulcan_check_safety(cfg, compiled_sql) %}{{ return(adapter.dispatch('vulcan_check_safety', 'dbt_vulcan')(cfg, compiled_sql)) }}{% endmacro %}

{% macro default__vulcan_check_safety(cfg, compiled_sql) %}
  {%- if not cfg.time_column or model.get('language') == 'python' -%}{{ return(none) }}{%- endif -%}
  {%- set result = dbt_vulcan._vulcan_safety_analyze(compiled_sql, cfg.time_column, cfg.safety_overrides or [], cfg.interval_unit or 'day', cfg.week_start or 0) -%}
  {%- if result.error -%}
    {{ exceptions.raise_compiler_error("Model '" ~ cfg.model ~ "': " ~ result.error) }}
  {%- endif -%}
  {%- set verdict = dbt_vulcan._vulcan_safety_verdict(cfg.model, result.findings) -%}
  {%- if verdict.refusal -%}
    {{ exceptions.raise_compiler_error(verdict.refusal) }}
  {%- endif -%}
  {%- for warning in verdict.warnings -%}
    {% do exceptions.warn(warning) %}
  {%- endfor -%}
{% endmacro %}

{% macro vulcan__vulcan_check_safety(cfg, compiled_sql) %}
  {%- if not cfg.time_column or model.get('language') == 'python' -%}{{ return(none) }}{%- endif -%}
  {%- for warning in adapter.vulcan_check_safety(cfg, compiled_sql) -%}
    {% do exceptions.warn(warning) %}
  {%- endfor -%}
{% endmacro %}
