{#- on_additive_change / on_destructive_change decided from the table's and the query's
    columns: {changed, errors, warnings, add_columns, rewrite, rewrite_select, projection}.
    tests/oracle/engine.py's schema_change is the test oracle. -#}
{% macro vulcan_schema_change_plan(cfg, table_columns, query_columns) %}
  {#- types compared in lower case, written as described (a struct's field names keep their case) -#}
  {%- set table_types = {} -%}
  {%- set table_sql = {} -%}
  {%- set table_keys = [] -%}
  {%- for c in table_columns -%}
    {%- if (c.name | lower) not in table_types -%}{%- do table_keys.append(c.name | lower) -%}{%- endif -%}
    {%- do table_types.update({c.name | lower: [c.name, c.dtype | lower]}) -%}
    {%- do table_sql.update({c.name | lower: dbt_vulcan.vulcan_type_sql(c.dtype)}) -%}
  {%- endfor -%}
  {%- set query_types = {} -%}
  {%- set query_sql = {} -%}
  {%- set query_keys = [] -%}
  {%- for c in query_columns -%}
    {%- if (c.name | lower) not in query_types -%}{%- do query_keys.append(c.name | lower) -%}{%- endif -%}
    {%- do query_types.update({c.name | lower: [c.name, c.dtype | lower]}) -%}
    {%- do query_sql.update({c.name | lower: dbt_vulcan.vulcan_type_sql(c.dtype)}) -%}
  {%- endfor -%}
  {%- set added = [] -%}{%- set removed = [] -%}{%- set retyped = [] -%}
  {%- for k in query_keys -%}
    {%- if k not in table_types -%}{%- do added.append(query_types[k]) -%}
    {%- elif table_types[k][1] != query_types[k][1] -%}{%- do retyped.append([query_types[k][0], table_types[k][1], query_types[k][1]]) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for k in table_keys if k not in query_types -%}{%- do removed.append(table_types[k]) -%}{%- endfor -%}
  {%- set change = {'changed': (added or removed or retyped) | length > 0, 'errors': [], 'warnings': [], 'add_columns': [], 'rewrite': false, 'rewrite_select': '', 'projection': none} -%}
  {%- if not change.changed -%}{{ return(change) }}{%- endif -%}
  {%- set where = "Model '" ~ cfg.model ~ "'" -%}
  {%- set additive_parts = [] -%}
  {%- for n, t in added -%}{%- do additive_parts.append(n ~ ' ' ~ t) -%}{%- endfor -%}
  {%- set destructive_parts = [] -%}
  {%- for n, t in removed -%}{%- do destructive_parts.append('dropped ' ~ n) -%}{%- endfor -%}
  {%- for n, a, b in retyped -%}{%- do destructive_parts.append(n ~ ': ' ~ a ~ ' -> ' ~ b) -%}{%- endfor -%}
  {%- set ns = namespace(project_table=false) -%}
  {%- if added -%}
    {%- set action = cfg.on_additive_change -%}
    {%- set text = where ~ ': additive schema change (new columns: ' ~ additive_parts | join(', ') ~ ')' -%}
    {%- if action == 'error' -%}
      {%- do change.errors.append(text ~ "; on_additive_change is 'error' (allowed: allow, warn, ignore)") -%}
    {%- elif action == 'ignore' -%}
      {%- set ns.project_table = true -%}
    {%- else -%}
      {%- if action == 'warn' -%}{%- do change.warnings.append(text) -%}{%- endif -%}
      {%- for n, t in added -%}{%- do change.add_columns.append(dbt_vulcan.vulcan_quote_identifier(n) ~ ' ' ~ query_sql[n | lower]) -%}{%- endfor -%}
    {%- endif -%}
  {%- endif -%}
  {%- if removed or retyped -%}
    {%- set action = cfg.on_destructive_change -%}
    {%- set text = where ~ ': destructive schema change (' ~ destructive_parts | join(', ') ~ ')' -%}
    {%- if action == 'error' -%}
      {%- do change.errors.append(text ~ "; on_destructive_change is 'error' (allowed: allow, warn, ignore)") -%}
    {%- elif action == 'ignore' -%}
      {%- set ns.project_table = true -%}
    {%- else -%}
      {%- if action == 'warn' -%}{%- do change.warnings.append(text) -%}{%- endif -%}
      {%- do change.update({'rewrite': true}) -%}
    {%- endif -%}
  {%- endif -%}
  {%- if change.rewrite -%}
    {#- the new schema: the query's columns, existing values cast, new columns NULL -#}
    {%- set parts = [] -%}
    {%- for k in query_keys -%}
      {%- set name = query_types[k][0] -%}
      {%- set value = dbt_vulcan.vulcan_quote_identifier(table_types[k][0]) if k in table_types else 'null' -%}
      {%- do parts.append('cast(' ~ value ~ ' as ' ~ query_sql[k] ~ ') as ' ~ dbt_vulcan.vulcan_quote_identifier(name)) -%}
    {%- endfor -%}
    {%- do change.update({'rewrite_select': parts | join(', '), 'add_columns': []}) -%}
  {%- elif ns.project_table -%}
    {%- set names = table_columns | map(attribute='name') | list -%}
    {%- if change.add_columns -%}
      {%- for n, t in added -%}{%- do names.append(n) -%}{%- endfor -%}
    {%- endif -%}
    {%- set projection = [] -%}
    {%- for n in names -%}
      {%- if (n | lower) in query_types -%}
        {%- do projection.append(dbt_vulcan.vulcan_quote_identifier(n)) -%}
      {%- else -%}
        {%- do projection.append('cast(null as ' ~ table_sql[n | lower] ~ ') as ' ~ dbt_vulcan.vulcan_quote_identifier(n)) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- do change.update({'projection': projection}) -%}
  {%- endif -%}
  {{ return(change) }}
{% endmacro %}
