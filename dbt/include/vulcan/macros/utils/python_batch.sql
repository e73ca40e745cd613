{#- Python models (`def model(dbt, session)`, see dbt/adapters/vulcan/python_models.py).

    A batch of a Python model is the SQL `select * from <temporary view>` of the DataFrame the
    model returned for it (adapter.vulcan_python_batch_query runs the model); everything after that is
    a SQL model's batch. `_vulcan_python_release` drops those views after each batch.

    `py_script_comment` is the text dbt appends to every compiled Python model (dbt-spark's
    is a note on running it in a notebook). dbt-vulcan's also refuses, when the model is
    compiled, a Python model that cannot run: materialized as view, ephemeral or seed
    (SQL-only kinds), or as one of dbt-vulcan's kinds over a connection method other than
    session. -#}

{% macro py_script_comment() %}
{{- adapter.vulcan_python_check(model) }}
# Compiled by dbt-vulcan: in a Spark notebook, `dbt = dbtObj(spark.table)` then
# `df = model(dbt, spark)` runs it (set `dbt.vulcan` to a batch for dbt-vulcan's kinds).
{% endmacro %}

{% macro _vulcan_python_release() %}
  {%- if model.language == 'python' -%}
    {% do adapter.vulcan_python_release(model) %}
  {%- endif -%}
{% endmacro %}
