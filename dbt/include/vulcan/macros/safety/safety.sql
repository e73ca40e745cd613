{#- The static safety analysis of a time-range model's SQL (patterns that give different rows
    on a time slice than on the whole range): refusals raise, warnings print, before anything
    is written. The `vulcan` adapter parses the SQL with sqlglot (dbt/adapters/vulcan/safety.py);
    the plain package reads its tokens in Jinja (safety/analysis.sql and the files beside it): the same patterns, verdicts
    and messages on the shared catalogue (tests/support/safety_catalogue.py), the adapter's reading
    finer where the two differ (see the header of safety/analysis.sql). -#}
{#- The analysis once per definition: skipped when the latest processed row recorded the same
    key (a run that passed the analysis of the same compiled SQL and settings); the key goes into
    the plan (`plan.safety`), and from there into the details of every batch this run records
    (run_batches.sql). The `_ts` tokens found bounding a TIMESTAMP time column (ts_bounds.sql)
    ride along the same way (`plan.ts_bounds`), so a run that skips the analysis still knows
    them: a run with batches to write repeats that warning once when the session's time zone
    is not UTC. -#}
{% macro vulcan_check_safety_once(cfg, compiled_sql, plan) %}
  {%- set key = dbt_vulcan.vulcan_safety_key(cfg, compiled_sql, plan.get('time_type')) -%}
  {%- set previous = plan.previous_details -%}
  {%- if key == previous.get('safety') -%}
    {{ log("Model '" ~ cfg.model ~ "': safety analysis skipped (its definition passed it before)", info=false) }}
    {%- set recorded = previous.get('ts_bounds') -%}
    {%- set bounds = recorded if recorded is iterable and recorded is not string and recorded is not mapping else [] -%}
  {%- else -%}
    {%- set bounds = dbt_vulcan.vulcan_check_safety(cfg, compiled_sql, plan.get('time_type')) or [] -%}
  {%- endif -%}
  {% do plan.update({'safety': key}) %}
  {%- if bounds -%}
    {% do plan.update({'ts_bounds': bounds | list}) %}
    {%- if plan.batches -%}{% do dbt_vulcan._vulcan_safety_ts_in_session(cfg, bounds | list) %}{%- endif -%}
  {%- endif -%}
{% endmacro %}

{#- What the analysis' verdict depends on: the compiled SQL (its time tokens not yet rendered),
    the time column, the overrides, the unit and week start, and, for a TIMESTAMP time column
    only, that type (ts_bounds.sql; another time column's key does not change with its type). -#}
{% macro vulcan_safety_key(cfg, compiled_sql, time_type=none) %}
  {%- set parts = [compiled_sql | string, cfg.time_column, cfg.safety_overrides or [], cfg.interval_unit, cfg.week_start] -%}
  {%- if (time_type | string | lower) == 'timestamp' -%}{%- do parts.append('timestamp') -%}{%- endif -%}
  {{ return(local_md5(tojson(parts))[:16]) }}
{% endmacro %}

{#- The analysis: refusals raise, warnings print; returns the `_ts` tokens that bound the time
    column when `time_type` is TIMESTAMP (ts_bounds.sql), else []. -#}
{% macro vulcan_check_safety(cfg, compiled_sql, time_type=none) %}{{ return(adapter.dispatch('vulcan_check_safety', 'dbt_vulcan')(cfg, compiled_sql, time_type)) }}{% endmacro %}

{% macro default__vulcan_check_safety(cfg, compiled_sql, time_type=none) %}
  {%- if not cfg.time_column or model.get('language') == 'python' -%}{{ return([]) }}{%- endif -%}
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
  {%- set bounds = dbt_vulcan._vulcan_safety_ts_bounds(compiled_sql, cfg.time_column) if dbt_vulcan._vulcan_safety_ts_wanted(cfg, time_type) else [] -%}
  {{ return(dbt_vulcan._vulcan_safety_ts_warn(cfg, bounds)) }}
{% endmacro %}

{% macro vulcan__vulcan_check_safety(cfg, compiled_sql, time_type=none) %}
  {%- if not cfg.time_column or model.get('language') == 'python' -%}{{ return([]) }}{%- endif -%}
  {%- for warning in adapter.vulcan_check_safety(cfg, compiled_sql) -%}
    {% do exceptions.warn(warning) %}
  {%- endfor -%}
  {%- set bounds = adapter.vulcan_ts_bounds(compiled_sql, cfg.time_column) if dbt_vulcan._vulcan_safety_ts_wanted(cfg, time_type) else [] -%}
  {{ return(dbt_vulcan._vulcan_safety_ts_warn(cfg, bounds)) }}
{% endmacro %}
