{#- The tracked kind's SQL, built from strings only (no statement runs here): the test oracle
    of what it computes is tests/oracle/tracked.py. Names: `groups` is the run's stage of the
    query's rows with their group hashes (`<table>__vulcan_groups_<run>`), `changes` the small
    stage of the keys that change or break a rule (`<table>__vulcan_changes_<run>`: key
    columns, `vulcan_rows` and `vulcan_change`, one of 'insert', 'replace', 'delete',
    'null_key', 'duplicate'). -#}

{#- The config against the query's column names: one string per problem. -#}
{% macro vulcan_tracked_column_problems(cfg, names) %}
  {%- set r = dbt_vulcan.vulcan_repr -%}
  {%- set lowered = names | map('lower') | list -%}
  {%- set problems = [] -%}
  {%- for key in cfg.group_key if (key | lower) not in lowered -%}
    {%- do problems.append('group_key: ' ~ r(key) ~ " is not a column of the model's query; its columns are: " ~ names | join(', ')) -%}
  {%- endfor -%}
  {%- if (cfg.content_hash_column | lower) in lowered -%}
    {%- do problems.append('content_hash_column: ' ~ r(cfg.content_hash_column) ~ " is a column of the model's query, and the table keeps each group's content hash there: rename the query's column or set content_hash_column to another name") -%}
  {%- endif -%}
  {{ return(problems) }}
{% endmacro %}

{#- {keys, columns, values, hash, window}: the key columns (quoted, as the config names them),
    the batch's columns (`names`, quoted, in their order), the others than the key and the hash
    column sorted by name ({name, sql, json}: the hash does not depend on the query's column
    order; `json`: a map, array, struct or variant column, `complex` names them, hashed as its
    JSON text, which sorts), the quoted hash column and `window` (none, or {column, start, end,
    time_type, time_format}) -#}
{% macro vulcan_tracked_spec(cfg, names, window=none, complex=[]) %}
  {%- set q = dbt_vulcan.vulcan_quote_identifier -%}
  {%- set key_names = cfg.group_key | map('lower') | list -%}
  {%- set keys = [] -%}
  {%- for key in cfg.group_key -%}{%- do keys.append(q(key)) -%}{%- endfor -%}
  {%- set as_json = complex | map('lower') | list -%}
  {%- set values = [] -%}
  {%- for name in names | sort(case_sensitive=false) if (name | lower) not in key_names and (name | lower) != (cfg.content_hash_column | lower) -%}
    {%- do values.append({'name': name | lower, 'sql': q(name), 'json': (name | lower) in as_json}) -%}
  {%- endfor -%}
  {%- set columns = [] -%}
  {%- for name in names if (name | lower) != (cfg.content_hash_column | lower) -%}{%- do columns.append(q(name)) -%}{%- endfor -%}
  {{ return({'keys': keys, 'columns': columns, 'values': values, 'hash': q(cfg.content_hash_column), 'window': window}) }}
{% endmacro %}

{#- A row's content, its non-key columns by name: a struct, which sorts (a complex column as its
    JSON text); `0` when there are none (every row of a group alike). The group's hash is the
    SHA-256 of its rows' structs sorted, as one JSON array, in which a NULL column is left out
    of its row's object (NULL differs from every value) and a timestamp is written in UTC
    (the hash does not depend on the session's time zone). -#}
{% macro vulcan_tracked_row_value(spec, alias) %}
  {%- if not spec['values'] -%}{{ return('0') }}{%- endif -%}
  {%- set fields = [] -%}
  {%- for value in spec['values'] -%}
    {%- set column = alias ~ '.' ~ value.sql -%}
    {%- do fields.append(dbt_vulcan.vulcan_sql_string(value.name) ~ ', ' ~ (('to_json(' ~ column ~ ", map('timeZone', 'UTC'))") if value.json else column)) -%}
  {%- endfor -%}
  {{ return('named_struct(' ~ fields | join(', ') ~ ')') }}
{% endmacro %}

{% macro _vulcan_tracked_keys_of(spec, alias) %}
  {%- set out = [] -%}
  {%- for key in spec['keys'] -%}{%- do out.append(alias ~ '.' ~ key) -%}{%- endfor -%}
  {{ return(out | join(', ')) }}
{% endmacro %}

{% macro _vulcan_tracked_join(spec, left, right, right_names=none) %}
  {%- set terms = [] -%}
  {%- for key in spec['keys'] -%}
    {%- do terms.append(left ~ '.' ~ key ~ ' <=> ' ~ right ~ '.' ~ (right_names[loop.index0] if right_names else key)) -%}
  {%- endfor -%}
  {{ return(terms | join(' and ')) }}
{% endmacro %}

{#- The window's test of a group time (an SQL expression), with the kind's output filter. -#}
{% macro _vulcan_tracked_in_window(spec, expression) %}
  {%- set w = spec.window -%}
  {{ return('(' ~ dbt_vulcan.vulcan_output_filter(expression, w.start, w.end, w.time_type, w.time_format) ~ ')') }}
{% endmacro %}

{#- The stage of the query's rows (`sql`: the batch's SELECT) with their group's hash: its
    rows' contents collected in the window of the key, sorted (order-independent), written as
    one JSON array and hashed (one JSON text and one hash per group, not per row). A group
    holding the same row twice gets a NULL hash, which the changes report as 'duplicate'
    before anything is written (a group is a set of distinct rows): the rule is checked in
    this pass, not in one of its own. With a window: only the groups whose latest row is in it. -#}
{% macro vulcan_tracked_groups_sql(spec, sql) %}
  {%- set keys = dbt_vulcan._vulcan_tracked_keys_of(spec, 'vulcan_rows') -%}
  {%- set lines = [
    'select ' ~ spec.columns | join(', ') ~ ',',
    "  case when size(vulcan_group) = size(array_distinct(vulcan_group)) then sha2(to_json(array_sort(vulcan_group), map('timeZone', 'UTC')), 256) end as " ~ spec.hash,
    'from (',
    '  select vulcan_rows.*,',
    '    collect_list(' ~ dbt_vulcan.vulcan_tracked_row_value(spec, 'vulcan_rows') ~ ') over (partition by ' ~ keys ~ ') as vulcan_group',
  ] -%}
  {%- if spec.window -%}
    {%- do lines.append('    , max(vulcan_rows.' ~ dbt_vulcan.vulcan_quote_identifier(spec.window.column) ~ ') over (partition by ' ~ keys ~ ') as vulcan_group_time') -%}
  {%- endif -%}
  {%- do lines.extend(['  from (', sql, '  ) as vulcan_rows', ') as vulcan_hashed']) -%}
  {%- if spec.window -%}
    {%- do lines.append('where ' ~ dbt_vulcan._vulcan_tracked_in_window(spec, 'vulcan_hashed.vulcan_group_time')) -%}
  {%- endif -%}
  {{ return(lines | join('\n')) }}
{% endmacro %}

{#- The query's groups (`groups`) against the table's (`target`; none for a table built by
    this run: every group is new), each side aggregated by the key (a hash aggregation reading
    the key and hash columns): one row per key that changes or breaks a rule, with the query's
    rows of it (`vulcan_rows`) and `vulcan_change`: 'null_key' (a key column is NULL),
    'duplicate' (the group holds a row twice: a NULL hash), 'insert' (only in the query),
    'replace' (another hash), 'delete' (only in the table, and in the window when there is
    one). The two hashes are compared by their 64-bit xxhash64 (a fixed-width value the
    aggregation and the shuffle carry instead of a 64-character string): a changed group is
    taken as unchanged only if the xxhash64 of its two SHA-256 hashes collide (about one in
    2^64). -#}
{% macro vulcan_tracked_changes_sql(spec, groups, target=none) %}
  {%- set keys = spec['keys'] | join(', ') -%}
  {%- set nulls = [] -%}
  {%- for key in spec['keys'] -%}{%- do nulls.append('vulcan_s.' ~ key ~ ' is null') -%}{%- endfor -%}
  {%- set source = '(select ' ~ keys ~ ', max(xxhash64(' ~ spec.hash ~ ')) as vulcan_hash, bool_or(' ~ spec.hash ~ ' is null) as vulcan_twice, count(*) as vulcan_rows from ' ~ groups ~ ' group by ' ~ keys ~ ') as vulcan_s' -%}
  {%- set broken = [
    "when vulcan_s.vulcan_rows is not null and (" ~ nulls | join(' or ') ~ ") then 'null_key'",
    "when vulcan_s.vulcan_twice then 'duplicate'",
  ] -%}
  {%- if target is none -%}
    {{ return('select ' ~ dbt_vulcan._vulcan_tracked_keys_of(spec, 'vulcan_s') ~ ", vulcan_s.vulcan_rows,\n  case " ~ broken | join(' ') ~ " else 'insert' end as vulcan_change\nfrom " ~ source) }}
  {%- endif -%}
  {%- set chosen = [] -%}
  {%- for key in spec['keys'] -%}{%- do chosen.append('coalesce(vulcan_s.' ~ key ~ ', vulcan_t.' ~ key ~ ') as ' ~ key) -%}{%- endfor -%}
  {%- set time = (', max(' ~ dbt_vulcan.vulcan_quote_identifier(spec.window.column) ~ ') as vulcan_group_time') if spec.window else '' -%}
  {%- set gone = 'vulcan_s.vulcan_rows is null' ~ ((' and ' ~ dbt_vulcan._vulcan_tracked_in_window(spec, 'vulcan_t.vulcan_group_time')) if spec.window else '') -%}
  {%- set lines = [
    'select * from (',
    '  select ' ~ chosen | join(', ') ~ ', vulcan_s.vulcan_rows,',
    '    case ' ~ broken | join(' '),
    "      when vulcan_t.vulcan_present is null then 'insert'",
    "      when " ~ gone ~ " then 'delete'",
    "      when vulcan_s.vulcan_rows is not null and vulcan_s.vulcan_hash <> vulcan_t.vulcan_hash then 'replace'",
    '    end as vulcan_change',
    '  from ' ~ source,
    '  full outer join (select ' ~ keys ~ ', max(xxhash64(' ~ spec.hash ~ ')) as vulcan_hash, true as vulcan_present' ~ time ~ ' from ' ~ target ~ ' group by ' ~ keys ~ ') as vulcan_t',
    '    on ' ~ dbt_vulcan._vulcan_tracked_join(spec, 'vulcan_s', 'vulcan_t'),
    ') as vulcan_changes',
    'where vulcan_change is not null',
  ] -%}
  {{ return(lines | join('\n')) }}
{% endmacro %}

{#- One row per kind of change in `changes` ({vulcan_change, groups, rows, example: one key as
    JSON}), and, with `groups` given, a row 'groups' counting the query's groups (the summary's
    unchanged ones): the run's check and summary in one statement. `changes` is a table or a
    subquery. -#}
{% macro vulcan_tracked_counts_sql(spec, changes, groups=none) %}
  {%- set key_json = [] -%}
  {%- for key in spec['keys'] -%}{%- do key_json.append(dbt_vulcan.vulcan_sql_string(key[1:-1].replace('``', '`')) ~ ', ' ~ key) -%}{%- endfor -%}
  {%- set keys = spec['keys'] | join(', ') -%}
  {%- set sql = 'select vulcan_change, count(*) as vulcan_groups, sum(vulcan_rows) as vulcan_rows, min(to_json(named_struct(' ~ key_json | join(', ') ~ '))) as vulcan_example\nfrom ' ~ changes ~ ' as vulcan_c group by vulcan_change' -%}
  {%- if groups is not none -%}
    {%- set sql = sql ~ "\nunion all\nselect 'groups', count(*), null, null from (select " ~ keys ~ ' from ' ~ groups ~ ' group by ' ~ keys ~ ') as vulcan_k' -%}
  {%- endif -%}
  {{ return(sql) }}
{% endmacro %}

{#- Delta and Iceberg: one MERGE. Its source holds a 'delete' mark per replaced or deleted key
    (matching every stored row of the group: deleted) and the rows of the inserted and replaced
    groups (never matching: inserted). It reads the two stages only: the rows it writes are the
    ones checked and counted (a source that read its target or the query again could differ). -#}
{% macro vulcan_tracked_merge_sql(spec, target, groups, changes) %}
  {%- set marks = [] -%}
  {%- for key in spec['keys'] -%}{%- do marks.append('__vulcan_k' ~ loop.index0) -%}{%- endfor -%}
  {%- set mark_select = [] -%}
  {%- for key in spec['keys'] -%}{%- do mark_select.append(key ~ ' as ' ~ marks[loop.index0]) -%}{%- endfor -%}
  {%- set all_columns = spec.columns + [spec.hash] -%}
  {%- set values = [] -%}
  {%- for column in all_columns -%}{%- do values.append('vulcan_source.' ~ column) -%}{%- endfor -%}
  {%- set target_on = [] -%}
  {%- for key in spec['keys'] -%}{%- do target_on.append('vulcan_target.' ~ key ~ ' <=> vulcan_source.' ~ marks[loop.index0]) -%}{%- endfor -%}
  {%- set lines = [
    'merge into ' ~ target ~ ' as vulcan_target',
    'using (',
    '  select vulcan_marks.*, vulcan_rows.*',
    '  from (',
    "    select " ~ mark_select | join(', ') ~ ", 'delete' as __vulcan_op from " ~ changes ~ " where vulcan_change <> 'insert'",
    '    union all',
    "    select " ~ mark_select | join(', ') ~ ", 'insert' as __vulcan_op from " ~ changes ~ " where vulcan_change <> 'delete'",
    '  ) as vulcan_marks',
    '  left join ' ~ groups ~ ' as vulcan_rows',
    "    on vulcan_marks.__vulcan_op = 'insert' and " ~ dbt_vulcan._vulcan_tracked_join(spec, 'vulcan_rows', 'vulcan_marks', marks),
    ') as vulcan_source',
    "on vulcan_source.__vulcan_op = 'delete' and " ~ target_on | join(' and '),
    'when matched then delete',
    "when not matched and vulcan_source.__vulcan_op = 'insert' then insert (" ~ all_columns | join(', ') ~ ')',
    '  values (' ~ values | join(', ') ~ ')',
  ] -%}
  {{ return(lines | join('\n')) }}
{% endmacro %}

{#- Parquet: the table's rows whose group stays (`kept`), and the query's rows of the inserted
    and replaced groups (`added`): together the table's new content. -#}
{% macro vulcan_tracked_rewrite_sql(spec, target, groups, changes) %}
  {%- set keys = spec['keys'] | join(', ') -%}
  {{ return({
    'kept': 'select vulcan_t.* from ' ~ target ~ ' as vulcan_t left anti join (select ' ~ keys ~ ' from ' ~ changes ~ " where vulcan_change <> 'insert') as vulcan_c on " ~ dbt_vulcan._vulcan_tracked_join(spec, 'vulcan_t', 'vulcan_c'),
    'added': 'select vulcan_g.* from ' ~ groups ~ ' as vulcan_g left semi join (select ' ~ keys ~ ' from ' ~ changes ~ " where vulcan_change <> 'delete') as vulcan_c on " ~ dbt_vulcan._vulcan_tracked_join(spec, 'vulcan_g', 'vulcan_c'),
  }) }}
{% endmacro %}
