{#- What the models this invocation selected read of the state log, for the `vulcan` adapter's
    one read per invocation (state/log.sql, vulcan___vulcan_log_rows; state_cache.py): {keys,
    prefixes}: each selected model's key and its parents' (the nearest dbt-vulcan models above
    it); with the virtual layer, of it and every dbt-vulcan model above it, also the pointer key
    and the range of its physical tables (what environments/resolve.sql's vulcan_virtual_context
    reads). None when the invocation read already, and in the package (a read per model). -#}
{% macro vulcan_invocation_reads() %}
  {{ return(adapter.dispatch('vulcan_invocation_reads', 'dbt_vulcan')()) }}
{% endmacro %}

{% macro default__vulcan_invocation_reads() %}
  {{ return(none) }}
{% endmacro %}

{% macro vulcan__vulcan_invocation_reads() %}
  {%- if adapter.vulcan_state_wide_read_done(dbt_vulcan.vulcan_state_relation() | string, invocation_id) -%}{{ return(none) }}{%- endif -%}
  {%- set out = {'keys': [], 'prefixes': []} -%}
  {%- set virtual = dbt_vulcan.vulcan_virtual() -%}
  {%- set todo = [] -%}
  {%- for id in selected_resources or [] if id in graph.nodes and graph.nodes[id].resource_type == 'model' -%}
    {%- do todo.append(graph.nodes[id]) -%}
  {%- endfor -%}
  {%- set seen = {} -%}
  {%- for node in todo if node.unique_id not in seen -%}
    {%- do seen.update({node.unique_id: true}) -%}
    {%- do out['keys'].append(dbt_vulcan.vulcan_node_state_key(node)) -%}
    {%- if virtual -%}
      {%- set pointer_key = dbt_vulcan.vulcan_pointer_key(node) -%}
      {%- do out['keys'].append(pointer_key) -%}
      {%- do out.prefixes.append(pointer_key ~ '__') -%}
      {%- do todo.extend(dbt_vulcan.vulcan_nearest_models(node).values() | list) -%}
    {%- else -%}
      {%- for parent in dbt_vulcan.vulcan_nearest_models(node).values() -%}
        {%- do out['keys'].append(dbt_vulcan.vulcan_node_state_key(parent)) -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'keys': out['keys'] | unique | list, 'prefixes': out.prefixes | unique | list}) }}
{% endmacro %}
