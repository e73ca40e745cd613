{#- `ts_on_timestamp`: `@start_ts` / `@end_ts` bounding a TIMESTAMP time column. A `_ts` token
    is a zoneless string ('2024-01-01 00:00:00'), and Spark reads it as a time of the session's
    time zone where it meets a TIMESTAMP: outside UTC every batch reads a range shifted by the
    zone's offset, and the rows within that offset of its bounds are never written (the output
    filter keeps the batch's UTC interval). The tokens keep their meaning (SQLMesh's); the
    analysis warns, naming the model, the column, the tokens and the fix (`@start_dt` /
    `@end_dt`, the batch's UTC instants), once per definition when the time column's type is
    TIMESTAMP, and each run that writes repeats the warning once when the session's zone is
    not UTC (safety.sql).

    Which comparisons bound the column: the token itself compared (`=`, `==`, `<>`, `!=`, `<=>`,
    `<`, `<=`, `>`, `>=`) with a column named like the time column (qualified or not,
    backquoted or not), either side, or `column [NOT] BETWEEN` with the token as a bound. The
    `vulcan` adapter reads them with sqlglot (safety.py's ts_bounds); here the tokens of
    text/sql_lexer.sql are read with sqlglot's precedence of the neighbouring operators (a
    token in `@start_ts - interval 1 hour`, a column in `ts + x`, is no bound). The warning's
    words are these macros', in both modes; tests/unit/macros/safety/test_ts_bounds.py checks
    the two readings on one catalogue. -#}

{#- The pattern's warning: `zone` the session's time zone of a run that repeats it. -#}
{% macro _vulcan_safety_ts_warning(model_name, column, tokens, zone=none) %}
  {%- set text = "Model '" ~ model_name ~ "': safety analysis [ts_on_timestamp]: "
      ~ tokens | join(' and ') ~ (' bound' if tokens | length > 1 else ' bounds')
      ~ ' the TIMESTAMP time column ' ~ column
      ~ ", but a _ts token is a zoneless string that Spark reads as a time of the session's time zone: outside UTC every batch reads a range shifted by the zone's offset, and the rows within that offset of its bounds are never written; use @start_dt / @end_dt (the batch's UTC instants) to bound a TIMESTAMP column" -%}
  {%- if zone is not none -%}
    {%- set text = text ~ ". This run's session time zone is " ~ dbt_vulcan.vulcan_repr(zone | string) ~ ', not UTC: its batches are shifted' -%}
  {%- endif -%}
  {{ return(text) }}
{% endmacro %}

{#- Is the pattern looked for? The time column's type is TIMESTAMP (time_data_type, the type the
    log recorded, or the one this run read from the query) and `ts_on_timestamp` is not in
    safety_overrides. -#}
{% macro _vulcan_safety_ts_wanted(cfg, time_type) %}
  {%- set overrides = cfg.safety_overrides or [] -%}
  {%- set names = ([overrides] if overrides is string else overrides) | map('string') | map('trim') | map('lower') | list -%}
  {{ return((time_type | string | lower) == 'timestamp' and 'ts_on_timestamp' not in names) }}
{% endmacro %}

{#- The analysis' warning for `tokens` (none: nothing to say); returns them. -#}
{% macro _vulcan_safety_ts_warn(cfg, tokens) %}
  {%- if tokens -%}
    {% do exceptions.warn(dbt_vulcan._vulcan_safety_ts_warning(cfg.model, cfg.time_column, tokens)) %}
  {%- endif -%}
  {{ return(tokens or []) }}
{% endmacro %}

{#- The run's repeat: one statement asks the session's zone (no Spark job); a zone that is not
    UTC repeats the warning, once per model run. -#}
{% macro _vulcan_safety_ts_in_session(cfg, tokens) %}
  {%- set zone = dbt_vulcan.vulcan_session_zone() -%}
  {%- if zone is not none and not dbt_vulcan.vulcan_is_utc_zone(zone) -%}
    {% do exceptions.warn(dbt_vulcan._vulcan_safety_ts_warning(cfg.model, cfg.time_column, tokens, zone)) %}
  {%- endif -%}
{% endmacro %}

{#- The `_ts` tokens that bound the time column (see the header): ['@start_ts', '@end_ts'], or
    the one of them found, or none. SQL the reader cannot read (an unclosed quote, unbalanced
    parentheses) has none. -#}
{% macro _vulcan_safety_ts_bounds(sql, time_column) %}
  {%- if dbt_vulcan.vulcan_render_tokens(sql, {'start_ts': '', 'end_ts': ''}) == sql -%}{{ return([]) }}{%- endif -%}
  {%- set read = dbt_vulcan.vulcan_sql_tokens(sql) -%}
  {%- if read.error is not none -%}{{ return([]) }}{%- endif -%}
  {%- set t = read.tokens -%}
  {%- set n = t | length -%}
  {%- set ns = namespace(depth=0, ok=true) -%}
  {%- for tk in t if tk[0] == 'punct' and tk[1] in ('(', ')') -%}
    {%- set ns.depth = ns.depth + (1 if tk[1] == '(' else -1) -%}
    {%- if ns.depth < 0 -%}{%- set ns.ok = false -%}{%- endif -%}
  {%- endfor -%}
  {%- if not ns.ok or ns.depth != 0 -%}{{ return([]) }}{%- endif -%}
  {%- set c = {'t': t, 'n': n, 'tc': (time_column | string).strip().strip('`').lower(),
               'kw': dbt_vulcan.vulcan_sql_keywords(), 'niladic': dbt_vulcan.vulcan_sql_niladic()} -%}
  {%- set names = {'@start_ts': '@start_ts', '@{start_ts}': '@start_ts', '@end_ts': '@end_ts', '@{end_ts}': '@end_ts'} -%}
  {%- set level = dbt_vulcan._vulcan_safety_ts_level -%}
  {%- set found = [] -%}
  {#- column OP token, token OP column -#}
  {%- for i in range(n) if t[i][0] == 'var' and t[i][1] in names -%}
    {%- set op = level(t, i - 1, true) if i > 0 and t[i - 1][0] == 'op' else 0 -%}
    {%- if op in (1, 2) -%}
      {%- set a = dbt_vulcan._vulcan_safety_ts_column_before(c, i - 2) -%}
      {%- if a is not none and level(t, a - 1, false) < op and level(t, i + 1, true) <= op -%}
        {%- do found.append(names[t[i][1]]) -%}
      {%- endif -%}
    {%- endif -%}
    {%- set op = level(t, i + 1, true) if i + 1 < n and t[i + 1][0] == 'op' else 0 -%}
    {%- if op in (1, 2) -%}
      {%- set b = dbt_vulcan._vulcan_safety_ts_column_after(c, i + 2) -%}
      {%- if b is not none and level(t, i - 1, false) < op and level(t, b + 1, true) <= op -%}
        {%- do found.append(names[t[i][1]]) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {#- column [NOT] BETWEEN low AND high -#}
  {%- for k in range(1, n) if t[k][0] == 'name' and (t[k][1] | lower) == 'between' -%}
    {%- set e = k - 2 if t[k - 1][0] == 'name' and (t[k - 1][1] | lower) == 'not' else k - 1 -%}
    {%- set a = dbt_vulcan._vulcan_safety_ts_column_before(c, e) -%}
    {%- if a is not none and level(t, a - 1, false) < 3 -%}
      {%- set scan = namespace(depth=0, at=-1) -%}
      {%- for j in range(k + 1, n) if scan.at < 0 and scan.depth >= 0 -%}
        {%- set w = t[j][1] | lower if t[j][0] in ('name', 'punct') else '' -%}
        {%- if w in ('(', 'case') -%}{%- set scan.depth = scan.depth + 1 -%}
        {%- elif w in (')', 'end') -%}{%- set scan.depth = scan.depth - 1 -%}
        {%- elif w == 'and' and scan.depth == 0 -%}{%- set scan.at = j -%}
        {%- endif -%}
      {%- endfor -%}
      {%- if scan.at == k + 2 and t[k + 1][0] == 'var' and t[k + 1][1] in names -%}
        {%- do found.append(names[t[k + 1][1]]) -%}
      {%- endif -%}
      {%- set h = scan.at + 1 -%}
      {%- if scan.at > 0 and h < n and t[h][0] == 'var' and t[h][1] in names and level(t, h + 1, true) < 4 -%}
        {%- do found.append(names[t[h][1]]) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set tokens = [] -%}
  {%- for token in ['@start_ts', '@end_ts'] if token in found -%}{%- do tokens.append(token) -%}{%- endfor -%}
  {{ return(tokens) }}
{% endmacro %}

{#- How tightly token `i` binds the operand beside it, in sqlglot's order: 0 not at all (a
    keyword, a comma, a parenthesis that opens before or closes after, no token), 1 `=` `==`
    `<>` `!=` `<=>`, 2 `<` `<=` `>` `>=`, 3 [NOT] BETWEEN / IN / LIKE / ILIKE / RLIKE / REGEXP
    (after the operand), 5 arithmetic, bitwise and `||`, 9 what makes the operand part of a
    larger one (`.`, `::`, a call's or a subscript's parenthesis after it, a type name or any
    other word before it). `after`: the token follows the operand. -#}
{% macro _vulcan_safety_ts_level(t, i, after) %}
  {%- if i < 0 or i >= t | length -%}{{ return(0) }}{%- endif -%}
  {%- set kind, x = t[i][0], t[i][1] | lower -%}
  {%- if kind == 'op' -%}
    {%- if x in ('=', '==', '<>', '!=', '<=>') -%}{{ return(1) }}{%- endif -%}
    {%- if x in ('<', '<=', '>', '>=') -%}{{ return(2) }}{%- endif -%}
    {{ return(9 if x in ('::', '->') else 5) }}
  {%- elif kind == 'punct' -%}
    {{ return(9 if x == '.' or (after and x in ('(', '[')) else 0) }}
  {%- elif kind == 'name' and after -%}
    {%- set ranges = ['between', 'in', 'like', 'ilike', 'rlike', 'regexp'] -%}
    {%- if x in ranges or (x == 'not' and i + 1 < t | length and (t[i + 1][1] | lower) in ranges) -%}{{ return(3) }}{%- endif -%}
    {{ return(5 if x == 'div' else 0) }}
  {%- elif kind == 'name' -%}
    {{ return(0 if x in ('select', 'where', 'having', 'qualify', 'on', 'and', 'or', 'not', 'when', 'then', 'else', 'case', 'by', 'distinct', 'all') else 9) }}
  {%- endif -%}
  {{ return(0 if after else 9) }}
{% endmacro %}

{#- A column named like the time column ending at token `e` (`ts`, `t.ts`, `` `ts` ``): the index
    of its first token, or none. -#}
{% macro _vulcan_safety_ts_column_before(c, e) %}
  {%- if not dbt_vulcan._vulcan_safety_ts_name(c, e) or (dbt_vulcan.vulcan_sql_ident(c.t[e]) | lower) != c.tc -%}{{ return(none) }}{%- endif -%}
  {%- set ns = namespace(a=e) -%}
  {%- for _ in range(e) if ns.a >= 2 and c.t[ns.a - 1][1] == '.' and dbt_vulcan._vulcan_safety_ts_name(c, ns.a - 2) -%}
    {%- set ns.a = ns.a - 2 -%}
  {%- endfor -%}
  {{ return(ns.a) }}
{% endmacro %}

{#- A column named like the time column starting at token `a`: the index of its last token, or
    none. -#}
{% macro _vulcan_safety_ts_column_after(c, a) %}
  {%- if not dbt_vulcan._vulcan_safety_ts_name(c, a) -%}{{ return(none) }}{%- endif -%}
  {%- set ns = namespace(b=a) -%}
  {%- for _ in range(c.n) if ns.b + 2 < c.n and c.t[ns.b + 1][1] == '.' and dbt_vulcan._vulcan_safety_ts_name(c, ns.b + 2) -%}
    {%- set ns.b = ns.b + 2 -%}
  {%- endfor -%}
  {{ return(ns.b if (dbt_vulcan.vulcan_sql_ident(c.t[ns.b]) | lower) == c.tc else none) }}
{% endmacro %}

{#- Is token `i` a name a column can have (backquoted, or a word that is no keyword)? -#}
{% macro _vulcan_safety_ts_name(c, i) %}
  {%- if i < 0 or i >= c.n -%}{{ return(false) }}{%- endif -%}
  {%- set tk = c.t[i] -%}
  {{ return(tk[0] == 'quoted' or (tk[0] == 'name' and (tk[1] | lower) not in c.kw and (tk[1] | lower) not in c.niladic)) }}
{% endmacro %}
