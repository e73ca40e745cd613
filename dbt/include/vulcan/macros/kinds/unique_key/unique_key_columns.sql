{#- The columns the key, merge_filter and when_matched name, checked against the query's and
    the table's (unique_key_spec.sql reads them). -#}

{#- The problems of the columns the key, merge_filter and when_matched name, checked against
    the query's columns (`source`: names) and the table's (`target`: names, or none when not
    known: not checked). Lines of a config error (vulcan_check_columns' extra_problems). -#}
{% macro vulcan_unique_key_column_problems(spec, source, target) %}
  {%- set r = dbt_vulcan.vulcan_repr -%}
  {%- set sides = {'source': source | list, 'target': none if target is none else target | list} -%}
  {%- set problems = [] -%}
  {%- set listing = (source | join(', ')) -%}
  {%- set lowered = source | map('lower') | list -%}
  {%- for key in spec['keys'] -%}
    {%- set missing = [] -%}
    {%- for c in key.columns if (c.parts[0] | lower) not in lowered -%}{%- do missing.append(c.written) -%}{%- endfor -%}
    {%- if missing -%}
      {%- set what = 'is' if missing == [key.text] else 'names ' ~ missing | join(', ') ~ ', which is' -%}
      {%- do problems.append('unique_key: ' ~ r(key.text) ~ ' ' ~ what ~ " not a column of the model's query; its columns are: " ~ listing) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for label, text in spec.filters -%}
    {%- do problems.extend(dbt_vulcan._vulcan_uk_references(sides, label, text)) -%}
  {%- endfor -%}
  {%- for clause in spec.clauses -%}
    {%- set label = 'when_matched clause ' ~ loop.index -%}
    {%- if clause.condition is not none -%}
      {%- do problems.extend(dbt_vulcan._vulcan_uk_references(sides, label, clause.condition)) -%}
    {%- endif -%}
    {%- for column, value in clause.assignments -%}
      {%- if target is not none and (column | lower) not in (target | map('lower') | list) -%}
        {%- do problems.append(label ~ ': UPDATE SET ' ~ column ~ ' = ...: ' ~ r(column) ~ ' is not a column of the table (target); its columns are: ' ~ target | join(', ')) -%}
      {%- endif -%}
      {%- do problems.extend(dbt_vulcan._vulcan_uk_references(sides, label, value)) -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return(problems) }}
{% endmacro %}

{#- Whether the column problems depend on the table's columns (tests/oracle/unique_key.py's
    UpsertSpec.names_table): merge_filter, incremental_predicates or when_matched name
    `target.<c>`, assign a column (UPDATE SET <c> = ...) or name a column (or qualifier) the
    query lacks. Checked against a table without columns, exactly those references are
    problems that an unknown table lets pass. A run reads the table's columns only then. -#}
{% macro _vulcan_uk_names_table(spec, source) %}
  {%- set unknown = dbt_vulcan.vulcan_unique_key_column_problems(spec, source, none) -%}
  {%- set empty = dbt_vulcan.vulcan_unique_key_column_problems(spec, source, []) -%}
  {{ return(empty | length > unknown | length) }}
{% endmacro %}

{#- tests/oracle/unique_key.py's _Sides.references: `source.<c>` must be a column of the query, `target.<c>` one
    of the table, a bare `<c>` one of either (a struct's field `<c>.<f>` too). -#}
{% macro _vulcan_uk_references(sides, label, text) %}
  {%- set r = dbt_vulcan.vulcan_repr -%}
  {%- set lexed = dbt_vulcan.vulcan_sql_tokens(text) -%}
  {%- if lexed.error is not none -%}{{ return([]) }}{%- endif -%}
  {%- set source = sides.source | map('lower') | list -%}
  {%- set target = none if sides.target is none else sides.target | map('lower') | list -%}
  {%- set listing = {'source': sides.source | join(', '), 'target': (sides.target or []) | join(', ')} -%}
  {%- set problems = [] -%}
  {%- for column in dbt_vulcan.vulcan_sql_columns(lexed.tokens) -%}
    {%- set parts = column.parts -%}
    {%- set head = parts[0] | lower -%}
    {%- set written = column.written -%}
    {%- set in_source = head in source -%}
    {%- set in_target = target is none or head in target -%}
    {%- if head in ('source', 'target') and parts | length > 1 -%}
      {%- set found = (parts[1] | lower) in source if head == 'source' else (target is none or (parts[1] | lower) in target) -%}
      {%- if not found -%}
        {%- set what = "the model's query" if head == 'source' else 'the table' -%}
        {%- do problems.append(label ~ ': ' ~ r(text) ~ ' names ' ~ written ~ ', which is not a column of ' ~ what ~ ' (' ~ head ~ '); its columns are: ' ~ listing[head]) -%}
      {%- endif -%}
    {%- elif in_source or in_target -%}
    {%- elif parts | length > 1 -%}
      {%- do problems.append(label ~ ': ' ~ r(text) ~ ' names ' ~ written ~ ': ' ~ r(parts[0]) ~ " is neither source (the model's query) nor target (the table); write source.<column> or target.<column>") -%}
    {%- else -%}
      {%- do problems.append(label ~ ': ' ~ r(text) ~ ' names ' ~ written ~ ", which is a column of neither the model's query (source: " ~ listing.source ~ ') nor the table (target: ' ~ listing.target ~ ')') -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(problems) }}
{% endmacro %}
