{#- A rebuild under the virtual layer (a `--full-refresh`, a whole-history restatement): when
    some environment's view shows the table, the rows are rebuilt in the version's other table
    (vulcan_physical_relation, `aside`), and the views are swapped to it once the run's batches
    are complete (the end of the run, environments/view.sql); until then every view reads the
    old rows, whole. The next such rebuild goes back to the first table. A run stopped half-way
    leaves the views on the old table and the new one's log newest: the next run (with or
    without --full-refresh) finishes it there and swaps then (vulcan_current_table). The old
    table stays as it was, and the janitor drops it once no view has shown it for its TTL.
    A table no view shows is rebuilt where it is. Returns the plan (its `has_state` for the
    table now written). -#}
{% macro vulcan_virtual_rebuild_aside(begin, plan) %}
  {%- set virtual = begin.state.virtual -%}
  {%- set existing = begin.existing_relation -%}
  {%- if virtual is none or not plan.rebuild or existing is none or existing.type != 'table' -%}{{ return(plan) }}{%- endif -%}
  {%- set resolved = virtual.resolved -%}
  {%- if resolved.key not in (resolved.pointers.values() | map(attribute='physical') | list) -%}{{ return(plan) }}{%- endif -%}
  {%- set rows = begin.state.by_key.get(resolved.aside_key, []) -%}
  {%- set shown = resolved.relation -%}
  {{ log("Model '" ~ model.name ~ "': rebuilt in " ~ resolved.aside_key ~ '; the views keep reading ' ~ resolved.key ~ ' until the rebuild is complete', info=True) }}
  {%- do resolved.update({'relation': resolved.aside, 'key': resolved.aside_key, 'aside': shown, 'aside_key': resolved.key}) -%}
  {%- do begin.update({'target_relation': resolved.relation, 'existing_relation': dbt_vulcan.vulcan_physical_existing(resolved.relation, rows)}) -%}
  {%- do begin.state.update({'key': resolved.key, 'rows': rows}) -%}
  {%- do plan.update({'has_state': rows | length > 0}) -%}
  {{ return(plan) }}
{% endmacro %}
