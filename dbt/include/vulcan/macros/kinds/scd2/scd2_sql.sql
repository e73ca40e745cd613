{#- SCD type 2 (scd_type_2_by_time, scd_type_2_by_column): the config checked against the
    query's columns, the table's columns and the SQL of one run (or one batch of a history
    backfill). tests/oracle/scd2.py is the test oracle of every rule, message and
    statement (tests/unit/macros/kinds/scd2/test_scd2_macros.py).

    One run compares the model's query (the *source*, one row per key) with the *current*
    rows of the table (`valid_to IS NULL`) and decides per key:
    - in both, changed: the current row is closed at the change time, the source row
      inserted from it;
    - in both, unchanged: nothing (the stored row keeps every value);
    - only in the source: inserted, from 1970-01-01 on the first load (table empty), else from
      the change time, but never before the key's last `valid_to`;
    - only in the table, with `invalidate_hard_deletes`: closed at the detection time (by
      column with `updated_at_name`: the batch's latest change time).
    *Changed*: by time, a strictly newer `updated_at`; by column, any watched column differs
    (NULL-safe). *Change time*: by time, the row's `updated_at`; by column, the detection time,
    or the row's `updated_at_name` column when set. *Detection time*: the run's execution time;
    a batch followed by later batches of the same run is detected at its interval's end.
    Duplicate keys in one run's source fail the statement (raise_error) before anything is
    written: by time (and by column with `updated_at_name`) only rows sharing the latest
    `updated_at`, by column without it any second row.

    The spec (vulcan_scd_type_2_model): {model, kind, columns, column_types, keys (SQL over the
    query's columns), key_labels, valid_from, valid_to, valid_type, updated_at, watched,
    invalidate_hard_deletes, updated_at_as_valid_from, execution_time_as_valid_from}. -#}

{#- {spec, problems}: the spec, and the problems of the config against the query's columns
    (a list of strings, for vulcan_check_columns' extra_problems; the spec is usable for the
    table's columns even when there are problems). `cfg`: the validated settings. -#}
{% macro vulcan_scd_type_2_model(cfg, query_columns) %}
  {%- set r = dbt_vulcan.vulcan_repr -%}
  {%- set names = [] -%}
  {%- set types = [] -%}
  {%- set by_lower = {} -%}
  {%- for c in query_columns -%}
    {%- do names.append(c.name | string) -%}
    {%- do types.append(c.dtype | string) -%}
    {%- do by_lower.update({(c.name | string) | lower: c.name | string}) -%}
  {%- endfor -%}
  {%- set listed = names | join(', ') -%}
  {%- set problems = [] -%}
  {%- set keys = [] -%}
  {%- set labels = [] -%}
  {%- set key_columns = [] -%}
  {%- for entry in cfg.unique_key or [] -%}
    {%- set plain = dbt_vulcan._vulcan_scd2_plain_name(entry) -%}
    {%- if plain is none -%}
      {#- an expression over the query's columns -#}
      {%- set parsed = dbt_vulcan._vulcan_scd2_key_columns(entry) -%}
      {%- do problems.extend(parsed.problems) -%}
      {%- set missing = [] -%}
      {%- for column in parsed.columns if (column | lower) not in by_lower -%}
        {%- do missing.append(column) -%}
      {%- endfor -%}
      {%- if missing -%}
        {%- do problems.append('unique_key: ' ~ r(entry.strip()) ~ ' names ' ~ missing | join(', ') ~ ", which is not a column of the model's query; its columns are: " ~ listed) -%}
      {%- endif -%}
      {%- do keys.append(entry.strip()) -%}
      {%- do labels.append(entry.strip()) -%}
    {%- else -%}
      {%- set column = dbt_vulcan._vulcan_scd2_resolve(plain, 'unique_key', by_lower, listed, problems) -%}
      {%- do key_columns.append(column | lower) -%}
      {%- do keys.append(dbt_vulcan.vulcan_quote_identifier(column)) -%}
      {%- do labels.append(column) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if not keys -%}
    {%- do problems.append('unique_key: required (a column, an expression or a list of them)') -%}
  {%- endif -%}

  {%- set valid_from, valid_to = cfg.valid_from_name, cfg.valid_to_name -%}
  {%- if (valid_from | lower) == (valid_to | lower) -%}
    {%- do problems.append('valid_to_name: ' ~ r(valid_to) ~ ' is also the valid_from_name; give them two names') -%}
  {%- endif -%}
  {%- for option, name in [('valid_from_name', valid_from), ('valid_to_name', valid_to)] if (name | lower) in by_lower -%}
    {%- do problems.append(option ~ ": the model's query already has a column " ~ r(name) ~ '; rename it in the query or set ' ~ option ~ ' to another name') -%}
  {%- endfor -%}

  {%- set updated_at = dbt_vulcan._vulcan_scd2_resolve(cfg.updated_at_name, 'updated_at_name', by_lower, listed, problems) if cfg.updated_at_name else none -%}
  {%- set watched = [] -%}
  {%- if cfg.kind == 'scd_type_2_by_column' -%}
    {%- if cfg.columns is none -%}
      {#- '*': every column but the keys and the change time -#}
      {%- set skip = key_columns + ([updated_at | lower] if updated_at else []) -%}
      {%- for name in names if (name | lower) not in skip -%}{%- do watched.append(name) -%}{%- endfor -%}
    {%- else -%}
      {%- for c in cfg.columns -%}
        {%- do watched.append(dbt_vulcan._vulcan_scd2_resolve(c, 'columns', by_lower, listed, problems)) -%}
      {%- endfor -%}
    {%- endif -%}
  {%- elif cfg.kind != 'scd_type_2_by_time' -%}
    {%- do problems.append('kind: ' ~ r(cfg.kind) ~ ' is not an SCD type 2 kind') -%}
  {%- endif -%}
  {{ return({'spec': {
    'model': cfg.model, 'kind': cfg.kind, 'columns': names, 'column_types': types,
    'keys': keys, 'key_labels': labels, 'valid_from': valid_from, 'valid_to': valid_to,
    'valid_type': cfg.time_data_type or 'timestamp', 'updated_at': updated_at, 'watched': watched,
    'invalidate_hard_deletes': cfg.invalidate_hard_deletes,
    'updated_at_as_valid_from': cfg.updated_at_as_valid_from,
    'execution_time_as_valid_from': cfg.execution_time_as_valid_from,
  }, 'problems': problems}) }}
{% endmacro %}

{#- The table's columns: the query's, then valid_from and valid_to ([{name, dtype}]). -#}
{% macro vulcan_scd_type_2_table_columns(spec) %}
  {%- set out = [] -%}
  {%- for name in spec.columns -%}
    {%- do out.append({'name': name, 'dtype': spec.column_types[loop.index0]}) -%}
  {%- endfor -%}
  {%- do out.append({'name': spec.valid_from, 'dtype': spec.valid_type}) -%}
  {%- do out.append({'name': spec.valid_to, 'dtype': spec.valid_type}) -%}
  {{ return(out) }}
{% endmacro %}

{#- When a batch's changes and hard deletes are seen (a datetime): the run's execution time,
    except for a batch followed by later batches of the same run (a history backfill), seen
    at its end. -#}
{% macro vulcan_scd_type_2_detection_time(execution_time, batch) %}
  {%- set executed = execution_time if execution_time is not string else dbt_vulcan.vulcan_parse_ts(execution_time) -%}
  {%- if batch.get('tracked', true) and (batch['index'] | int) < (batch['count'] | int) -%}
    {%- set ended = dbt_vulcan.vulcan_parse_ts(batch['end']) -%}
    {{ return(ended if ended < executed else executed) }}
  {%- endif -%}
  {{ return(executed) }}
{% endmacro %}

{#- SCD2 SQL: 'create' (the empty table's query from `source_sql`), 'rewrite' (the table's
    complete new content, for a staged rewrite), 'changes' (the rows a MERGE applies) or
    'merge' (a MERGE of the changes in `source_sql`: a relation or a parenthesized query).
    `empty`: the table is known to hold no rows (created by this run, first batch), so it is
    not read. -#}
{% macro vulcan_scd_type_2_sql(spec, statement, relation, source_sql, execution_time=none, batch=none, empty=false) %}
  {%- if statement == 'create' -%}
    {{ return(dbt_vulcan._vulcan_scd2_create(spec, source_sql)) }}
  {%- elif statement == 'merge' -%}
    {{ return(dbt_vulcan._vulcan_scd2_merge(spec, relation | string, source_sql)) }}
  {%- elif statement in ('changes', 'rewrite') -%}
    {%- set detected = dbt_vulcan.vulcan_scd_type_2_detection_time(execution_time, batch or {'index': 1, 'count': 1}) -%}
    {%- if statement == 'changes' -%}
      {{ return(dbt_vulcan._vulcan_scd2_changes(spec, relation | string, source_sql, detected, empty)) }}
    {%- endif -%}
    {{ return(dbt_vulcan._vulcan_scd2_rewrite(spec, relation | string, source_sql, detected, empty)) }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error('unknown SCD2 statement ' ~ dbt_vulcan.vulcan_repr(statement) ~ ' (create, rewrite, changes, merge)') }}
{% endmacro %}

{# ------------------------------------------------------------------ private: the config #}

{#- The column name when a unique_key entry is a plain (optionally quoted) column, else none. -#}
{% macro _vulcan_scd2_plain_name(key) %}
  {%- set text = key.strip() -%}
  {%- if modules.re.fullmatch('[A-Za-z_][A-Za-z0-9_]*', text) -%}{{ return(text) }}{%- endif -%}
  {%- if modules.re.fullmatch('`(?:[^`]|``)+`', text) -%}{{ return(text[1:-1].replace('``', '`')) }}{%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- The query's column named `name` (any case), or `name` with a problem appended. -#}
{% macro _vulcan_scd2_resolve(name, key, by_lower, listed, problems) %}
  {%- set found = by_lower.get(name | lower) -%}
  {%- if found is none -%}
    {%- do problems.append(key ~ ': ' ~ dbt_vulcan.vulcan_repr(name) ~ " is not a column of the model's query; its columns are: " ~ listed) -%}
    {{ return(name) }}
  {%- endif -%}
  {{ return(found) }}
{% endmacro %}

{#- {columns, problems} of a unique_key expression: the columns it names (of a struct field
    `s.f`, the column `s`), read by the unique-key kind's key reader (kinds/unique_key/unique_key_spec.sql,
    vulcan_uk_parse_keys: one reader for both kinds, as unique_key.parse_keys is for the oracle). -#}
{% macro _vulcan_scd2_key_columns(entry) %}
  {%- set parsed = dbt_vulcan.vulcan_uk_parse_keys([entry]) -%}
  {%- set columns = [] -%}
  {%- for key in parsed['keys'] -%}
    {%- for c in key.columns -%}{%- do columns.append(c.parts[0]) -%}{%- endfor -%}
  {%- endfor -%}
  {{ return({'columns': columns, 'problems': parsed.problems}) }}
{% endmacro %}

{# --------------------------------------------------------------------- private: the SQL #}

{% macro _vulcan_scd2_sql_type(spec) %}
  {{ return({'timestamp': 'TIMESTAMP', 'timestamp_ntz': 'TIMESTAMP_NTZ', 'date': 'DATE'}[spec.valid_type]) }}
{% endmacro %}

{#- A literal of the valid_* type for a datetime (UTC, whatever the session's time zone). -#}
{% macro _vulcan_scd2_literal(spec, value) %}
  {{ return(dbt_vulcan.vulcan_time_literal(value, spec.valid_type)) }}
{% endmacro %}

{% macro _vulcan_scd2_key_names(spec) %}
  {%- set out = [] -%}
  {%- for k in spec['keys'] -%}{%- do out.append('_vulcan_k' ~ loop.index0) -%}{%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{% macro _vulcan_scd2_key_select(spec) %}
  {%- set out = [] -%}
  {%- for expr in spec['keys'] -%}{%- do out.append(expr ~ ' AS _vulcan_k' ~ loop.index0) -%}{%- endfor -%}
  {{ return(out | join(', ')) }}
{% endmacro %}

{#- A predicate that fails the statement on a duplicate key (lazy raise_error). -#}
{% macro _vulcan_scd2_duplicate_check(spec) %}
  {%- set s = dbt_vulcan.vulcan_sql_string -%}
  {%- set example = [] -%}
  {%- for k in dbt_vulcan._vulcan_scd2_key_names(spec) -%}
    {%- do example.append("coalesce(cast(" ~ k ~ " AS STRING), 'NULL')") -%}
  {%- endfor -%}
  {%- if spec.updated_at is not none -%}
    {%- set what = ' and the same latest ' ~ spec.updated_at -%}
    {%- set fix = "; keep one row per key and change time in the model's query" -%}
  {%- else -%}
    {%- set what = '' -%}
    {%- set fix = '; SCD type 2 by column needs one row per key per run: deduplicate the query' -%}
  {%- endif -%}
  {%- set head = s("Model '" ~ spec.model ~ "' (" ~ spec.kind ~ "): ") -%}
  {%- set middle = s(' rows of the query share unique_key (' ~ spec.key_labels | join(', ') ~ ') = (') -%}
  {%- set tail = s(')' ~ what ~ fix) -%}
  {%- set message = 'concat(' ~ head ~ ', cast(_vulcan_dups AS STRING), ' ~ middle ~ ", concat_ws(', ', " ~ example | join(', ') ~ '), ' ~ tail ~ ')' -%}
  {{ return('CASE WHEN _vulcan_dups > 1 THEN CAST(raise_error(' ~ message ~ ') AS BOOLEAN) ELSE TRUE END') }}
{% endmacro %}

{#- A query with one row per source row and per stored row (all of them with `history`, else
    only current ones, plus closed ones when hard deletes need their last valid_to), each with
    its decision: _vulcan_close/_vulcan_close_at for stored rows, _vulcan_insert/
    _vulcan_valid_from for source rows. Every step is a window over the key (one shuffle). -#}
{% macro _vulcan_scd2_decided(spec, target, source_sql, detected_at, history, empty) %}
  {%- set q = dbt_vulcan.vulcan_quote_identifier -%}
  {%- set sql_type = dbt_vulcan._vulcan_scd2_sql_type(spec) -%}
  {%- set cols = dbt_vulcan.vulcan_quote_identifiers(spec.columns) | join(', ') -%}
  {%- set vf, vt = q(spec.valid_from), q(spec.valid_to) -%}
  {%- set null = 'CAST(NULL AS ' ~ sql_type ~ ')' -%}
  {%- set detected = dbt_vulcan._vulcan_scd2_literal(spec, detected_at) -%}
  {%- set upd = q(spec.updated_at) if spec.updated_at else none -%}
  {%- set src = '_vulcan_is_source' -%}
  {%- set cur = '(NOT _vulcan_is_source AND ' ~ vt ~ ' IS NULL)' -%}
  {%- set key_select = dbt_vulcan._vulcan_scd2_key_select(spec) -%}
  {%- set partition = dbt_vulcan._vulcan_scd2_key_names(spec) | join(', ') -%}
  {%- set by_time = spec.kind == 'scd_type_2_by_time' -%}
  {%- set by_column = spec.kind == 'scd_type_2_by_column' -%}

  {#- the stored rows this run reads -#}
  {%- if empty -%}
    {%- set stored = '' -%}
  {%- else -%}
    {%- set where = '' if history or spec.invalidate_hard_deletes else '\n  WHERE ' ~ vt ~ ' IS NULL' -%}
    {%- set stored = '\n  UNION ALL\n  SELECT ' ~ cols ~ ', ' ~ vf ~ ', ' ~ vt ~ ', FALSE, ' ~ key_select ~ '\n  FROM ' ~ target ~ ' AS vulcan_table' ~ where -%}
  {%- endif -%}

  {#- what a source row is compared with: the key's current row -#}
  {%- set compared = [spec.updated_at] if by_time and spec.updated_at is not none else spec.watched -%}
  {%- set fields = [] -%}
  {%- for c in compared -%}{%- do fields.append("'c" ~ loop.index0 ~ "', " ~ q(c)) -%}{%- endfor -%}
  {%- set current = ('max(IF(' ~ cur ~ ', named_struct(' ~ fields | join(', ') ~ '), NULL)) OVER w') if compared else 'NULL' -%}

  {%- if upd is not none -%}
    {%- set latest = '\n    max(IF(' ~ src ~ ', ' ~ upd ~ ', NULL)) OVER w AS _vulcan_latest,' -%}
    {%- set dups = 'count(IF(' ~ src ~ ' AND ' ~ upd ~ ' <=> _vulcan_latest, 1, NULL)) OVER w' -%}
    {%- set winner = src ~ ' AND ' ~ upd ~ ' <=> _vulcan_latest' -%}
  {%- else -%}
    {%- set latest = '' -%}
    {%- set dups = '_vulcan_source_rows' -%}
    {%- set winner = src -%}
  {%- endif -%}

  {%- if by_time -%}
    {%- set old = '_vulcan_current.c0' -%}
    {%- set changed = '(' ~ upd ~ ' > ' ~ old ~ ' OR (' ~ old ~ ' IS NULL AND ' ~ upd ~ ' IS NOT NULL))' -%}
  {%- elif compared -%}
    {%- set same = [] -%}
    {%- for c in compared -%}{%- do same.append(q(c) ~ ' <=> _vulcan_current.c' ~ loop.index0) -%}{%- endfor -%}
    {%- set changed = 'NOT (' ~ same | join(' AND ') ~ ')' -%}
  {%- else -%}
    {%- set changed = 'FALSE' -%}
  {%- endif -%}
  {%- set change_time = ('coalesce(CAST(' ~ upd ~ ' AS ' ~ sql_type ~ '), ' ~ detected ~ ')') if upd else detected -%}

  {%- set epoch = dbt_vulcan._vulcan_scd2_literal(spec, modules.datetime.datetime(1970, 1, 1)) -%}
  {%- if by_time and spec.updated_at_as_valid_from and upd is not none -%}
    {%- set first_from = 'coalesce(CAST(' ~ upd ~ ' AS ' ~ sql_type ~ '), ' ~ epoch ~ ')' -%}
  {%- elif by_column and spec.execution_time_as_valid_from -%}
    {%- set first_from = '_vulcan_change_time' -%}
  {%- else -%}
    {%- set first_from = epoch -%}
  {%- endif -%}
  {%- set first_load = 'TRUE' if empty else '(SELECT count(*) FROM (SELECT 1 FROM ' ~ target ~ ' LIMIT 1)) = 0' -%}

  {%- set deleted_at = detected -%}
  {%- if by_column and upd is not none and spec.invalidate_hard_deletes -%}
    {#- a history source: a key missing from a snapshot is gone as of that snapshot -#}
    {%- set deleted_at = 'coalesce((SELECT max(CAST(' ~ upd ~ ' AS ' ~ sql_type ~ ')) FROM vulcan_rows WHERE ' ~ src ~ '), ' ~ detected ~ ')' -%}
  {%- endif -%}
  {%- set invalidate = 'TRUE' if spec.invalidate_hard_deletes else 'FALSE' -%}

  {%- set sql -%}
WITH vulcan_rows AS (
  SELECT {{ cols }}, {{ null }} AS {{ vf }}, {{ null }} AS {{ vt }}, TRUE AS _vulcan_is_source,
    {{ key_select }}
  FROM (
{{ source_sql }}
  ) AS vulcan_query{{ stored }}
),
vulcan_keyed AS (
  SELECT *,
    count(IF({{ src }}, 1, NULL)) OVER w AS _vulcan_source_rows,{{ latest }}
    count(IF({{ cur }}, 1, NULL)) OVER w > 0 AS _vulcan_in_target,
    max(IF({{ cur }}, {{ vf }}, NULL)) OVER w AS _vulcan_current_from,
    {{ current }} AS _vulcan_current,
    max(IF(NOT {{ src }}, {{ vt }}, NULL)) OVER w AS _vulcan_last_to
  FROM vulcan_rows
  WINDOW w AS (PARTITION BY {{ partition }})
),
vulcan_counted AS (
  SELECT *, {{ dups }} AS _vulcan_dups
  FROM vulcan_keyed
  WINDOW w AS (PARTITION BY {{ partition }})
),
vulcan_compared AS (
  SELECT *,
    {{ winner }} AND {{ dbt_vulcan._vulcan_scd2_duplicate_check(spec) }} AS _vulcan_winner,
    _vulcan_in_target AND coalesce({{ changed }}, FALSE) AS _vulcan_changed,
    {{ change_time }} AS _vulcan_change_time
  FROM vulcan_counted
),
vulcan_propagated AS (
  SELECT *,
    count(IF(_vulcan_winner, 1, NULL)) OVER w > 0 AS _vulcan_key_in_source,
    max(IF(_vulcan_winner AND _vulcan_changed, _vulcan_change_time, NULL)) OVER w
      AS _vulcan_key_changed_at
  FROM vulcan_compared
  WINDOW w AS (PARTITION BY {{ partition }})
),
vulcan_decided AS (
  SELECT *,
    {{ cur }} AND (
      _vulcan_key_changed_at IS NOT NULL OR (NOT _vulcan_key_in_source AND {{ invalidate }})
    ) AS _vulcan_close,
    greatest(
      CASE WHEN _vulcan_key_in_source THEN _vulcan_key_changed_at ELSE {{ deleted_at }} END,
      _vulcan_current_from
    ) AS _vulcan_close_at,
    _vulcan_winner AND (NOT _vulcan_in_target OR _vulcan_changed) AS _vulcan_insert,
    CASE
      WHEN _vulcan_in_target THEN greatest(_vulcan_change_time, _vulcan_current_from)
      WHEN {{ first_load }} THEN {{ first_from }}
      ELSE greatest(_vulcan_change_time, _vulcan_last_to)
    END AS _vulcan_valid_from
  FROM vulcan_propagated
)
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- A query with the table's columns, for creating the empty table. -#}
{% macro _vulcan_scd2_create(spec, schema_sql) %}
  {%- set null = 'CAST(NULL AS ' ~ dbt_vulcan._vulcan_scd2_sql_type(spec) ~ ')' -%}
  {%- set q = dbt_vulcan.vulcan_quote_identifier -%}
  {{ return('SELECT ' ~ dbt_vulcan.vulcan_quote_identifiers(spec.columns) | join(', ') ~ ', ' ~ null ~ ' AS ' ~ q(spec.valid_from) ~ ', ' ~ null ~ ' AS ' ~ q(spec.valid_to) ~ '\nFROM (\n' ~ schema_sql ~ '\n) AS vulcan_schema') }}
{% endmacro %}

{#- The rows a MERGE applies: one 'close' row per current row to close (its key and
    _vulcan_close_at) and one 'insert' row per new version (its columns as _vulcan_c<i>, and
    _vulcan_valid_from). -#}
{% macro _vulcan_scd2_changes(spec, target, source_sql, detected_at, empty) %}
  {%- set data = [] -%}
  {%- for c in spec.columns -%}{%- do data.append(dbt_vulcan.vulcan_quote_identifier(c) ~ ' AS _vulcan_c' ~ loop.index0) -%}{%- endfor -%}
  {%- set decided = dbt_vulcan._vulcan_scd2_decided(spec, target, source_sql, detected_at, false, empty) -%}
  {{ return(decided ~ "\nSELECT IF(_vulcan_is_source, 'insert', 'close') AS _vulcan_action, " ~ dbt_vulcan._vulcan_scd2_key_names(spec) | join(', ') ~ ',\n  _vulcan_close_at, _vulcan_valid_from, ' ~ data | join(', ') ~ '\nFROM vulcan_decided\nWHERE _vulcan_close OR _vulcan_insert') }}
{% endmacro %}

{#- One MERGE of `changes` (a relation, or `(<changes>)`): closes the current rows of changed
    and deleted keys and inserts the new versions. Only current rows of changed keys are
    matched. A plain key is qualified with the target; an expression key sees only the
    target's columns (the changes have only _vulcan_ columns). -#}
{% macro _vulcan_scd2_merge(spec, target, changes) %}
  {%- set q = dbt_vulcan.vulcan_quote_identifier -%}
  {%- set on = [] -%}
  {%- for expr in spec['keys'] -%}
    {%- set plain = dbt_vulcan._vulcan_scd2_plain_name(expr) -%}
    {%- set target_key = 'vulcan_target.' ~ q(plain) if plain is not none else expr -%}
    {%- do on.append(target_key ~ ' <=> vulcan_changes._vulcan_k' ~ loop.index0) -%}
  {%- endfor -%}
  {%- set insert_cols = dbt_vulcan.vulcan_quote_identifiers(spec.columns + [spec.valid_from, spec.valid_to]) -%}
  {%- set insert_values = [] -%}
  {%- for c in spec.columns -%}{%- do insert_values.append('vulcan_changes._vulcan_c' ~ loop.index0) -%}{%- endfor -%}
  {%- do insert_values.extend(['vulcan_changes._vulcan_valid_from', 'CAST(NULL AS ' ~ dbt_vulcan._vulcan_scd2_sql_type(spec) ~ ')']) -%}
  {%- set vt = q(spec.valid_to) -%}
  {{ return('MERGE INTO ' ~ target ~ ' AS vulcan_target\nUSING ' ~ changes ~ ' AS vulcan_changes\nON vulcan_changes._vulcan_action = \'close\' AND vulcan_target.' ~ vt ~ ' IS NULL AND ' ~ on | join(' AND ') ~ '\nWHEN MATCHED THEN UPDATE SET vulcan_target.' ~ vt ~ ' = vulcan_changes._vulcan_close_at\nWHEN NOT MATCHED AND vulcan_changes._vulcan_action = \'insert\'\n  THEN INSERT (' ~ insert_cols | join(', ') ~ ') VALUES (' ~ insert_values | join(', ') ~ ')') }}
{% endmacro %}

{#- The table's complete new content, in its column order: every stored row (closed where
    due) and the new versions. -#}
{% macro _vulcan_scd2_rewrite(spec, target, source_sql, detected_at, empty) %}
  {%- set q = dbt_vulcan.vulcan_quote_identifier -%}
  {%- set vf, vt = q(spec.valid_from), q(spec.valid_to) -%}
  {%- set decided = dbt_vulcan._vulcan_scd2_decided(spec, target, source_sql, detected_at, true, empty) -%}
  {{ return(decided ~ '\nSELECT ' ~ dbt_vulcan.vulcan_quote_identifiers(spec.columns) | join(', ') ~ ',\n  IF(_vulcan_is_source, _vulcan_valid_from, ' ~ vf ~ ') AS ' ~ vf ~ ',\n  CASE WHEN _vulcan_is_source THEN CAST(NULL AS ' ~ dbt_vulcan._vulcan_scd2_sql_type(spec) ~ ')\n    WHEN _vulcan_close THEN _vulcan_close_at ELSE ' ~ vt ~ ' END AS ' ~ vt ~ '\nFROM vulcan_decided\nWHERE NOT _vulcan_is_source OR _vulcan_insert') }}
{% endmacro %}
