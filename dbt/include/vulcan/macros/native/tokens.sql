{#- The Jinja form of the time tokens: `{{ dbt_vulcan.start_ds() }}` is `@start_ds` in a run
    (the run renders it per batch, as the token) and the value of the range dbt's own commands
    use (vulcan_native_range) under `dbt compile`, `dbt show` and in unit tests, so the
    compiled SQL runs as it is. Same names and values as the `@` tokens (time_tokens/time_tokens.sql). -#}

{#- The SQL of token `name` for the current model: its placeholder `@name` while parsing and in
    a run, its value under compile, show and unit tests (the range is planned once a model). -#}
{% macro vulcan_token(name) %}
  {%- set known = dbt_vulcan.vulcan_time_tokens('1970-01-01', '1970-01-02', '1970-01-01') -%}
  {%- if name not in known -%}
    {{ exceptions.raise_compiler_error('dbt_vulcan.vulcan_token: ' ~ dbt_vulcan.vulcan_repr(name) ~ ' is not a time token; the tokens are: ' ~ known.keys() | sort | join(', ')) }}
  {%- endif -%}
  {%- if not execute or model is not defined or model is none -%}
    {{ return('@' ~ name) }}
  {%- endif -%}
  {%- set concrete = model.resource_type == 'unit_test' or (model.resource_type == 'model' and flags.WHICH in ('compile', 'show')) -%}
  {%- if not concrete -%}
    {{ return('@' ~ name) }}
  {%- endif -%}
  {%- if '_vulcan_native_range' not in model -%}
    {%- do model.update({'_vulcan_native_range': dbt_vulcan.vulcan_native_range(model)}) -%}
  {%- endif -%}
  {%- set range = model['_vulcan_native_range'] -%}
  {{ return(dbt_vulcan.vulcan_time_tokens(range.start, range.end, range.execution_time)[name]) }}
{% endmacro %}

{#- one macro a token -#}
{% macro start_ds() %}{{ return(dbt_vulcan.vulcan_token('start_ds')) }}{% endmacro %}
{% macro start_date() %}{{ return(dbt_vulcan.vulcan_token('start_date')) }}{% endmacro %}
{% macro start_dt() %}{{ return(dbt_vulcan.vulcan_token('start_dt')) }}{% endmacro %}
{% macro start_ts() %}{{ return(dbt_vulcan.vulcan_token('start_ts')) }}{% endmacro %}
{% macro start_epoch() %}{{ return(dbt_vulcan.vulcan_token('start_epoch')) }}{% endmacro %}
{% macro start_millis() %}{{ return(dbt_vulcan.vulcan_token('start_millis')) }}{% endmacro %}
{% macro end_ds() %}{{ return(dbt_vulcan.vulcan_token('end_ds')) }}{% endmacro %}
{% macro end_date() %}{{ return(dbt_vulcan.vulcan_token('end_date')) }}{% endmacro %}
{% macro end_dt() %}{{ return(dbt_vulcan.vulcan_token('end_dt')) }}{% endmacro %}
{% macro end_ts() %}{{ return(dbt_vulcan.vulcan_token('end_ts')) }}{% endmacro %}
{% macro end_epoch() %}{{ return(dbt_vulcan.vulcan_token('end_epoch')) }}{% endmacro %}
{% macro end_millis() %}{{ return(dbt_vulcan.vulcan_token('end_millis')) }}{% endmacro %}
{% macro execution_ds() %}{{ return(dbt_vulcan.vulcan_token('execution_ds')) }}{% endmacro %}
{% macro execution_date() %}{{ return(dbt_vulcan.vulcan_token('execution_date')) }}{% endmacro %}
{% macro execution_dt() %}{{ return(dbt_vulcan.vulcan_token('execution_dt')) }}{% endmacro %}
{% macro execution_ts() %}{{ return(dbt_vulcan.vulcan_token('execution_ts')) }}{% endmacro %}
{% macro execution_epoch() %}{{ return(dbt_vulcan.vulcan_token('execution_epoch')) }}{% endmacro %}
{% macro execution_millis() %}{{ return(dbt_vulcan.vulcan_token('execution_millis')) }}{% endmacro %}
{% macro start_timestamp() %}{{ return(dbt_vulcan.vulcan_token('start_timestamp')) }}{% endmacro %}
{% macro end_timestamp() %}{{ return(dbt_vulcan.vulcan_token('end_timestamp')) }}{% endmacro %}
