{#- Whether an expression is time-aligned, and the checks of each pattern over a query's clauses
    (analysis.sql's header says what aligned means). -#}

{#- Is [a, b] time-aligned (see the header)? `s`: the query it is in (select aliases; GROUP BY
    ordinals when `ordinals`), or none. -#}
{% macro _vulcan_safety_aligned(c, a, b, s, ordinals=false) %}
  {%- set r = dbt_vulcan._vulcan_safety_unparen(c, a, b) -%}
  {%- set a, b = r[0], r[1] -%}
  {%- set t = c.tokens -%}
  {%- if a > b -%}{{ return(false) }}{%- endif -%}
  {%- if ordinals and s is not none and a == b and t[a][0] == 'number' -%}
    {%- if t[a][1].isdigit() and 0 < t[a][1] | int <= s.projections | length -%}
      {%- set p = s.projections[t[a][1] | int - 1] -%}
      {{ return(not p.star and dbt_vulcan._vulcan_safety_aligned(c, p.ea, p.eb, none)) }}
    {%- endif -%}
    {{ return(false) }}
  {%- endif -%}
  {%- if dbt_vulcan._vulcan_safety_norm(c, a, b) in c.sources -%}{{ return(true) }}{%- endif -%}
  {%- set parts = dbt_vulcan._vulcan_safety_colref(c, a, b) -%}
  {%- if parts is not none -%}
    {%- if parts[-1] | lower in c.base -%}{{ return(true) }}{%- endif -%}
    {%- if s is not none and parts | length == 1 -%}
      {%- for p in s.projections if p.alias is not none and p.alias | lower == parts[0] | lower -%}
        {{ return(dbt_vulcan._vulcan_safety_aligned(c, p.ea, p.eb, none)) }}
      {%- endfor -%}
    {%- endif -%}
    {{ return(false) }}
  {%- endif -%}
  {%- set g = dbt_vulcan._vulcan_safety_grain(c, a, b) -%}
  {%- if g is none or not dbt_vulcan._vulcan_safety_nests(c, g.grain) -%}{{ return(false) }}{%- endif -%}
  {{ return(dbt_vulcan._vulcan_safety_aligned(c, g.a, g.b, s)) }}
{% endmacro %}

{#- {grain, a, b}: the grain a time function [a, b] truncates its argument [a, b] to ('keeps':
    none), or none when [a, b] is no such function. -#}
{% macro _vulcan_safety_grain(c, a, b) %}
  {%- set t = c.tokens -%}
  {%- set units = c.grains.units -%}
  {#- expr::type, expr a column, a parenthesis or a call -#}
  {%- set cast = namespace(at=-1) -%}
  {%- for k in range(a + 1, b) if t[k][1] == '::' and c.depth[k] == c.depth[a] -%}{%- set cast.at = k -%}{%- endfor -%}
  {%- if cast.at > 0 -%}
    {%- set e = cast.at - 1 -%}
    {%- set primary = dbt_vulcan._vulcan_safety_colref(c, a, e) is not none
        or (t[a][1] == '(' and c.match.get(a) == e)
        or (t[a][0] == 'name' and a + 1 < e and t[a + 1][1] == '(' and c.match.get(a + 1) == e) -%}
    {%- if not primary -%}{{ return(none) }}{%- endif -%}
    {{ return({'grain': 'day' if (t[cast.at + 1][1] | lower) == 'date' else 'keeps', 'a': a, 'b': e}) }}
  {%- endif -%}
  {%- if not (t[a][0] == 'name' and a + 1 < b and t[a + 1][1] == '(' and c.match.get(a + 1) == b) -%}{{ return(none) }}{%- endif -%}
  {%- set fn = t[a][1] | lower -%}
  {%- if a > 0 and t[a - 1][1] == '.' -%}{{ return(none) }}{%- endif -%}
  {%- if fn in ('cast', 'try_cast') -%}
    {%- set ns = namespace(at=-1) -%}
    {%- for k in range(a + 2, b) if c.depth[k] == c.depth[a] + 1 and t[k][0] == 'name' and (t[k][1] | lower) == 'as' -%}{%- set ns.at = k -%}{%- endfor -%}
    {%- if ns.at < 0 or ns.at == a + 2 -%}{{ return(none) }}{%- endif -%}
    {{ return({'grain': 'day' if (t[ns.at + 1][1] | lower) == 'date' else 'keeps', 'a': a + 2, 'b': ns.at - 1}) }}
  {%- endif -%}
  {%- set args = dbt_vulcan._vulcan_safety_split(c, a + 2, b - 1, c.depth[a] + 1) -%}
  {%- if fn == 'to_date' and args or fn == 'date' and args | length == 1 -%}
    {{ return({'grain': 'day', 'a': args[0][0], 'b': args[0][1]}) }}
  {%- endif -%}
  {%- if args | length == 2 and fn in ('date_trunc', 'trunc') -%}
    {%- set unit_arg, value = (args[0], args[1]) if fn == 'date_trunc' else (args[1], args[0]) -%}
    {%- if unit_arg[0] == unit_arg[1] and t[unit_arg[0]][0] == 'string' -%}
      {%- set grain = units.get(t[unit_arg[0]][1][1:-1] | lower) -%}
      {%- if grain is not none -%}{{ return({'grain': grain, 'a': value[0], 'b': value[1]}) }}{%- endif -%}
    {%- endif -%}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- Does every period of `grain` lie in one interval of the model? -#}
{% macro _vulcan_safety_nests(c, grain) %}
  {%- if grain in ('keeps', 'second', 'minute') -%}{{ return(true) }}{%- endif -%}
  {%- if grain == 'week' and (c.week_start | int) != 0 -%}{{ return(false) }}{%- endif -%}
  {{ return(c.unit in c.grains.nests_in.get(grain, [])) }}
{% endmacro %}

{#- LIMIT / OFFSET / FETCH anywhere. -#}
{% macro _vulcan_safety_limits(c) %}
  {%- set t = c.tokens -%}
  {%- set found = [] -%}
  {%- set stops = ['limit', 'offset', 'fetch', 'union', 'intersect', 'except', 'minus', ';'] -%}
  {%- for j in range(c.n) if t[j][0] == 'name' and (t[j][1] | lower) in ('limit', 'offset', 'fetch') -%}
    {%- set w = t[j][1] | lower -%}
    {%- set next = t[j + 1] if j + 1 < c.n else ['', '', 0, 0] -%}
    {%- set prev = (t[j - 1][1] | lower) if j > 0 else '' -%}
    {%- if prev not in ('.', 'as') and ((w != 'fetch' and (next[0] in ('number', 'var') or next[1] == '(' or (w == 'limit' and (next[1] | lower) == 'all')))
        or (w == 'fetch' and (next[1] | lower) in ('first', 'next'))) -%}
      {%- set ns = namespace(last=j, done=false) -%}
      {%- for k in range(j + 1, c.n) if not ns.done -%}
        {%- if c.depth[k] < c.depth[j] or (c.depth[k] == c.depth[j] and (t[k][1] | lower) in stops) -%}
          {%- set ns.done = true -%}
        {%- else -%}
          {%- set ns.last = k -%}
        {%- endif -%}
      {%- endfor -%}
      {%- do found.append(dbt_vulcan._vulcan_safety_finding(c, 'limit', c.owner[j], dbt_vulcan._vulcan_safety_text(c, j, ns.last),
          'a limit keeps a different set of rows on a time slice than on the full data')) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(found) }}
{% endmacro %}

{#- Random values, the clock, the input's layout, TABLESAMPLE. -#}
{% macro _vulcan_safety_nondeterministic(c) %}
  {%- set t = c.tokens -%}
  {%- set fns = c.functions -%}
  {%- set found = [] -%}
  {%- for j in range(c.n) if t[j][0] == 'name' -%}
    {%- set w = t[j][1] | lower -%}
    {%- set call = j + 1 < c.n and t[j + 1][1] == '(' -%}
    {%- set prev = (t[j - 1][1] | lower) if j > 0 else '' -%}
    {%- set why = none -%}
    {%- if prev in ('.', 'as', '::') -%}
    {%- elif w == 'tablesample' and call -%}
      {%- set why = 'TABLESAMPLE picks different rows on every run' -%}
    {%- elif call and w in fns.random -%}
      {%- set why = 'returns different values on every run, so a rerun interval changes' -%}
    {%- elif (call and w in fns.clock) or (not call and w in fns.bare_clock and prev != '.') -%}
      {%- set why = 'depends on when the batch runs, so backfilled and rerun intervals differ; use the @execution_dt / @execution_ds tokens (pinned for the whole run)' -%}
    {%- elif call and w in fns.layout -%}
      {%- set why = 'depends on how Spark splits the input, which differs per time slice' -%}
    {%- endif -%}
    {%- if why is not none -%}
      {%- set last = c.match[j + 1] if call else j -%}
      {%- do found.append(dbt_vulcan._vulcan_safety_finding(c, 'nondeterministic', c.owner[j], dbt_vulcan._vulcan_safety_text(c, j, last), why)) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(found) }}
{% endmacro %}

{#- The windows (`over (...)` / `over name`) of the queries that see one slice whose PARTITION BY
    has no time-aligned key; c.window_spans: the tokens of every window (function and spec). -#}
{% macro _vulcan_safety_windows(c) %}
  {%- set t = c.tokens -%}
  {%- set found = [] -%}
  {%- set spans = [] -%}
  {%- for j in range(c.n) if t[j][0] == 'name' and (t[j][1] | lower) == 'over' -%}
    {%- set next = t[j + 1] if j + 1 < c.n else ['', '', 0, 0] -%}
    {%- set prev = (t[j - 1][1] | lower) if j > 0 else '' -%}
    {%- if (prev == ')' or prev == 'nulls') and (next[1] == '(' or next[0] in ('name', 'quoted')) -%}
      {#- the window function: back over IGNORE/RESPECT NULLS, FILTER (...), WITHIN GROUP (...) -#}
      {%- set ns = namespace(k=j - 1, start=j - 1) -%}
      {%- if prev == 'nulls' and ns.k >= 2 -%}{%- set ns.k = ns.k - 2 -%}{%- endif -%}
      {%- for _ in range(2) -%}
        {%- if t[ns.k][1] == ')' and ns.k in c.match and c.match[ns.k] >= 1 -%}
          {%- set before = t[c.match[ns.k] - 1][1] | lower -%}
          {%- if before == 'filter' -%}{%- set ns.k = c.match[ns.k] - 2 -%}
          {%- elif before == 'group' and c.match[ns.k] >= 2 and (t[c.match[ns.k] - 2][1] | lower) == 'within' -%}{%- set ns.k = c.match[ns.k] - 3 -%}
          {%- endif -%}
        {%- endif -%}
      {%- endfor -%}
      {%- set ns.start = c.match[ns.k] - 1 if t[ns.k][1] == ')' and ns.k in c.match and c.match[ns.k] >= 1 else ns.k -%}
      {%- for _ in range(3) -%}
        {%- if ns.start >= 2 and t[ns.start - 1][1] == '.' -%}{%- set ns.start = ns.start - 2 -%}{%- endif -%}
      {%- endfor -%}
      {%- set end = c.match[j + 1] if next[1] == '(' else j + 1 -%}
      {%- do spans.append([ns.start, end]) -%}
      {%- set si = c.owner[j] -%}
      {%- if si < 0 or c.selects[si].sliced -%}
        {%- set keys = [] -%}
        {%- if next[1] == '(' -%}
          {%- do keys.extend(dbt_vulcan._vulcan_safety_partition(c, j + 1)) -%}
        {%- elif si >= 0 and 'window' in c.selects[si].clauses -%}
          {#- a named window: its definition in the query's WINDOW clause -#}
          {%- set wanted = dbt_vulcan.vulcan_sql_ident(next) | lower -%}
          {%- set clause = c.selects[si].clauses.window -%}
          {%- for k in range(clause[0] + 1, clause[1] - 1) if c.depth[k] == c.selects[si].depth and not keys -%}
            {%- if t[k][0] in ('name', 'quoted') and (dbt_vulcan.vulcan_sql_ident(t[k]) | lower) == wanted -%}
              {%- set o = k + 2 if (t[k + 1][1] | lower) == 'as' else k + 1 -%}
              {%- if o < c.n and t[o][1] == '(' -%}{%- do keys.extend(dbt_vulcan._vulcan_safety_partition(c, o)) -%}{%- endif -%}
            {%- endif -%}
          {%- endfor -%}
        {%- endif -%}
        {%- set s = c.selects[si] if si >= 0 else none -%}
        {%- set aligned = namespace(any=false) -%}
        {%- for a, b in keys if not aligned.any -%}
          {%- if dbt_vulcan._vulcan_safety_aligned(c, a, b, s) -%}{%- set aligned.any = true -%}{%- endif -%}
        {%- endfor -%}
        {%- if not aligned.any -%}
          {%- set why = "the window's PARTITION BY does not include the time column " ~ c.tc ~ ', so on one time slice it sees other rows than on the full data'
              if keys else 'a window without PARTITION BY ' ~ c.tc ~ ' spans every time slice' -%}
          {%- do found.append(dbt_vulcan._vulcan_safety_finding(c, 'window', si, dbt_vulcan._vulcan_safety_text(c, ns.start, end), why)) -%}
        {%- endif -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do c.update({'window_spans': spans}) -%}
  {{ return(found) }}
{% endmacro %}

{#- The PARTITION BY (or DISTRIBUTE BY) keys of the window spec opened at `o`. -#}
{% macro _vulcan_safety_partition(c, o) %}
  {%- set t = c.tokens -%}
  {%- set close = c.match[o] -%}
  {%- set d = c.depth[o] + 1 -%}
  {%- set ns = namespace(start=-1, end=close) -%}
  {%- for j in range(o + 1, close) if c.depth[j] == d and t[j][0] == 'name' -%}
    {%- set w = t[j][1] | lower -%}
    {%- if ns.start < 0 and w in ('partition', 'distribute') and (t[j + 1][1] | lower) == 'by' -%}
      {%- set ns.start = j + 2 -%}
    {%- elif ns.start >= 0 and ns.end == close and j >= ns.start and w in ('order', 'sort', 'rows', 'range') -%}
      {%- set ns.end = j -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if ns.start < 0 -%}{{ return([]) }}{%- endif -%}
  {{ return(dbt_vulcan._vulcan_safety_split(c, ns.start, ns.end - 1, d)) }}
{% endmacro %}

{#- UNION / INTERSECT / EXCEPT without ALL whose first branch does not project the time column
    (every one, as the adapter: not only those that see one slice). -#}
{% macro _vulcan_safety_set_operations(c) %}
  {%- set found = [] -%}
  {%- for op in c.setops if not op.all -%}
    {%- if op.first < 0 or not dbt_vulcan._vulcan_safety_projects_time(c, c.selects[op.first]) -%}
      {%- do found.append(dbt_vulcan._vulcan_safety_finding(c, 'distinct', op.first, op.word ~ ' (without ALL)',
          op.word ~ ' removes duplicates across time slices because its columns do not include the time column ' ~ c.tc ~ ' (use ' ~ op.word ~ ' ALL)')) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(found) }}
{% endmacro %}

{% macro _vulcan_safety_projects_time(c, s) %}
  {%- for p in s.projections -%}
    {%- if p.star or dbt_vulcan._vulcan_safety_aligned(c, p.ea, p.eb, s) -%}{{ return(true) }}{%- endif -%}
  {%- endfor -%}
  {{ return(false) }}
{% endmacro %}

{#- The aggregate calls of [a, b] owned by query `si` (not in a nested query, not a window). -#}
{% macro _vulcan_safety_aggregates(c, si, a, b) %}
  {%- set t = c.tokens -%}
  {%- set found = [] -%}
  {%- for j in range(a, b + 1) if t[j][0] == 'name' and c.owner[j] == si and j + 1 <= b and t[j + 1][1] == '(' -%}
    {%- if (t[j][1] | lower) in c.functions.aggregate and not (j > 0 and t[j - 1][1] == '.') -%}
      {%- set windowed = [] -%}
      {%- for first, last in c.window_spans if first <= j <= last -%}{%- do windowed.append(1) -%}{%- endfor -%}
      {%- if not windowed -%}{%- do found.append([j, c.match[j + 1]]) -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(found) }}
{% endmacro %}

{#- Is the GROUP BY of query `s` time-aligned? -#}
{% macro _vulcan_safety_grouping_aligned(c, s) %}
  {%- set t = c.tokens -%}
  {%- set clause = s.clauses.group -%}
  {%- set a, end = clause[0] + 2, clause[1] -%}
  {%- if a + 1 == end and t[a][0] == 'name' and (t[a][1] | lower) == 'all' -%}
    {#- GROUP BY ALL: the projections without an aggregate -#}
    {%- for p in s.projections if not p.star -%}
      {%- set aggregate = [] -%}
      {%- for j in range(p.ea, p.eb) if t[j][0] == 'name' and (t[j][1] | lower) in c.functions.aggregate and t[j + 1][1] == '(' -%}{%- do aggregate.append(j) -%}{%- endfor -%}
      {%- if not aggregate and dbt_vulcan._vulcan_safety_aligned(c, p.ea, p.eb, s) -%}{{ return(true) }}{%- endif -%}
    {%- endfor -%}
    {{ return(false) }}
  {%- endif -%}
  {%- for j in range(a, end - 1) if c.depth[j] == s.depth and (t[j][1] | lower) == 'with' and (t[j + 1][1] | lower) in ('rollup', 'cube') -%}
    {{ return(false) }}
  {%- endfor -%}
  {%- set sets = [] -%}
  {%- set ns = namespace(plain=false) -%}
  {%- for k0, k1 in dbt_vulcan._vulcan_safety_split(c, a, end - 1, s.depth) -%}
    {%- set w = t[k0][1] | lower if t[k0][0] == 'name' else '' -%}
    {%- if w in ('rollup', 'cube') and k0 + 1 <= k1 and t[k0 + 1][1] == '(' -%}
    {%- elif w == 'grouping' and k0 + 2 <= k1 and (t[k0 + 1][1] | lower) == 'sets' and t[k0 + 2][1] == '(' -%}
      {%- for m0, m1 in dbt_vulcan._vulcan_safety_split(c, k0 + 3, c.match[k0 + 2] - 1, s.depth + 1) -%}
        {%- if t[m0][1] == '(' and c.match.get(m0) == m1 -%}
          {%- do sets.append(dbt_vulcan._vulcan_safety_split(c, m0 + 1, m1 - 1, s.depth + 2)) -%}
        {%- else -%}
          {%- do sets.append([[m0, m1]]) -%}
        {%- endif -%}
      {%- endfor -%}
      {%- if c.match[k0 + 2] == k0 + 3 -%}{%- do sets.append([]) -%}{%- endif -%}
    {%- elif not ns.plain and dbt_vulcan._vulcan_safety_aligned(c, k0, k1, s, true) -%}
      {%- set ns.plain = true -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if ns.plain -%}{{ return(true) }}{%- endif -%}
  {%- if not sets -%}{{ return(false) }}{%- endif -%}
  {%- for members in sets -%}
    {%- set hit = namespace(any=false) -%}
    {%- for m0, m1 in members if not hit.any -%}
      {%- if dbt_vulcan._vulcan_safety_aligned(c, m0, m1, s, true) -%}{%- set hit.any = true -%}{%- endif -%}
    {%- endfor -%}
    {%- if not hit.any -%}{{ return(false) }}{%- endif -%}
  {%- endfor -%}
  {{ return(true) }}
{% endmacro %}

{#- SELECT DISTINCT, GROUP BY / a lone aggregate, HAVING of a query that sees one slice. -#}
{% macro _vulcan_safety_select_findings(c, s) %}
  {%- set found = [] -%}
  {%- set tc = c.tc -%}
  {%- if s.distinct and not dbt_vulcan._vulcan_safety_projects_time(c, s) -%}
    {%- set listed = [] -%}
    {%- for p in s.projections -%}{%- do listed.append(dbt_vulcan._vulcan_safety_text(c, p.a, p.b)) -%}{%- endfor -%}
    {%- set fragment = ('SELECT DISTINCT ' ~ listed | join(', ')).split() | join(' ') -%}
    {%- do found.append(dbt_vulcan._vulcan_safety_finding(c, 'distinct', s.i, fragment if fragment | length <= 100 else fragment[:97] ~ '...',
        'SELECT DISTINCT without the time column ' ~ tc ~ ' removes duplicates across time slices')) -%}
  {%- endif -%}
  {%- set aligned = 'group' in s.clauses and dbt_vulcan._vulcan_safety_grouping_aligned(c, s) -%}
  {%- if 'group' in s.clauses and not aligned -%}
    {%- set clause = s.clauses.group -%}
    {%- do found.append(dbt_vulcan._vulcan_safety_finding(c, 'group_by', s.i, dbt_vulcan._vulcan_safety_text(c, clause[0], clause[1] - 1),
        'the grouping does not include the time column ' ~ tc ~ ', so each group aggregates only the rows of one time slice instead of all of them')) -%}
  {%- elif 'group' not in s.clauses -%}
    {%- set aggregates = dbt_vulcan._vulcan_safety_aggregates(c, s.i, s.clauses.select[0], s.clauses.select[1] - 1) -%}
    {%- if aggregates -%}
      {%- do found.append(dbt_vulcan._vulcan_safety_finding(c, 'group_by', s.i, dbt_vulcan._vulcan_safety_text(c, aggregates[0][0], aggregates[0][1]),
          'an aggregate without GROUP BY aggregates only the rows of one time slice (group by the time column ' ~ tc ~ ')')) -%}
    {%- endif -%}
  {%- endif -%}
  {%- if 'having' in s.clauses and not aligned -%}
    {%- set clause = s.clauses.having -%}
    {%- do found.append(dbt_vulcan._vulcan_safety_finding(c, 'having', s.i, dbt_vulcan._vulcan_safety_text(c, clause[0], clause[1] - 1),
        'HAVING filters groups that are not time-aligned, so it keeps different groups on a time slice than on the full data')) -%}
  {%- endif -%}
  {{ return(found) }}
{% endmacro %}
