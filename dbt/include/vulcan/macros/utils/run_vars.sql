{#- The CLI vars every kind shares; parsed in Python, never pasted into SQL. -#}
{% macro _vulcan_run_vars() %}
  {{ return({
    'vulcan_execution_time': var('vulcan_execution_time', none),
    'vulcan_start': var('vulcan_start', none),
    'vulcan_end': var('vulcan_end', none),
  }) }}
{% endmacro %}
