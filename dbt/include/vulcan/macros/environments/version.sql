{#- A model's version: a hash of what shapes its rows and of its parents' versions, the same
    for the same code in every target (never a target's schema, catalog or alias).

    - a model of a dbt-vulcan kind: its kind, its SQL as written (`ref()` / `source()` by name),
      the keys that shape its rows (those of the fingerprint, planning/plan.sql) and its table
      layout (file format, partitions, location), an enforced contract's columns;
    - a `forward_only` model: the same without its SQL and without its parents: it keeps its
      version (and its table) through a change, which applies to new intervals only;
    - any other node (a dbt model, seed, snapshot): its resource type, name and dbt's checksum
      of its file; a source: its name.
    The parents are every node in `depends_on` (dbt-vulcan models or not), so a change anywhere
    upstream gives the models below it new versions. tests/oracle/environments.py (version) is
    the Python reference. -#}
{% macro vulcan_node_version(node, memo=none) %}
  {%- set memo = memo if memo is not none else {} -%}
  {%- set id = node.get('unique_id') -%}
  {%- if id in memo -%}{{ return(memo[id]) }}{%- endif -%}
  {%- set identity = dbt_vulcan._vulcan_version_identity(node) -%}
  {%- set parents = [] -%}
  {%- if not identity.forward_only -%}
    {%- for pid in ((node.get('depends_on') or {}).get('nodes') or []) | unique | sort -%}
      {%- set parent = graph.nodes.get(pid) or graph.sources.get(pid) -%}
      {%- do parents.append(dbt_vulcan.vulcan_node_version(parent, memo) if parent is not none else pid) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set version = local_md5(tojson([identity.parts, parents]))[:10] -%}
  {%- do memo.update({id: version}) -%}
  {{ return(version) }}
{% endmacro %}

{#- A hash of what of the node itself its version hashes (its parents left out): what tells a
    model changed directly from one whose parents changed (vulcan_plan's differences). -#}
{% macro vulcan_node_identity(node) %}
  {{ return(local_md5(tojson(dbt_vulcan._vulcan_version_identity(node).parts))[:10]) }}
{% endmacro %}

{#- {parts: what of the node itself its version hashes, forward_only} -#}
{% macro _vulcan_version_identity(node) %}
  {%- if node.get('resource_type') == 'source' -%}
    {{ return({'parts': ['source', node.source_name | string | lower, node.name | string | lower], 'forward_only': false}) }}
  {%- endif -%}
  {%- if not dbt_vulcan.vulcan_is_virtual_node(node) -%}
    {{ return({'parts': [node.resource_type, node.name | string | lower, ((node.get('checksum') or {}).get('checksum') or '') | string], 'forward_only': false}) }}
  {%- endif -%}
  {%- set config = dbt_vulcan.vulcan_node_config(node) -%}
  {%- set forward_only = config.get('forward_only') is sameas true or (config.get('forward_only') | string | lower) == 'true' -%}
  {%- set shaping = {} -%}
  {%- for name in dbt_vulcan.vulcan_version_keys() if config.get(name) is not none -%}
    {%- do shaping.update({name: config.get(name) | string}) -%}
  {%- endfor -%}
  {%- set parts = [shaping, dbt_vulcan.vulcan_contract_signature(node)] -%}
  {%- if not forward_only -%}{%- do parts.append((node.raw_code or '') | string | trim) -%}{%- endif -%}
  {{ return({'parts': parts, 'forward_only': forward_only}) }}
{% endmacro %}

{#- The config keys a version hashes: the kind, those that shape the rows, the table's layout. -#}
{% macro vulcan_version_keys() %}
  {{ return([
    'materialized', 'time_column', 'time_format', 'time_data_type', 'unique_key', 'when_matched',
    'merge_filter', 'group_key', 'content_hash_column', 'valid_from_name', 'valid_to_name',
    'updated_at_name', 'columns', 'invalidate_hard_deletes', 'updated_at_as_valid_from',
    'execution_time_as_valid_from', 'file_format', 'partition_by', 'partitioned_by',
    'partition_by_time_column', 'location_root', 'forward_only',
  ]) }}
{% endmacro %}
