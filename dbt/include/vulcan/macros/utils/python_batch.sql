{#- Python models (`def model(dbt, session)`, see dbt/adapters/vulcan/python_models.py).

    A batch of a Python model is the SQL `select * from <temporary view>` of the DataFrame the
    model returned for it (adapter.vulcan_python_batch_query runs the model); everything after that is
    a SQL model's batch. `_vulcan_python_release` drops those views after each batch. -#}

{% macro _vulcan_python_release() %}
  {%- if model.language == 'python' -%}
    {% do adapter.vulcan_python_release(model) %}
  {%- endif -%}
{% endmacro %}
