{#- INCREMENTAL_BY_UNIQUE_KEY: the SQL that upserts one batch (a spec from
    vulcan_unique_key_spec): one MERGE on delta/iceberg; on parquet (no MERGE on Spark's plain
    tables) a full outer join of the table and the batch, staged and swapped in. tests/oracle/unique_key.py's
    UpsertSpec (checked_source, merge_statement, parquet) and drop_partitions_sql are the
    test oracle.

    Semantics, the same on every format:
    - a batch row whose key matches a table row updates it: every column by default, or as the
      `when_matched` clauses say (first clause whose condition holds; none holds: row
      unchanged; `THEN DELETE` removes the row);
    - a batch row with a new key is inserted; table rows whose key the batch lacks stay;
    - a key that is NULL (any part of a composite key) never matches, as in SQL MERGE;
    - a key that appears more than once in one batch fails the write with an error naming the
      model, the key and one example value, raised inside the write statement (nothing is
      written, no extra query);
    - `merge_filter` is ANDed to the match condition. -#}

{#- The MERGE's ON clause: `=` on every key part (NULL never matches), AND merge_filter. -#}
{% macro _vulcan_uk_match(spec, with_filter=true) %}
  {%- set pairs = [] -%}
  {%- set sources = dbt_vulcan._vulcan_uk_keys_sql(spec, 'source') -%}
  {%- for t in dbt_vulcan._vulcan_uk_keys_sql(spec, 'target') -%}
    {%- do pairs.append(t ~ ' = ' ~ sources[loop.index0]) -%}
  {%- endfor -%}
  {%- set condition = pairs | join(' and ') -%}
  {%- if with_filter and spec.merge_filter -%}
    {%- set condition = condition ~ ' and (' ~ spec.merge_filter ~ ')' -%}
  {%- endif -%}
  {{ return(condition) }}
{% endmacro %}

{#- A batch row equal to its table row: `<=>` (NULLs equal) on every column of `compare`. -#}
{% macro _vulcan_uk_same(compare) %}
  {%- set same = [] -%}
  {%- for c in compare -%}
    {%- set q = dbt_vulcan.vulcan_quote_identifier(c) -%}
    {%- do same.append('target.' ~ q ~ ' <=> source.' ~ q) -%}
  {%- endfor -%}
  {{ return(same | join(' and ')) }}
{% endmacro %}

{#- The batch's rows, failing the statement if a (non-NULL) key appears twice. -#}
{% macro vulcan_unique_key_checked_source(spec, sql, flag_column=none) %}
  {%- set in_row = dbt_vulcan._vulcan_uk_keys_sql(spec, '__vulcan_row') -%}
  {%- set names = dbt_vulcan._vulcan_uk_keys_sql(spec) | join(', ') -%}
  {%- set examples = [] -%}
  {%- set keyed = [] -%}
  {%- for k in in_row -%}
    {%- do examples.append("coalesce(cast(" ~ k ~ " as string), 'NULL')") -%}
    {%- do keyed.append(k ~ ' is not null') -%}
  {%- endfor -%}
  {%- set example = examples[0] if examples | length == 1 else "concat_ws(', ', " ~ examples | join(', ') ~ ')' -%}
  {%- set prefix = dbt_vulcan.vulcan_sql_string("Model '" ~ spec.model ~ "' (incremental_by_unique_key): duplicate unique_key in one batch: (" ~ names ~ ') = (') -%}
  {%- set suffix = dbt_vulcan.vulcan_sql_string(" rows. Each key may appear at most once per batch; deduplicate the model's query (the table was not changed).") -%}
  {%- set message = 'concat(' ~ prefix ~ ', ' ~ example ~ ", ') appears in ', cast(__vulcan_n as string), " ~ suffix ~ ')' -%}
  {%- set extra = ', true as ' ~ flag_column if flag_column else '' -%}
  {{ return('select __vulcan_row.*' ~ extra ~ ' from (\n'
    ~ '  select struct(vulcan_src.*) as __vulcan_row, count(*) over (partition by ' ~ names ~ ') as __vulcan_n\n'
    ~ '  from (\n' ~ sql ~ '\n  ) as vulcan_src\n'
    ~ ') as vulcan_checked\n'
    ~ 'where case when ' ~ keyed | join(' and ') ~ ' and __vulcan_n > 1 then raise_error(' ~ message ~ ') else true end') }}
{% endmacro %}

{#- One MERGE for the batch (delta, iceberg). `compare`: the table's columns, given when the
    matched rows take every column (no when_matched): the batch's rows equal to the row their
    key matches are then left out of the MERGE (an anti join on the MERGE's own condition and
    every column, `<=>`), so an unchanged row is not rewritten and a batch with no change
    writes no data file (Delta commits nothing). A batch of a time range (`whole` false)
    is compared with the table's rows whose key it has only, found by a semi join on the
    MERGE's condition first: Spark broadcasts a small batch and streams the table once,
    instead of shuffling every row of it; the batch's query then runs twice
    (the semi join reads its keys; the duplicate-key check is the other read's). The whole query's batch (a model without `start`) is as
    large as the table: one anti join, its query read once. -#}
{% macro vulcan_unique_key_merge_sql(spec, relation, sql, compare=none, whole=false) %}
  {%- set checked = dbt_vulcan.vulcan_unique_key_checked_source(spec, sql) -%}
  {%- set match = dbt_vulcan._vulcan_uk_match(spec) -%}
  {%- set source = checked -%}
  {%- if compare and not spec.when_matched -%}
    {%- set table = relation if whole else '(\n'
      ~ 'select target.* from ' ~ relation ~ ' as target\n'
      ~ 'left semi join (\n' ~ sql ~ '\n) as source\n'
      ~ 'on ' ~ match ~ '\n)' -%}
    {%- set source = 'select source.* from (\n' ~ checked ~ '\n) as source\n'
      ~ 'left anti join ' ~ table ~ ' as target\n'
      ~ 'on ' ~ match ~ '\n  and ' ~ dbt_vulcan._vulcan_uk_same(compare) -%}
  {%- endif -%}
  {{ return('merge into ' ~ relation ~ ' as target\n'
    ~ 'using (\n' ~ source ~ '\n) as source\n'
    ~ 'on ' ~ match ~ '\n'
    ~ (spec.when_matched or 'when matched then update set *') ~ '\n'
    ~ 'when not matched then insert *') }}
{% endmacro %}

{#- A batch on a parquet table: {stage_select, overwrite, emptied_partitions, changed}. stage =
    (table rows in scope) merged with the batch, then INSERT OVERWRITE from the stage.
    `layout`: vulcan_table_layout. Partitioned with dynamic overwrite: the scope is the
    partitions of the batch and of the rows its keys match; partitions left with no rows are
    listed by `emptied_partitions` (to drop). Otherwise the whole table. `compare`: the
    table's columns, given when the matched rows take every column (no when_matched, as the
    MERGE's compare): the stage flags each batch row that is new or differs from the row its
    key matches (`__vulcan_changed`, `<=>` on every column), and `changed` is the query that
    finds one; none found, the table is not rewritten. -#}
{% macro vulcan_unique_key_parquet_sql(spec, relation, stage, sql, layout, compare=none) %}
  {%- set quoted = [] -%}
  {%- for c in layout.columns -%}{%- do quoted.append(dbt_vulcan.vulcan_quote_identifier(c)) -%}{%- endfor -%}
  {%- set columns = quoted | join(', ') -%}
  {%- set compare = compare if compare and not spec.when_matched else none -%}
  {%- set changed = 'select 1 from ' ~ stage ~ ' where __vulcan_changed limit 1' if compare else none -%}
  {%- if not layout.scoped -%}
    {%- set select = dbt_vulcan._vulcan_uk_merged_select(spec, layout,
        '(select *, true as __vulcan_t from ' ~ relation ~ ')',
        '(\n' ~ dbt_vulcan.vulcan_unique_key_checked_source(spec, sql, '__vulcan_s') ~ '\n)', compare) -%}
    {{ return({'stage_select': select, 'overwrite': 'insert overwrite table ' ~ relation ~ ' by name select ' ~ columns ~ ' from ' ~ stage, 'emptied_partitions': none, 'changed': changed}) }}
  {%- endif -%}
  {%- set parts = [] -%}
  {%- set lowered = layout.partition_cols | map('lower') | list -%}
  {%- for p in layout.partition_cols -%}{%- do parts.append(dbt_vulcan.vulcan_quote_identifier(p)) -%}{%- endfor -%}
  {%- set in_scope = [] -%}
  {%- set target_parts = [] -%}
  {%- for p in parts -%}
    {%- do in_scope.append('target.' ~ p ~ ' <=> vulcan_scope.' ~ p) -%}
    {%- do target_parts.append('target.' ~ p) -%}
  {%- endfor -%}
  {%- set markers = [] -%}
  {%- for c in layout.columns -%}
    {%- do markers.append('vulcan_scope.' ~ quoted[loop.index0] if (c | lower) in lowered else 'null') -%}
  {%- endfor -%}
  {%- set target_sql = '(select target.*, true as __vulcan_t from ' ~ relation ~ ' as target left semi join vulcan_scope on ' ~ in_scope | join(' and ') ~ ')' -%}
  {%- set select = 'with vulcan_source as (\n' ~ dbt_vulcan.vulcan_unique_key_checked_source(spec, sql, '__vulcan_s') ~ '\n),\n'
      ~ 'vulcan_scope as (\n'
      ~ '  select ' ~ parts | join(', ') ~ ' from vulcan_source\n'
      ~ '  union\n'
      ~ '  select ' ~ target_parts | join(', ') ~ ' from ' ~ relation ~ ' as target\n'
      ~ '  left semi join vulcan_source as source on ' ~ dbt_vulcan._vulcan_uk_match(spec, false) ~ '\n'
      ~ ')\n'
      ~ dbt_vulcan._vulcan_uk_merged_select(spec, layout, target_sql, 'vulcan_source', compare) ~ '\n'
      ~ 'union all\nselect ' ~ markers | join(', ') ~ ', true as __vulcan_marker' ~ (', false as __vulcan_changed' if compare else '') ~ ' from vulcan_scope' -%}
  {{ return({
    'stage_select': select,
    'overwrite': 'insert overwrite table ' ~ relation ~ ' by name select ' ~ columns ~ ' from ' ~ stage ~ ' where not __vulcan_marker',
    'emptied_partitions': dbt_vulcan.vulcan_stage_emptied_partitions_sql(stage, layout.partition_cols),
    'changed': changed,
  }) }}
{% endmacro %}

{#- {column lowercased: value} of an UPDATE SET clause; a column the table lacks: an error -#}
{% macro _vulcan_uk_assigned(spec, clause, layout) %}
  {%- set lowered = layout.columns | map('lower') | list -%}
  {%- set out = {} -%}
  {%- set unknown = [] -%}
  {%- for column, value in clause.assignments -%}
    {%- if (column | lower) not in lowered -%}{%- do unknown.append(column) -%}{%- endif -%}
    {%- do out.update({column | lower: value}) -%}
  {%- endfor -%}
  {%- if unknown -%}
    {{ exceptions.raise_compiler_error(dbt_vulcan.vulcan_config_message({'model': spec.model, 'kind': 'incremental_by_unique_key'}, ['when_matched: ' ~ unknown | join(', ') ~ ' not a column of the table; columns: ' ~ layout.columns | join(', ')])) }}
  {%- endif -%}
  {{ return(out) }}
{% endmacro %}

{% macro _vulcan_uk_column(spec, column, assigned) %}
  {%- set name = dbt_vulcan.vulcan_quote_identifier(column) -%}
  {%- set branches = ['when source.__vulcan_s is null then target.' ~ name, 'when target.__vulcan_t is null then source.' ~ name] -%}
  {%- if not spec.clauses -%}
    {{ return('case ' ~ branches | join(' ') ~ ' else source.' ~ name ~ ' end as ' ~ name) }}
  {%- endif -%}
  {%- for clause in spec.clauses -%}
    {%- if clause.delete -%}
      {%- set value = 'null' -%}
    {%- elif clause.star -%}
      {%- set value = 'source.' ~ name -%}
    {%- else -%}
      {%- set value = assigned[loop.index0].get(column | lower, 'target.' ~ name) -%}
    {%- endif -%}
    {%- do branches.append('when ' ~ (clause.condition or 'true') ~ ' then ' ~ value) -%}
  {%- endfor -%}
  {{ return('case ' ~ branches | join(' ') ~ ' else target.' ~ name ~ ' end as ' ~ name) }}
{% endmacro %}

{#- `compare`: the columns whose `<=>` decides `__vulcan_changed` (a batch row that is new or
    differs from its table row), or none (no such column). -#}
{% macro _vulcan_uk_merged_select(spec, layout, target_sql, source_sql, compare=none) %}
  {%- set assigned = [] -%}
  {%- for c in spec.clauses -%}{%- do assigned.append(dbt_vulcan._vulcan_uk_assigned(spec, c, layout)) -%}{%- endfor -%}
  {%- set columns = [] -%}
  {%- for c in layout.columns -%}{%- do columns.append(dbt_vulcan._vulcan_uk_column(spec, c, assigned)) -%}{%- endfor -%}
  {%- if layout.scoped -%}{%- do columns.append('false as __vulcan_marker') -%}{%- endif -%}
  {%- if compare -%}
    {%- do columns.append('source.__vulcan_s is not null and (target.__vulcan_t is null or not (' ~ dbt_vulcan._vulcan_uk_same(compare) ~ ')) as __vulcan_changed') -%}
  {%- endif -%}
  {%- set sql = 'select\n  ' ~ columns | join(',\n  ') ~ '\n'
      ~ 'from ' ~ target_sql ~ ' as target\n'
      ~ 'full outer join ' ~ source_sql ~ ' as source\n'
      ~ 'on ' ~ dbt_vulcan._vulcan_uk_match(spec) -%}
  {%- set deleting = [] -%}
  {%- for c in spec.clauses -%}
    {%- do deleting.append('when ' ~ (c.condition or 'true') ~ ' then ' ~ ('true' if c.delete else 'false')) -%}
  {%- endfor -%}
  {%- if spec.clauses | selectattr('delete') | list -%}
    {%- set sql = sql ~ '\nwhere not coalesce(source.__vulcan_s and target.__vulcan_t and (case ' ~ deleting | join(' ') ~ ' else false end), false)' -%}
  {%- endif -%}
  {{ return(sql) }}
{% endmacro %}
