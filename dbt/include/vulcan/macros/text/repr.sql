{#- Values as messages show them: Python's repr, and the closest of some names to a misspelt one. -#}

{#- Python's repr of a value, as the messages show it. -#}
{% macro vulcan_repr(value) %}{{ return('%r' | format(value)) }}{% endmacro %}

{% macro vulcan_closest(key, candidates) %}
  {%- set limit = 2 if key | length >= 8 else 1 -%}
  {%- set ns = namespace(best=none, distance=limit + 1) -%}
  {#- a candidate whose length differs by more than the limit is never close: skipped here,
      without a macro call (most of dbt's own keys, on every run) -#}
  {%- for candidate in candidates if candidate != key and (candidate | length - key | length) | abs <= limit -%}
    {%- set distance = dbt_vulcan._vulcan_distance(key, candidate, limit) -%}
    {%- if distance < ns.distance -%}
      {%- set ns.best = candidate -%}
      {%- set ns.distance = distance -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(ns.best) }}
{% endmacro %}

{#- Optimal string alignment distance (insert, delete, replace, swap two adjacent
    characters), or limit + 1 as soon as it must exceed `limit`: a row's minimum never
    decreases, so the table stops at the first row above the limit. -#}
{% macro _vulcan_distance(a, b, limit) %}
  {%- if (a | length - b | length) | abs > limit -%}{{ return(limit + 1) }}{%- endif -%}
  {%- set ns = namespace(before=[], previous=range(b | length + 1) | list) -%}
  {%- for i in range(1, a | length + 1) -%}
    {%- set row = [i] -%}
    {%- for j in range(1, b | length + 1) -%}
      {%- set best = [ns.previous[j] + 1, row[j - 1] + 1, ns.previous[j - 1] + (0 if a[i - 1] == b[j - 1] else 1)] | min -%}
      {%- if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1] -%}
        {%- set best = [best, ns.before[j - 2] + 1] | min -%}
      {%- endif -%}
      {%- do row.append(best) -%}
    {%- endfor -%}
    {%- if row | min > limit -%}{{ return(limit + 1) }}{%- endif -%}
    {%- set ns.before = ns.previous -%}
    {%- set ns.previous = row -%}
  {%- endfor -%}
  {{ return([ns.previous[-1], limit + 1] | min) }}
{% endmacro %}
