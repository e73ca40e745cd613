{#- What `DESCRIBE TABLE EXTENDED` says about a table: {columns, partition_cols (as written),
    provider (lowercased, or none), dynamic_overwrite (the table option
    partitionOverwriteMode=dynamic), scoped (partitioned with dynamic overwrite: a rewrite
    replaces only the partitions it writes)}. Read by incremental_by_partition's layout check
    and the unique key's parquet upsert; merge.py's TableLayout.from_describe is the oracle. -#}
{% macro vulcan_table_layout(rows) %}{{ return(adapter.dispatch('vulcan_table_layout', 'dbt_vulcan')(rows)) }}{% endmacro %}

{% macro default__vulcan_table_layout(rows) %}
  {%- set ns = namespace(section='columns', provider=none, dynamic=false) -%}
  {%- set columns = [] -%}
  {%- set partitions = [] -%}
  {%- for row in rows -%}
    {%- set name = (row[0] or '') | string | trim -%}
    {%- set value = ((row[1] or '') | string) if row | length > 1 else '' -%}
    {%- if name == 'Storage Properties' and 'partitionoverwritemode=dynamic' in (value | lower | replace(' ', '')) -%}
      {%- set ns.dynamic = true -%}
    {%- endif -%}
    {%- if ns.section == 'other' and name == 'Provider' -%}
      {%- set ns.provider = value | trim | lower -%}
    {%- endif -%}
    {%- if name == '# Partition Information' -%}
      {%- set ns.section = 'partitions' -%}
    {%- elif name.startswith('# col_name') -%}
    {%- elif not name or name.startswith('#') -%}
      {%- set ns.section = 'other' -%}
    {%- elif ns.section == 'columns' -%}
      {%- do columns.append(name) -%}
    {%- elif ns.section == 'partitions' -%}
      {%- do partitions.append(name) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({
    'columns': columns, 'partition_cols': partitions, 'provider': ns.provider,
    'dynamic_overwrite': ns.dynamic, 'scoped': (partitions | length > 0) and ns.dynamic,
  }) }}
{% endmacro %}
