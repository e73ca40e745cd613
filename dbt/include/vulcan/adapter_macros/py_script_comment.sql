{#- The text dbt appends to every compiled Python model (dbt-spark's is a note on running it
    in a notebook). The `vulcan` adapter's also refuses, when the model is compiled, a Python
    model that cannot run: materialized as view, ephemeral or seed (SQL-only kinds), or as one
    of dbt-vulcan's kinds over a connection method other than session. -#}
{% macro py_script_comment() %}
{{- adapter.vulcan_python_check(model) }}
# Compiled by dbt-vulcan: in a Spark notebook, `dbt = dbtObj(spark.table)` then
# `df = model(dbt, spark)` runs it (set `dbt.vulcan` to a batch for dbt-vulcan's kinds).
{% endmacro %}
