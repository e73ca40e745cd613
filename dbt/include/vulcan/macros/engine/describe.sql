{#- What `DESCRIBE TABLE EXTENDED` says about a table: {columns, types (their types,
    lowercased), partition_cols (as written),
    provider (lowercased, or none), dynamic_overwrite (the table option
    partitionOverwriteMode=dynamic), scoped (partitioned with dynamic overwrite: a rewrite
    replaces only the partitions it writes)}. Read by incremental_by_partition's layout check
    and the unique key's parquet upsert; tests/oracle/unique_key.py's TableLayout.from_describe is the oracle. -#}
{% macro vulcan_table_layout(rows) %}
  {%- set ns = namespace(section='columns', provider=none, dynamic=false) -%}
  {%- set columns = [] -%}
  {%- set types = [] -%}
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
      {%- do types.append(value | trim | lower) -%}
    {%- elif ns.section == 'partitions' -%}
      {%- do partitions.append(name) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({
    'columns': columns, 'types': types, 'partition_cols': partitions, 'provider': ns.provider,
    'dynamic_overwrite': ns.dynamic, 'scoped': (partitions | length > 0) and ns.dynamic,
  }) }}
{% endmacro %}

{#- A query's columns (name, dtype) with Spark's type names (`date`, `decimal(10,2)`),
    for every connection. In the embedded session dbt's own schema read gives them (and the
    `vulcan` adapter only analyses the query: no statement). Over thrift, http and odbc the
    cursor describes a result's columns with type codes only (`DATE_TYPE`, `DECIMAL_TYPE`), so
    Spark describes the query instead (`DESCRIBE QUERY`: analysed, no data read). Both print a
    struct of more than `spark.sql.debug.maxToStringFields` fields (25) cut short
    (`struct<a:int,...,... 5 more fields>`): such a column's type is read again whole, from
    Spark's `typeof` over no rows (one row of constants, no data read; no session setting,
    which a Databricks SQL warehouse refuses), so a table is never created, altered or
    compared with a shortened type. -#}
{% macro vulcan_query_columns(sql) %}
  {%- set columns = dbt_vulcan._vulcan_described_columns(sql) -%}
  {%- set cut = [] -%}
  {%- for c in columns if '... ' in c.dtype and ' more field' in c.dtype -%}{%- do cut.append(c) -%}{%- endfor -%}
  {%- if not cut -%}{{ return(columns) }}{%- endif -%}
  {%- set types = [] -%}
  {%- for c in cut -%}{%- do types.append('typeof(vulcan_q.' ~ dbt_vulcan.vulcan_quote_identifier(c.name) ~ ')') -%}{%- endfor -%}
  {%- set whole = run_query('select ' ~ types | join(', ') ~ ' from (select 1 as vulcan_one) as vulcan_one'
      ~ ' left join (select * from (' ~ sql ~ ') as vulcan_q where false) as vulcan_q on true') -%}
  {%- set full = {} -%}
  {%- for c in cut -%}{%- do full.update({c.name: whole.rows[0][loop.index0] | string}) -%}{%- endfor -%}
  {%- set out = [] -%}
  {%- for c in columns -%}
    {%- do out.append({'name': c.name, 'dtype': full[c.name]} if c.name in full else c) -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- An existing table's columns, read as its query's (vulcan_query_columns) and so compared
    with them type for type: the relation cache's and DESCRIBE TABLE's types print a wide
    struct cut short. -#}
{% macro vulcan_table_columns(relation) %}
  {{ return(dbt_vulcan.vulcan_query_columns('select * from ' ~ relation)) }}
{% endmacro %}

{% macro _vulcan_described_columns(sql) %}
  {%- if target.method == 'session' -%}
    {#- dbt's default empty subquery: the dispatched one binds a time-range model's tokens for
        dbt's own commands (native/native_sql.sql), which the kinds have already rendered -#}
    {{ return(adapter.get_column_schema_from_query(dbt.default__get_empty_subquery_sql(sql, none))) }}
  {%- endif -%}
  {%- set columns = [] -%}
  {%- for row in run_query('describe query ' ~ sql) -%}
    {%- set name = (row[0] or '') | string | trim -%}
    {%- if name and not name.startswith('#') -%}
      {#- {name, dtype}, the type as Spark wrote it: dbt-databricks' Column.create lowercases
          it, a struct's field names too, which a table created from it would then carry -#}
      {%- do columns.append({'name': name, 'dtype': row[1] | string | trim}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(columns) }}
{% endmacro %}
