{#- The state log as the operations and a model's plan read it: ONE plain query (an operation's
    relations; a run's plan: its relation's rows and its parents'; in the `vulcan` adapter one
    query per invocation, vulcan___vulcan_log_rows), then replayed here.

    Times are epoch microseconds (UTC wall clock, read field by field in SQL, so the session
    time zone plays no part); a range is [start, end) as a two-item list. Replay order is
    (recorded_at, seq), then processed before removed and the bounds as a deterministic
    tie-break: a processed row adds its range, a removed row
    subtracts it. tests/oracle/state.py (replay, compact, RelationState)
    is the test oracle (tests/unit/macros/state/test_log_macros.py). -#}

{#- {relation key: [row, ...] in replay order} for the relations in `keys` and those whose key
    begins with one of `prefixes` (every relation when `keys` is none; then only the rows of
    `row_type` when given). A row: {relation, model_id, start, end, row_type, fingerprint,
    invocation_id, at, seq, details, append_id}; start, end and at (recorded_at) in
    microseconds; append_id: the parquet append (partition) that holds it, '' on Delta and
    Iceberg (state/fold.sql drops a folded log's appends).

    The read is a plain SELECT of the stored columns (no function, no order: a fresh JVM pays
    for each one the first time); the times are parsed and the rows ordered here. A time comes
    as the text the log stores ('YYYY-MM-DD HH:MM:SS[.ffffff]', UTC) or, through dbt's result
    table, already as a naive datetime; a fingerprint of digits only as a number. -#}
{% macro vulcan_log_read(keys=none, row_type=none, prefixes=none, wide=none) %}
  {%- set by_key = {} -%}
  {%- if keys is not none and keys | length == 0 -%}{{ return(by_key) }}{%- endif -%}
  {#- the times: inline (a macro call per value costs more than the parse) -#}
  {%- set parse = modules.datetime.datetime.fromisoformat -%}
  {%- set epoch = modules.datetime.datetime(1970, 1, 1) -%}
  {%- set one = modules.datetime.timedelta(microseconds=1) -%}
  {%- set rank = {'processed': 1, 'removed': 2} -%}
  {%- set sorting = {} -%}
  {%- for r in dbt_vulcan._vulcan_log_rows(keys, row_type, prefixes, wide) -%}
    {%- set key = r[0] | string -%}
    {%- if key not in by_key -%}{%- do by_key.update({key: []}) -%}{%- do sorting.update({key: []}) -%}{%- endif -%}
    {%- set t = [] -%}
    {%- for v in (r[2], r[3], r[7]) -%}
      {%- do t.append((((parse(v) if v is string else v.replace(tzinfo=none)) - epoch) // one) if v else 0) -%}
    {%- endfor -%}
    {%- set row = {
      'relation': key, 'model_id': (r[1] or '') | string, 'start': t[0], 'end': t[1],
      'row_type': r[4] | string,
      'fingerprint': '%016d' | format(r[5] | int) if r[5] is number else (r[5] or '') | string,
      'invocation_id': (r[6] or '') | string, 'at': t[2], 'seq': (r[8] or 0) | int,
      'details': (r[9] or '') | string, 'append_id': (r[10] or '') | string if r | length > 10 else '',
    } -%}
    {%- do sorting[key].append([row.at, row.seq, rank.get(row.row_type, 3), row.start, row.end, by_key[key] | length]) -%}
    {%- do by_key[key].append(row) -%}
  {%- endfor -%}
  {#- replay order: (recorded_at, seq), then processed before removed and the bounds -#}
  {%- set ordered = {} -%}
  {%- for key, rows in by_key.items() -%}
    {%- set out = [] -%}
    {%- for item in sorting[key] | sort -%}{%- do out.append(rows[item[5]]) -%}{%- endfor -%}
    {%- do ordered.update({key: out}) -%}
  {%- endfor -%}
  {{ return(ordered) }}
{% endmacro %}

{#- The read's SQL: the rows of `keys` and of the keys in the range of each of `prefixes`
    (every row when `keys` is none; then only the rows of `row_type` when given). -#}
{% macro _vulcan_log_sql(keys=none, row_type=none, prefixes=none) %}
  {%- set quoted = [] -%}
  {%- for key in (keys or []) -%}{%- do quoted.append(dbt_vulcan.vulcan_sql_string(key)) -%}{%- endfor -%}
  {%- set sql -%}
    select relation, model_id, interval_start, interval_end, row_type, fingerprint, invocation_id,
      recorded_at, seq, details{{ ', append_id' if dbt_vulcan.vulcan_state_file_format() == 'parquet' }}
    from {{ dbt_vulcan.vulcan_state_relation() }}
    {%- if keys is not none %}
    where relation in ({{ quoted | join(', ') }})
    {%- for prefix in (prefixes or []) | unique %}
      or (relation > {{ dbt_vulcan.vulcan_sql_string(prefix) }} and relation < {{ dbt_vulcan.vulcan_sql_string(prefix ~ '~') }})
    {%- endfor %}
    {%- elif row_type is not none %}
    where row_type = {{ dbt_vulcan.vulcan_sql_string(row_type) }}
    {%- endif %}
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- The read's rows, as the result's tuples. `wide`: {keys, prefixes} of the whole invocation
    (planning/invocation_reads.sql), or none. -#}
{% macro _vulcan_log_rows(keys, row_type, prefixes, wide=none) %}
  {{ return(adapter.dispatch('_vulcan_log_rows', 'dbt_vulcan')(keys, row_type, prefixes, wide)) }}
{% endmacro %}

{% macro default___vulcan_log_rows(keys, row_type, prefixes, wide=none) %}
  {% do dbt_vulcan.vulcan_refresh_state() %}
  {{ return(run_query(dbt_vulcan._vulcan_log_sql(keys, row_type, prefixes)).rows) }}
{% endmacro %}

{#- The `vulcan` adapter reads the log once per invocation (state_cache.py): the first read
    also covers what `wide` names (every selected model, its parents and, with the virtual
    layer, its physical tables); later reads come from those rows and this invocation's
    appends, a relation they do not cover from a read of it. -#}
{% macro vulcan___vulcan_log_rows(keys, row_type, prefixes, wide=none) %}
  {%- if keys is none -%}{{ return(dbt_vulcan.default___vulcan_log_rows(keys, row_type, prefixes)) }}{%- endif -%}
  {%- set state = dbt_vulcan.vulcan_state_relation() | string -%}
  {%- set refresh = 'refresh table ' ~ state if dbt_vulcan.vulcan_state_file_format() == 'iceberg' else none -%}
  {{ return(adapter.vulcan_state_rows(state, invocation_id, keys, prefixes or [], dbt_vulcan._vulcan_log_sql, refresh, wide)) }}
{% endmacro %}

{#- The JSON `details` of a row as a mapping ({} when empty, malformed or not an object). -#}
{% macro vulcan_log_details(row) %}
  {%- set loaded = fromjson(row.details, {}) if row.details else {} -%}
  {{ return(loaded if loaded is mapping else {}) }}
{% endmacro %}

{#- What the log says about one relation (rows in replay order), as RelationState:
    {processed (the replay), pending_restatements (restated ranges not processed since, nor
     superseded by a rebuild's reset), pending_full (a full-history restatement with no reset
     after it), latest (the latest processed row, or none), pending_writes (the `writing` rows
     that no later `processed` or `abandoned` row of the same range settles, nor a rebuild's
     reset: a write that may have committed unrecorded, engine/write_check.sql),
     pending_stages (the `staging` rows no later `processed` or `abandoned` row follows, nor a
     reset: a stage a stopped run may have left, engine/stage.sql)}. -#}
{% macro vulcan_log_summary(rows) %}
  {%- set st = {'processed': [], 'restated': [], 'pending_full': false, 'latest': none} -%}
  {%- set writes = [] -%}
  {%- set stages = [] -%}
  {%- for row in rows if row.row_type in ('writing', 'staging', 'processed', 'abandoned') or 'reset' in row.details -%}
    {%- if row.row_type == 'writing' -%}
      {%- do writes.append(row) -%}
    {%- elif row.row_type == 'staging' -%}
      {%- do stages.append(row) -%}
    {%- elif row.row_type == 'removed' -%}
      {#- a rebuild's reset: every earlier write and stage is moot -#}
      {%- if dbt_vulcan.vulcan_log_details(row).get('reset') -%}{%- do writes.clear() -%}{%- do stages.clear() -%}{%- endif -%}
    {%- else -%}
      {%- set open = writes | selectattr('start', 'equalto', row.start) | selectattr('end', 'equalto', row.end) | list -%}
      {%- for w in open -%}{%- do writes.remove(w) -%}{%- endfor -%}
      {%- do stages.clear() -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for row in rows -%}
    {#- only a row that may carry a flag is parsed (most rows: a processed batch's details) -#}
    {%- set flags = dbt_vulcan.vulcan_log_details(row) if 'restate' in row.details or 'reset' in row.details else {} -%}
    {%- if row.row_type == 'processed' -%}
      {#- a processed range is no longer pending a restatement; a later removal that is not a
          restatement (a re-processed batch's marker, a rebuild's reset) does not restate it -#}
      {%- do st.update({'processed': dbt_vulcan.vulcan_ranges_add(st.processed, row.start, row.end), 'latest': row,
                        'restated': dbt_vulcan.vulcan_ranges_cut(st.restated, row.start, row.end)}) -%}
    {%- elif row.row_type == 'removed' -%}
      {%- do st.update({'processed': dbt_vulcan.vulcan_ranges_cut(st.processed, row.start, row.end)}) -%}
    {%- endif -%}
    {%- if row.row_type != 'processed' and flags.get('restate') -%}
      {%- do st.update({'restated': dbt_vulcan.vulcan_ranges_add(st.restated, row.start, row.end),
                        'pending_full': st.pending_full or (true if flags.get('full') else false)}) -%}
    {%- endif -%}
    {#- a rebuild recomputes the whole history: no earlier restatement is pending after it -#}
    {%- if flags.get('reset') -%}{%- do st.update({'pending_full': false, 'restated': []}) -%}{%- endif -%}
  {%- endfor -%}
  {{ return({
    'processed': st.processed,
    'pending_restatements': st.restated,
    'pending_full': st.pending_full,
    'latest': st.latest,
    'pending_writes': writes,
    'pending_stages': stages,
  }) }}
{% endmacro %}

{#- The compacted log of every relation in `by_key` (state.compact): per relation (sorted),
    one processed row per replayed range (sorted), carrying the fingerprint, invocation id,
    recorded_at, seq, model id and details of the latest processed row overlapping it; and the
    latest processed row when it is an empty range (an untracked kind's last run).
    A relation with something pending (restated ranges, or a full-history restatement, not
    recomputed yet; a write not settled yet) keeps its rows as they are, in replay order:
    compacted, what is pending would be lost (the fold does not fold such a log either,
    state/fold.sql). Its key is appended to `kept` when a list is given. The pointer rows of the
    virtual layer (environments/) are kept as they are. -#}
{% macro vulcan_log_compact(by_key, kept=none) %}
  {%- set out = [] -%}
  {%- for key in by_key | sort -%}
    {%- set rows = by_key[key] -%}
    {%- set summary = dbt_vulcan.vulcan_log_summary(rows) -%}
    {%- if summary.pending_restatements or summary.pending_full or summary.pending_writes or summary.pending_stages -%}
      {%- do out.extend(rows) -%}
      {%- if kept is not none -%}{%- do kept.append(key) -%}{%- endif -%}
    {%- else -%}
      {#- the virtual layer's pointer rows are the environments' history: kept as they are -#}
      {%- do out.extend(rows | selectattr('row_type', 'equalto', 'pointer') | list) -%}
      {%- set ranges = summary.processed -%}
      {%- set latest = {} -%}
      {#- an empty range (an untracked kind's run) adds nothing to a range it falls in -#}
      {%- for row in rows if row.row_type == 'processed' and row.start < row.end -%}
        {%- for r in ranges -%}
          {%- if row.start < r[1] and row.end > r[0] -%}{%- do latest.update({loop.index0: row}) -%}{%- endif -%}
        {%- endfor -%}
      {%- endfor -%}
      {%- for r in ranges -%}
        {%- set row = latest[loop.index0] -%}
        {%- do out.append({
          'relation': key, 'model_id': row.model_id, 'start': r[0], 'end': r[1], 'row_type': 'processed',
          'fingerprint': row.fingerprint, 'invocation_id': row.invocation_id, 'at': row.at,
          'seq': row.seq, 'details': row.details,
        }) -%}
      {%- endfor -%}
      {#- the latest processed row carries no range (an untracked kind's last run, or a range
          removed since): kept as an empty range, which adds no interval but keeps what a plan
          takes from it (its fingerprint, details, model id) -#}
      {%- set last = summary.latest -%}
      {%- set carried = [] -%}
      {#- (an empty latest row is never a range's contributor: kept even inside a range) -#}
      {%- for r in ranges if last is not none and last.start < last.end and last.start < r[1] and last.end > r[0] -%}{%- do carried.append(r) -%}{%- endfor -%}
      {%- if last is not none and not carried -%}
        {%- set kept_row = {} -%}
        {%- do kept_row.update(last) -%}
        {%- do kept_row.update({'end': last.start}) -%}
        {%- do out.append(kept_row) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- The VALUES list of an INSERT of `rows` into the state table (tests/oracle/state.py's values_sql). -#}
{% macro vulcan_log_values_sql(rows) %}
  {%- set s = dbt_vulcan.vulcan_sql_string -%}
  {%- set fmt = dbt_vulcan.vulcan_format_ts -%}
  {%- set tuples = [] -%}
  {%- for row in rows -%}
    {%- do tuples.append('(' ~ [
      s(row.relation), s(row.model_id), s(fmt(dbt_vulcan.vulcan_log_datetime(row.start))),
      s(fmt(dbt_vulcan.vulcan_log_datetime(row.end))), s(row.row_type), s(row.fingerprint),
      s(row.invocation_id), s(fmt(dbt_vulcan.vulcan_log_datetime(row.at))), row.seq | int | string,
      s(row.details),
    ] | join(', ') ~ ')') -%}
  {%- endfor -%}
  {{ return(tuples | join(',\n')) }}
{% endmacro %}

{# ------------------------------------------------------------------- range arithmetic #}

{#- `ranges` (sorted, disjoint, not touching) with [start, end) added (merge_ranges). -#}
{% macro vulcan_ranges_add(ranges, start, end) %}
  {%- if start >= end -%}{{ return(ranges) }}{%- endif -%}
  {%- set new = {'start': start, 'end': end} -%}
  {%- set before, after = [], [] -%}
  {%- for r in ranges -%}
    {%- if r[1] < start -%}
      {%- do before.append(r) -%}
    {%- elif r[0] > end -%}
      {%- do after.append(r) -%}
    {%- else -%}
      {%- do new.update({'start': [new.start, r[0]] | min, 'end': [new.end, r[1]] | max}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(before + [[new.start, new.end]] + after) }}
{% endmacro %}

{#- `ranges` (sorted, disjoint) without [start, end). -#}
{% macro vulcan_ranges_cut(ranges, start, end) %}
  {%- if start >= end -%}{{ return(ranges) }}{%- endif -%}
  {%- set out = [] -%}
  {%- for r in ranges -%}
    {%- if r[1] <= start or r[0] >= end -%}
      {%- do out.append(r) -%}
    {%- else -%}
      {%- if r[0] < start -%}{%- do out.append([r[0], start]) -%}{%- endif -%}
      {%- if r[1] > end -%}{%- do out.append([end, r[1]]) -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- The parts of merged `a` not covered by merged `b` (state.subtract). -#}
{% macro vulcan_ranges_subtract(a, b) %}
  {%- set st = {'left': a} -%}
  {%- for r in b -%}
    {%- do st.update({'left': dbt_vulcan.vulcan_ranges_cut(st.left, r[0], r[1])}) -%}
  {%- endfor -%}
  {{ return(st.left) }}
{% endmacro %}

{#- Sorted, overlapping or touching ranges merged; empty ones dropped (merge_ranges). -#}
{% macro vulcan_ranges_merge(ranges) %}
  {%- set out = [] -%}
  {%- for r in ranges | sort if r[0] < r[1] -%}
    {%- if out and r[0] <= out[-1][1] -%}
      {%- if r[1] > out[-1][1] -%}{%- do out.append([out.pop()[0], r[1]]) -%}{%- endif -%}
    {%- else -%}
      {%- do out.append([r[0], r[1]]) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- a naive UTC datetime from epoch microseconds -#}
{% macro vulcan_log_datetime(micros) %}
  {{ return(modules.datetime.datetime(1970, 1, 1) + modules.datetime.timedelta(microseconds=micros | int)) }}
{% endmacro %}

{#- 'YYYY-MM-DD - YYYY-MM-DD' (inclusive days) for a day-or-coarser unit on midnight bounds,
    else the two timestamps (timeutil.format_range); start and end in microseconds. -#}
{% macro vulcan_range_text(start, end, date_grain) %}
  {%- set low, high = dbt_vulcan.vulcan_log_datetime(start), dbt_vulcan.vulcan_log_datetime(end) -%}
  {%- set midnight = modules.datetime.time() -%}
  {%- if date_grain and low.time() == midnight and high.time() == midnight -%}
    {%- set last_day = [(high - modules.datetime.timedelta(days=1)).date(), low.date()] | max -%}
    {{ return(low.date().isoformat() ~ ' - ' ~ last_day.isoformat()) }}
  {%- endif -%}
  {{ return(dbt_vulcan.vulcan_format_ts(low) ~ ' - ' ~ dbt_vulcan.vulcan_format_ts(high)) }}
{% endmacro %}

{#- ranges merged and shown ('none' when empty), as operations._ranges -#}
{% macro vulcan_ranges_text(ranges, date_grain) %}
  {%- set shown = [] -%}
  {%- for r in dbt_vulcan.vulcan_ranges_merge(ranges) -%}
    {%- do shown.append(dbt_vulcan.vulcan_range_text(r[0], r[1], date_grain)) -%}
  {%- endfor -%}
  {{ return(shown | join(', ') if shown else 'none') }}
{% endmacro %}
