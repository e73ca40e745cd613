{#- One line per batch, like SQLMesh: `[2/5] sales.daily_sales [insert 2025-01-08 - 2025-01-14] 1.2s` -#}
{% macro _vulcan_log_batch(relation, batch, action, started) %}
  {%- set elapsed = (modules.datetime.datetime.now() - started).total_seconds() -%}
  {{ log('[' ~ batch.index ~ '/' ~ batch.count ~ '] ' ~ relation ~ ' [' ~ action ~ ' ' ~ batch.label ~ '] '
         ~ '%.1f' | format(elapsed) ~ 's', info=True) }}
{% endmacro %}
