{#- Python models (`def model(dbt, session)`, see dbt/adapters/vulcan/python_models.py): only
    the `vulcan` adapter runs them (in its embedded SparkSession); on a stock adapter
    vulcan_check_extras refuses one before anything is touched, and these are never reached.

    A batch of a Python model is the SQL `select * from <temporary view>` of the DataFrame the
    model returned for it (vulcan_python_batch_query runs the model); everything after that is
    a SQL model's batch. `vulcan_python_release` drops those views after each batch. The
    adapter's methods are called only from the `vulcan__` variants, so no other adapter's
    parse meets a method it lacks. -#}

{% macro vulcan_python_batch_query(code, batch, execution_time) %}{{ return(adapter.dispatch('vulcan_python_batch_query', 'dbt_vulcan')(code, batch, execution_time)) }}{% endmacro %}

{% macro default__vulcan_python_batch_query(code, batch, execution_time) %}
  {{ exceptions.raise_compiler_error("Model '" ~ model.name ~ "': Python models need the `vulcan` adapter (type: vulcan)") }}
{% endmacro %}

{% macro vulcan__vulcan_python_batch_query(code, batch, execution_time) %}
  {{ return(adapter.vulcan_python_batch_query(model, code, batch, execution_time)) }}
{% endmacro %}

{#- The query that reads a Python model's columns: the model run once for its first interval. -#}
{% macro vulcan_python_schema_query(code, first_interval, execution_time) %}{{ return(adapter.dispatch('vulcan_python_schema_query', 'dbt_vulcan')(code, first_interval, execution_time)) }}{% endmacro %}

{% macro default__vulcan_python_schema_query(code, first_interval, execution_time) %}
  {{ exceptions.raise_compiler_error("Model '" ~ model.name ~ "': Python models need the `vulcan` adapter (type: vulcan)") }}
{% endmacro %}

{% macro vulcan__vulcan_python_schema_query(code, first_interval, execution_time) %}
  {{ return(adapter.vulcan_python_schema_query(model, code, first_interval, execution_time)) }}
{% endmacro %}

{% macro vulcan_python_release() %}{{ return(adapter.dispatch('vulcan_python_release', 'dbt_vulcan')()) }}{% endmacro %}

{% macro default__vulcan_python_release() %}{% endmacro %}

{% macro vulcan__vulcan_python_release() %}
  {%- if model.language == 'python' -%}
    {% do adapter.vulcan_python_release(model) %}
  {%- endif -%}
{% endmacro %}

{#- The current model's query bound to its first interval, for reading its columns (a Python
    model runs once for it). -#}
{% macro vulcan_model_query(kind, cfg, plan) %}
  {%- if model.language == 'python' -%}
    {{ return(dbt_vulcan.vulcan_python_schema_query(compiled_code, plan.first_interval, plan.execution_time)) }}
  {%- endif -%}
  {{ return(dbt_vulcan.vulcan_schema_query(compiled_code, cfg, plan.execution_time, plan.first_interval)) }}
{% endmacro %}
