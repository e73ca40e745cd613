{#- Shared by the operations: the selected dbt-vulcan models and whether their tables exist.
    Run-operations do not run the on-run-start hook, so the state table is created here. -#}
{% macro _vulcan_operation_models(select) %}
  {% do dbt_vulcan.vulcan_create_state_table() %}
  {%- set nodes = dbt_vulcan._vulcan_select_nodes(graph.nodes.values() | list, select) -%}
  {%- set exists = {} -%}
  {%- for node in nodes -%}
    {%- set relation = adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias or node.name) -%}
    {% do exists.update({node.unique_id: relation is not none}) %}
  {%- endfor -%}
  {{ return({'nodes': nodes, 'exists': exists}) }}
{% endmacro %}

{#- The dbt-vulcan models (resource type model, materialized as one of the kinds) matching
    `select`: model names and `tag:<tag>`, separated by spaces or as a list; all of them,
    sorted by name, when `select` is empty. An unmatched term is an error naming the models. -#}
{% macro _vulcan_select_nodes(nodes, select) %}
  {%- set kinds = dbt_vulcan.vulcan_kinds() -%}
  {%- set candidates = [] -%}
  {%- for node in nodes if node.resource_type == 'model' and (node.config or {}).get('materialized') in kinds -%}
    {%- do candidates.append(node) -%}
  {%- endfor -%}
  {%- set candidates = candidates | sort(attribute='name', case_sensitive=true) -%}
  {%- if select is none or select == '' or select == [] -%}
    {{ return(candidates) }}
  {%- endif -%}
  {%- if select is string -%}
    {%- set terms = select.split() -%}
  {%- elif select is iterable and select is not mapping -%}
    {%- set terms = [] -%}
    {%- for term in select -%}{%- do terms.append(term | string) -%}{%- endfor -%}
  {%- else -%}
    {%- set terms = [select | string] -%}
  {%- endif -%}
  {%- set chosen = [] -%}
  {%- set chosen_ids = [] -%}
  {%- set unknown = [] -%}
  {%- for term in terms -%}
    {%- set matched = [] -%}
    {%- for node in candidates -%}
      {%- if (term.startswith('tag:') and term[4:] in (node.tags or [])) or (not term.startswith('tag:') and node.name == term) -%}
        {%- do matched.append(node) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- if not matched -%}{%- do unknown.append(term) -%}{%- endif -%}
    {%- for node in matched if node.unique_id not in chosen_ids -%}
      {%- do chosen.append(node) -%}
      {%- do chosen_ids.append(node.unique_id) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if unknown -%}
    {%- set names = candidates | map(attribute='name') | join(', ') -%}
    {{ exceptions.raise_compiler_error('select: no dbt-vulcan model matches ' ~ unknown | join(', ') ~ '; models: ' ~ (names or '(none)')) }}
  {%- endif -%}
  {{ return(chosen) }}
{% endmacro %}

{#- A model's key in the state log: `schema.alias`, lower case (as vulcan_relation_key). -#}
{% macro _vulcan_op_key(node) %}
  {{ return(((node.schema | string) ~ '.' ~ ((node.alias or node.name) | string)) | lower) }}
{% endmacro %}
