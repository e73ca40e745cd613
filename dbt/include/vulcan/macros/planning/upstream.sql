{#- Upstream-aware planning: a model's intervals wait for the dbt-vulcan models it reads.

    The parents of a model are the nearest dbt-vulcan models with intervals (a kind with
    `start`) on its dbt graph: the walk goes up `depends_on` through views, tables, ephemeral
    models and dbt-vulcan models without intervals, and stops at seeds, snapshots and sources.
    Their rows come in the run's one read of the log (their keys beside the model's own), so
    waiting costs no statement. The oracle: tests/oracle/planning.py (Upstream, hold_back). -#}

{#- The parent nodes of `node` (graph nodes), by name order. -#}
{% macro vulcan_upstream_models(node) %}
  {{ return(dbt_vulcan.vulcan_nearest_models(node, true).values() | sort(attribute='name') | list) }}
{% endmacro %}

{#- The parents' keys in the state log, read with the model's own. -#}
{% macro vulcan_upstream_keys(parents) %}
  {%- set keys = [] -%}
  {%- for parent in parents -%}{%- do keys.append(dbt_vulcan.vulcan_node_state_key(parent)) -%}{%- endfor -%}
  {{ return(keys) }}
{% endmacro %}

{#- What the run waits for: [{name, unready: [[low, high] epoch microseconds]}] per parent that
    `cfg` waits for (none with wait_for_upstream: false; not those in ignore_upstream, each of
    which must name a parent). `by_key`: the log's rows by key, the parents' among them. A
    parent's settings are the ones its log recorded for its definition, else validated here
    (a parent whose config is invalid fails the run, naming it). -#}
{% macro vulcan_upstream_waits(cfg, parents, by_key) %}
  {%- if cfg.start is none or not cfg.get('wait_for_upstream', true) -%}{{ return([]) }}{%- endif -%}
  {#- a model reading no such parent (and naming none to ignore) waits for nothing: the rest,
      its own macro, is not compiled on its runs -#}
  {%- if not parents and not cfg.get('ignore_upstream') -%}{{ return([]) }}{%- endif -%}
  {{ return(dbt_vulcan._vulcan_upstream_parent_waits(cfg, parents, by_key)) }}
{% endmacro %}

{% macro _vulcan_upstream_parent_waits(cfg, parents, by_key) %}
  {%- set ignored = cfg.get('ignore_upstream') or [] -%}
  {%- set names = parents | map(attribute='name') | map('lower') | list -%}
  {%- for name in ignored if name not in names -%}
    {{ exceptions.raise_compiler_error("Invalid config for model '" ~ cfg.model ~ "': ignore_upstream: " ~ dbt_vulcan.vulcan_repr(name) ~ ' is not a dbt-vulcan model with intervals that it reads; ' ~ ('it reads: ' ~ names | join(', ') if names else 'it reads none')) }}
  {%- endfor -%}
  {%- set waits = [] -%}
  {%- for parent in parents if parent.name | lower not in ignored -%}
    {%- set kind = dbt_vulcan.vulcan_node_config(parent).get('materialized') -%}
    {%- set rows = by_key.get(dbt_vulcan.vulcan_node_state_key(parent), []) -%}
    {%- set pcfg = dbt_vulcan.vulcan_recorded_settings(rows, dbt_vulcan.vulcan_settings_key(parent, kind)).cfg -%}
    {%- if pcfg is none -%}
      {%- set checked = dbt_vulcan.vulcan_cfg_run(parent, kind) -%}
      {%- if checked.message -%}
        {{ exceptions.raise_compiler_error("Model '" ~ cfg.model ~ "' waits for its upstream model '" ~ parent.name ~ "', whose config is invalid (set ignore_upstream: ['" ~ parent.name ~ "'] or wait_for_upstream: false to plan without it):\n" ~ checked.message) }}
      {%- endif -%}
      {%- set pcfg = checked.settings -%}
    {%- endif -%}
    {%- do waits.append({'name': parent.name, 'unready': dbt_vulcan._vulcan_upstream_unready(pcfg, rows)}) -%}
  {%- endfor -%}
  {{ return(waits) }}
{% endmacro %}

{#- What a parent has not made ready, merged epoch-microsecond ranges: its span (floored start
    to end, or forever) minus its processed ranges (none while a full-history restatement it
    rebuilds for is pending), each gap widened to its own unit's boundaries. -#}
{% macro _vulcan_upstream_unready(pcfg, rows) %}
  {%- set summary = dbt_vulcan.vulcan_log_summary(rows) -%}
  {%- set geometry = dbt_vulcan.vulcan_unit_geometry(pcfg.interval_unit, pcfg.week_start) -%}
  {%- set us = dbt_vulcan._vulcan_plan_micros -%}
  {%- set dt = dbt_vulcan._vulcan_plan_datetime -%}
  {%- set forever = us(modules.datetime.datetime(9999, 12, 31)) -%}
  {%- set low = us(dbt_vulcan.vulcan_unit_floor(dbt_vulcan.vulcan_parse_ts(pcfg.start), geometry)) -%}
  {%- set high = us(dbt_vulcan.vulcan_parse_ts(pcfg.end)) if pcfg.end else forever -%}
  {%- set processed = [] if summary.pending_full and not pcfg.forward_only else summary.processed -%}
  {%- set widened = [] -%}
  {%- for g in dbt_vulcan.vulcan_ranges_subtract([[low, high]], processed) -%}
    {%- set g_high = g[1] if g[1] >= forever else us(dbt_vulcan.vulcan_unit_ceil(dt(g[1]), geometry)) -%}
    {%- do widened.append([us(dbt_vulcan.vulcan_unit_floor(dt(g[0]), geometry)), g_high]) -%}
  {%- endfor -%}
  {{ return(dbt_vulcan.vulcan_ranges_merge(widened)) }}
{% endmacro %}

{#- The run's log line for what it holds back (`held`: the plan's, with one interval or more; a
    run that holds nothing back compiles none of this). -#}
{% macro vulcan_held_back_message(cfg, held) %}
  {%- set date_grain = cfg.interval_unit in ('day', 'week', 'month', 'quarter', 'year') -%}
  {{ return("Model '" ~ cfg.model ~ "': " ~ held.intervals ~ ' interval' ~ ('s' if held.intervals != 1 else '') ~ ' held back (' ~ dbt_vulcan.vulcan_ranges_text(held.ranges, date_grain) ~ '), ' ~ dbt_vulcan.vulcan_held_back_reason(held) ~ '; a later run picks them up') }}
{% endmacro %}

{#- "waiting for `p` (not processed from <time>), the signal `ready_when` (not ready from
    <time>)" -#}
{% macro vulcan_held_back_reason(held) %}
  {%- set why = [] -%}
  {%- for w in held.waiting -%}
    {%- set since = dbt_vulcan.vulcan_format_ts(dbt_vulcan._vulcan_plan_datetime(w.since)) -%}
    {%- if w.name.startswith('signal ') -%}
      {%- do why.append('the signal `' ~ w.name[7:] ~ '` (not ready from ' ~ since ~ ')') -%}
    {%- else -%}
      {%- do why.append('`' ~ w.name ~ '` (not processed from ' ~ since ~ ')') -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return('waiting for ' ~ why | join(', ')) }}
{% endmacro %}

{#- What the model's signals hold back of the range [start, end) (epoch microseconds): one
    {name, unready: [[low, high], ...]} per signal set (`ready_when`, `ready_intervals`), each
    asked in one statement; none asked when neither is set. `relation`: the model's table
    (`{{ this }}` in their SQL). -#}
{% macro vulcan_signal_waits(cfg, relation, start, end, execution_time) %}
  {%- set waits = [] -%}
  {%- if cfg.get('ready_when') -%}
    {%- set ready_until = dbt_vulcan.vulcan_signal_ready_until(cfg, relation, start, end, execution_time) -%}
    {%- if ready_until is not none -%}
      {%- do waits.append({'name': 'signal ready_when', 'unready': [[ready_until, dbt_vulcan._vulcan_plan_micros(modules.datetime.datetime(9999, 12, 31))]]}) -%}
    {%- endif -%}
  {%- endif -%}
  {%- if cfg.get('ready_intervals') -%}
    {%- set geometry = dbt_vulcan.vulcan_unit_geometry(cfg.interval_unit, cfg.week_start) -%}
    {%- do waits.append({'name': 'signal ready_intervals', 'unready': dbt_vulcan.vulcan_signal_unready(cfg, relation, start, end, execution_time, geometry)}) -%}
  {%- endif -%}
  {{ return(waits) }}
{% endmacro %}

{#- A signal's answer (`ready_when`) for the due range [start, end) (epoch microseconds): none
    when everything is ready, else the time from which intervals wait (epoch microseconds).
    One statement: the SQL with the range's time tokens, as a scalar, written as JSON in UTC
    (a true, a false or NULL, a date or a timestamp, whatever the session's time zone). -#}
{% macro vulcan_signal_ready_until(cfg, relation, start, end, execution_time) %}
  {%- set sql = dbt_vulcan.vulcan_signal_query(cfg, 'ready_when', relation, start, end, execution_time) -%}
  {%- set answer = run_query(dbt_vulcan.vulcan_signal_sql('(' ~ sql ~ ')')).columns[0].values()[0] -%}
  {%- set value = (fromjson(answer, {}) if answer else {}).get('v') -%}
  {%- if value is sameas true -%}{{ return(none) }}{%- endif -%}
  {%- if value is none or value is sameas false -%}{{ return(start) }}{%- endif -%}
  {%- set ready = dbt_vulcan._vulcan_signal_time(value) -%}
  {%- if ready is not none -%}
    {{ return(none if ready >= end else [ready, start] | max) }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error("Model '" ~ cfg.model ~ "': ready_when answered " ~ (answer | string) ~ '; a signal answers true, false, NULL, a date or a timestamp') }}
{% endmacro %}

{#- A per-interval signal's answer (`ready_intervals`) over the due range [start, end) (epoch
    microseconds): what waits, [[low, high], ...] from `start` on, i.e. everything but the
    intervals (of `geometry`, the model's unit) holding one of the times its query returns.
    One statement: the query's times (one column: dates, timestamps or such text) as one JSON
    list in UTC. -#}
{% macro vulcan_signal_unready(cfg, relation, start, end, execution_time, geometry) %}
  {%- set sql = dbt_vulcan.vulcan_signal_query(cfg, 'ready_intervals', relation, start, end, execution_time) -%}
  {%- set answer = run_query(dbt_vulcan.vulcan_signal_sql('collect_set(ready_at)', 'from (' ~ sql ~ ') as ready_intervals(ready_at)')).columns[0].values()[0] -%}
  {%- set floors = [] -%}
  {%- for value in (fromjson(answer, {}) if answer else {}).get('v') or [] -%}
    {%- set at = dbt_vulcan._vulcan_signal_time(value) -%}
    {%- if at is none -%}
      {{ exceptions.raise_compiler_error("Model '" ~ cfg.model ~ "': ready_intervals returned " ~ dbt_vulcan.vulcan_repr(value) ~ '; its query returns one column of dates or timestamps (the intervals holding one are ready)') }}
    {%- endif -%}
    {%- do floors.append(dbt_vulcan._vulcan_plan_micros(dbt_vulcan.vulcan_unit_floor(dbt_vulcan._vulcan_plan_datetime(at), geometry))) -%}
  {%- endfor -%}
  {%- set unready = [] -%}
  {%- set cursor = {'at': start} -%}
  {%- for low in floors | unique | sort -%}
    {%- set high = dbt_vulcan._vulcan_plan_micros(dbt_vulcan._vulcan_unit_add(dbt_vulcan._vulcan_plan_datetime(low), geometry)) -%}
    {%- if low > cursor.at -%}{%- do unready.append([cursor.at, low]) -%}{%- endif -%}
    {%- do cursor.update({'at': [cursor.at, high] | max}) -%}
  {%- endfor -%}
  {%- do unready.append([cursor.at, dbt_vulcan._vulcan_plan_micros(modules.datetime.datetime(9999, 12, 31))]) -%}
  {{ return(unready) }}
{% endmacro %}

{#- A signal's SQL for the due range [start, end) (epoch microseconds): the config's text
    (`key`) with what dbt resolves at run time written in it (`{{ source('s', 't') }}`,
    `{{ ref('m') }}`, `{{ this }}`: vulcan_signal_resolve), then the range's time tokens. -#}
{% macro vulcan_signal_query(cfg, key, relation, start, end, execution_time) %}
  {%- set fmt = dbt_vulcan.vulcan_format_ts -%}
  {%- set dt = dbt_vulcan._vulcan_plan_datetime -%}
  {%- set tokens = dbt_vulcan.vulcan_time_tokens(fmt(dt(start)), fmt(dt(end)), fmt(execution_time)) -%}
  {{ return(dbt_vulcan.vulcan_render_tokens(dbt_vulcan.vulcan_signal_resolve(cfg, key, relation), tokens)) }}
{% endmacro %}

{#- A signal's text with `{{ source('s', 't') }}`, `{{ ref('m') }}` / `{{ ref('p', 'm') }}` and
    `{{ this }}` replaced by the relations dbt resolves for them at run time (dbt keeps a
    config's string as written; a ref() must name a model the model depends on, as anywhere in
    dbt: `-- depends_on: {{ ref('m') }}` in its SQL). Other Jinja is an error naming the key. -#}
{% macro vulcan_signal_resolve(cfg, key, relation) %}
  {%- set quoted = "(?:'[^']*'|\"[^\"]*\")" -%}
  {%- set call = "\\{\\{-?\\s*(?:(this)|(source|ref)\\s*\\(\\s*(" ~ quoted ~ "(?:\\s*,\\s*" ~ quoted ~ ")*)\\s*\\))\\s*-?\\}\\}" -%}
  {%- set out = [] -%}
  {%- for piece in modules.re.split('(\\{\\{[\\s\\S]*?\\}\\}|\\{%[\\s\\S]*?%\\}|\\{#[\\s\\S]*?#\\})', cfg[key]) -%}
    {%- set found = modules.re.fullmatch(call, piece) if loop.index is even else none -%}
    {%- if loop.index is odd -%}
      {%- do out.append(piece) -%}
    {%- elif found is none -%}
      {{ exceptions.raise_compiler_error("Invalid config for model '" ~ cfg.model ~ "': " ~ key ~ ': ' ~ dbt_vulcan.vulcan_repr(piece) ~ " is not rendered at run time; a signal's SQL may name {{ source('s', 't') }}, {{ ref('m') }} or {{ this }} (other Jinja: build the string in config())") }}
    {%- elif found.group(1) -%}
      {%- do out.append(relation | string) -%}
    {%- else -%}
      {%- set args = [] -%}
      {%- for single, double in modules.re.findall("'([^']*)'|\"([^\"]*)\"", found.group(3)) -%}
        {%- do args.append(single ~ double) -%}
      {%- endfor -%}
      {%- do out.append((source(*args) if found.group(2) == 'source' else ref(*args)) | string) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out | join('')) }}
{% endmacro %}

{#- A signal's time (JSON text in UTC: 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]') in epoch microseconds,
    none for anything else. -#}
{% macro _vulcan_signal_time(value) %}
  {%- if value is string and modules.re.fullmatch('\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?)?', value) -%}
    {{ return(dbt_vulcan._vulcan_plan_micros(dbt_vulcan.vulcan_parse_ts(value))) }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- The statement that asks a signal: a value over its SQL (an expression or a scalar query
    by default) written as JSON {"v": ...}, with times in UTC. -#}
{% macro vulcan_signal_sql(value_sql, from_sql='') %}
  {{ return("select to_json(named_struct('v', " ~ value_sql ~ "), map('timeZone', 'UTC', 'timestampFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS', 'dateFormat', 'yyyy-MM-dd')) as answer" ~ (' ' ~ from_sql if from_sql else '')) }}
{% endmacro %}
