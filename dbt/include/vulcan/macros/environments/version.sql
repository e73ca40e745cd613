{#- A model's version: a hash of what shapes its rows and of its parents' lineages, the same
    for the same code in every target (never a target's schema, catalog or alias).

    - a model of a dbt-vulcan kind: its kind, its SQL as written (`ref()` / `source()` by name),
      the keys that shape its rows (those of the fingerprint, planning/plan.sql) and its table
      layout (file format, partitions, location), an enforced contract's columns;
    - a `forward_only` model: the same without its SQL and without its parents: it keeps its
      version (and its table) through a change, which applies to new intervals only;
    - any other node (a dbt model, seed, snapshot): its resource type, name and dbt's checksum
      of its file; a source: its name.
    The parents are every node in `depends_on` (dbt-vulcan models or not), so a change anywhere
    upstream gives the models below it new versions, unless it is non-breaking.

    A parent's lineage is its version, but for a version whose change from the version prod's
    view shows only adds columns (environments/categorise.sql): it keeps that version's lineage,
    so the models below keep their versions and tables. The state log (`by_key`, the pointer
    rows of the run's one read) tells which version prod shows and how its SQL read; the first
    lineage recorded for a version (on its pointer rows, environments/view.sql) is its lineage
    for good, in every environment. Without `by_key` a lineage is the version.
    tests/oracle/environments.py (version) is the Python reference. -#}
{% macro vulcan_node_version(node, memo=none, by_key=none) %}
  {%- set memo = memo if memo is not none else {} -%}
  {%- set id = node.get('unique_id') -%}
  {%- if id in memo -%}{{ return(memo[id]) }}{%- endif -%}
  {%- set identity = dbt_vulcan._vulcan_version_identity(node) -%}
  {%- set parents = [] -%}
  {%- if not identity.forward_only -%}
    {%- for pid in ((node.get('depends_on') or {}).get('nodes') or []) | unique | sort -%}
      {%- set parent = graph.nodes.get(pid) or graph.sources.get(pid) -%}
      {%- do parents.append(dbt_vulcan.vulcan_node_lineage(parent, memo, by_key) if parent is not none else pid) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set version = local_md5(tojson([identity.parts, parents]))[:10] -%}
  {%- do memo.update({id: version, '~parents:' ~ id: local_md5(tojson(parents))[:10]}) -%}
  {{ return(version) }}
{% endmacro %}

{#- What a node's children hash for it: its version, or the lineage its version keeps through a
    non-breaking change (vulcan_version_lineage). -#}
{% macro vulcan_node_lineage(node, memo, by_key=none) %}
  {%- set version = dbt_vulcan.vulcan_node_version(node, memo, by_key) -%}
  {%- if by_key is none or not dbt_vulcan.vulcan_is_virtual_node(node) -%}{{ return(version) }}{%- endif -%}
  {%- set id = '~lineage:' ~ node.unique_id -%}
  {%- if id not in memo -%}
    {%- do memo.update({id: dbt_vulcan.vulcan_version_lineage(node, version, memo['~parents:' ~ node.unique_id], by_key)}) -%}
  {%- endif -%}
  {{ return(memo[id].lineage) }}
{% endmacro %}

{#- {lineage, shape, parents} of a model's version, what its pointer rows record: its lineage
    (the first one recorded on a pointer row of the version, else the lineage of the version
    prod's view shows when the change from it is non-breaking, else the version), the hash of
    its row-shaping keys (`shape`) and of its parents' lineages (`parents`). A change is
    non-breaking when the keys and the parents are the same and the SQL only adds columns. -#}
{% macro vulcan_version_lineage(node, version, parents, by_key) %}
  {%- set identity = dbt_vulcan._vulcan_version_identity(node) -%}
  {%- set out = {'lineage': version, 'shape': local_md5(tojson(identity.parts[:2]))[:10], 'parents': parents} -%}
  {%- if identity.forward_only -%}{{ return(out) }}{%- endif -%}
  {%- set rows = by_key.get(dbt_vulcan.vulcan_pointer_key(node), []) -%}
  {%- set st = {'recorded': none} -%}
  {%- for row in rows if st.recorded is none and row.row_type == 'pointer' and row.fingerprint == version and '"lineage"' in row.details -%}
    {%- do st.update({'recorded': dbt_vulcan.vulcan_log_details(row).get('lineage') or none}) -%}
  {%- endfor -%}
  {%- set prod = dbt_vulcan.vulcan_pointers(rows).get(dbt_vulcan.vulcan_prod_environment()) -%}
  {%- if st.recorded is not none -%}
    {%- do out.update({'lineage': st.recorded}) -%}
  {%- elif prod is not none and prod.version != version and prod.shape == out.shape and prod.parents == parents
      and dbt_vulcan.vulcan_change_is_additive(prod.select, dbt_vulcan.vulcan_select_signature(node.raw_code)) -%}
    {%- do out.update({'lineage': prod.lineage}) -%}
  {%- endif -%}
  {{ return(out) }}
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
