{#- How the safety analysis reads a query's tokens (analysis.sql's header): parentheses matched, the
    queries and their clauses, projections, sources and the slices they see. -#}

{#- The structure of the tokens: {error, match (parenthesis <-> its partner), depth and owner
    (the innermost query's SELECT index, -1 outside any) per token, selects {index: {i, depth,
    parent, end, frames, chain}}, order (the SELECT indexes), groups {'(' index: {cte, name,
    query}}, setops [{i, word, all, first}]}. -#}
{% macro _vulcan_safety_scan(tokens) %}
  {%- set n = tokens | length -%}
  {%- set match = {} -%}
  {%- set depth = [] -%}
  {%- set owner = [] -%}
  {%- set selects = {} -%}
  {%- set order = [] -%}
  {%- set setops = [] -%}
  {%- set groups = {} -%}
  {#- a frame per open parenthesis: its query so far (sel), the query around it (up), the
      first query of its UNION chain (chain), in a WITH list (with), after a set operator -#}
  {%- set frames = [{'sel': -1, 'up': -1, 'open': -1, 'with': false, 'setop': false, 'chain': -1, 'child': -1}] -%}
  {%- set bodies = ['select', 'with', 'from', 'values', 'table', '('] -%}
  {%- for t in tokens -%}
    {%- set i = loop.index0 -%}
    {%- set f = frames[-1] -%}
    {%- set w = t[1] | lower if t[0] in ('name', 'punct') else '' -%}
    {%- set prev = (tokens[i - 1][1] | lower) if i > 0 else '' -%}
    {%- set next = (tokens[i + 1][1] | lower) if i + 1 < n else '' -%}
    {%- if w == '(' -%}
      {%- set cte = namespace(name=none, written=none) -%}
      {%- if f.with and f.sel < 0 and next in bodies -%}
        {#- a CTE body: `name [(columns)] [AS] (` -#}
        {%- set j = namespace(at=i - 1) -%}
        {%- if j.at >= 0 and tokens[j.at][0] == 'name' and (tokens[j.at][1] | lower) == 'as' -%}{%- set j.at = j.at - 1 -%}{%- endif -%}
        {%- if j.at >= 0 and tokens[j.at][1] == ')' and j.at in match -%}{%- set j.at = match[j.at] - 1 -%}{%- endif -%}
        {%- if j.at >= 0 and tokens[j.at][0] in ('name', 'quoted') -%}
          {%- set cte.written = dbt_vulcan.vulcan_sql_ident(tokens[j.at]) -%}
          {%- set cte.name = cte.written | lower -%}
        {%- endif -%}
      {%- endif -%}
      {%- set up = f.sel if f.sel >= 0 else f.up -%}
      {%- do depth.append(frames | length - 1) -%}
      {%- do owner.append(up) -%}
      {%- do groups.update({i: {'cte': cte.name, 'name': cte.written, 'query': false}}) -%}
      {%- do frames.append({'sel': -1, 'up': up, 'open': i, 'with': false, 'setop': false, 'chain': -1, 'child': -1}) -%}
    {%- elif w == ')' -%}
      {%- if frames | length == 1 -%}{{ return({'error': "unexpected ')'"}) }}{%- endif -%}
      {%- if f.sel >= 0 and selects[f.sel].end is none -%}{%- do selects[f.sel].update({'end': i}) -%}{%- endif -%}
      {%- do frames.pop() -%}
      {%- do match.update({f.open: i, i: f.open}) -%}
      {%- set g = frames[-1] -%}
      {%- if f.chain >= 0 and groups[f.open].cte is none -%}{%- do g.update({'child': f.chain}) -%}{%- endif -%}
      {%- do depth.append(frames | length - 1) -%}
      {%- do owner.append(g.sel if g.sel >= 0 else g.up) -%}
    {%- else -%}
      {%- if w == 'with' and t[0] == 'name' and f.sel < 0 -%}
        {%- do f.update({'with': true}) -%}
        {%- if f.open >= 0 -%}{%- do groups[f.open].update({'query': true}) -%}{%- endif -%}
      {%- elif w == 'select' and t[0] == 'name' -%}
        {%- if f.sel >= 0 and selects[f.sel].end is none -%}{%- do selects[f.sel].update({'end': i}) -%}{%- endif -%}
        {%- set chain = f.chain if f.setop and f.chain >= 0 else i -%}
        {%- do selects.update({i: {'i': i, 'depth': frames | length - 1, 'parent': f.up, 'end': none,
            'frames': frames[1:] | map(attribute='open') | list, 'chain': chain}}) -%}
        {%- do order.append(i) -%}
        {%- do f.update({'sel': i, 'with': false, 'setop': false, 'chain': chain}) -%}
        {%- if f.open >= 0 -%}{%- do groups[f.open].update({'query': true}) -%}{%- endif -%}
      {%- elif w in ('union', 'intersect', 'except', 'minus') and t[0] == 'name' and prev not in ('*', '.') -%}
        {%- set first = f.chain if f.chain >= 0 else f.child -%}
        {%- if f.sel >= 0 and selects[f.sel].end is none -%}{%- do selects[f.sel].update({'end': i}) -%}{%- endif -%}
        {%- do setops.append({'i': i, 'word': 'EXCEPT' if w == 'minus' else w | upper, 'all': next == 'all', 'first': first}) -%}
        {%- do f.update({'sel': -1, 'setop': true, 'chain': first}) -%}
      {%- elif w == ';' and frames | length == 1 -%}
        {%- if f.sel >= 0 and selects[f.sel].end is none -%}{%- do selects[f.sel].update({'end': i}) -%}{%- endif -%}
        {%- do f.update({'sel': -1, 'with': false, 'setop': false, 'chain': -1, 'child': -1}) -%}
      {%- endif -%}
      {%- do depth.append(frames | length - 1) -%}
      {%- do owner.append(f.sel if f.sel >= 0 else f.up) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if frames | length > 1 -%}{{ return({'error': "expecting ')'"}) }}{%- endif -%}
  {%- for si in order if selects[si].end is none -%}{%- do selects[si].update({'end': n}) -%}{%- endfor -%}
  {{ return({'error': none, 'match': match, 'depth': depth, 'owner': owner, 'selects': selects,
             'order': order, 'groups': groups, 'setops': setops}) }}
{% endmacro %}

{#- Per query: its clauses {name: [first, end)} (the keyword at `first`), its projections, the
    commas of its FROM list (c.from_commas) and where it is (c.selects[i].location). -#}
{% macro _vulcan_safety_clauses(c) %}
  {%- set t = c.tokens -%}
  {%- set from_commas = [] -%}
  {%- set not_alias = dbt_vulcan._vulcan_safety_not_alias() -%}
  {%- for si in c.order -%}
    {%- set s = c.selects[si] -%}
    {%- set clauses = {} -%}
    {%- set ns = namespace(name='select', start=si + 1) -%}
    {%- for j in range(si + 1, s.end) if c.depth[j] == s.depth -%}
      {%- set w = t[j][1] | lower if t[j][0] == 'name' else '' -%}
      {%- set next = (t[j + 1][1] | lower) if j + 1 < c.n else '' -%}
      {%- set next_kind = t[j + 1][0] if j + 1 < c.n else '' -%}
      {%- set clause = none -%}
      {%- if w == 'from' and not (j >= si + 3 and (t[j - 1][1] | lower) == 'distinct' and (t[j - 2][1] | lower) in ('is', 'not')) -%}
        {%- set clause = 'from' -%}
      {%- elif w in ('where', 'having', 'qualify') -%}
        {%- set clause = w -%}
      {%- elif w == 'group' and next == 'by' -%}
        {%- set clause = 'group' -%}
      {%- elif w in ('order', 'sort', 'cluster', 'distribute') and next == 'by' -%}
        {%- set clause = 'order' -%}
      {%- elif w == 'window' and next_kind in ('name', 'quoted') and j + 2 < c.n and (t[j + 2][1] | lower) in ('as', '(') -%}
        {%- set clause = 'window' -%}
      {%- elif w in ('limit', 'offset') and (next_kind in ('number', 'var') or next in ('(', 'all')) -%}
        {%- set clause = 'limit' -%}
      {%- elif w == 'fetch' and next in ('first', 'next') -%}
        {%- set clause = 'limit' -%}
      {%- endif -%}
      {%- if clause is not none and clause != ns.name -%}
        {%- if ns.name not in clauses -%}{%- do clauses.update({ns.name: [ns.start, j]}) -%}{%- endif -%}
        {%- set ns.name = clause -%}
        {%- set ns.start = j -%}
      {%- elif ns.name == 'from' and t[j][1] == ',' -%}
        {%- do from_commas.append(j) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- if ns.name not in clauses -%}{%- do clauses.update({ns.name: [ns.start, s.end]}) -%}{%- endif -%}
    {%- do s.update({'clauses': clauses}) -%}
    {#- the projections -#}
    {%- set first = clauses.select[0] -%}
    {%- set last = clauses.select[1] -%}
    {%- set head = (t[first][1] | lower) if first < last and t[first][0] == 'name' else '' -%}
    {%- do s.update({'distinct': head == 'distinct'}) -%}
    {%- if head in ('distinct', 'all') -%}{%- set first = first + 1 -%}{%- endif -%}
    {%- set projections = [] -%}
    {%- for a, b in dbt_vulcan._vulcan_safety_split(c, first, last - 1, s.depth) -%}
      {%- do projections.append(dbt_vulcan._vulcan_safety_projection(c, a, b)) -%}
    {%- endfor -%}
    {%- do s.update({'projections': projections}) -%}
    {#- where it is: the CTEs and subqueries around it, innermost first -#}
    {%- set parts = [] -%}
    {%- for o in s.frames | reverse -%}
      {%- set g = c.groups[o] -%}
      {%- if g.cte is not none -%}
        {%- do parts.append('CTE ' ~ g.name) -%}
      {%- elif g.query -%}
        {%- set k = namespace(at=c.match[o] + 1) -%}
        {%- if k.at < c.n and t[k.at][0] == 'name' and (t[k.at][1] | lower) == 'as' -%}{%- set k.at = k.at + 1 -%}{%- endif -%}
        {%- set alias = k.at < c.n and (t[k.at][0] == 'quoted' or (t[k.at][0] == 'name' and (t[k.at][1] | lower) not in not_alias)) -%}
        {%- do parts.append('subquery ' ~ dbt_vulcan.vulcan_sql_ident(t[k.at]) if alias else 'a subquery') -%}
      {%- endif -%}
    {%- endfor -%}
    {%- set in_cte = [] -%}
    {%- for o in s.frames if c.groups[o].cte is not none -%}{%- do in_cte.append(o) -%}{%- endfor -%}
    {%- do s.update({'location': parts | join(' in ') or 'the top-level query', 'top': s.parent < 0 and not in_cte}) -%}
  {%- endfor -%}
  {%- do c.update({'from_commas': from_commas}) -%}
{% endmacro %}

{#- One projection [a, b]: {a, b, ea, eb (the expression), alias, name (alias or the column's own
    name), star}. -#}
{% macro _vulcan_safety_projection(c, a, b) %}
  {%- set t = c.tokens -%}
  {%- set p = {'a': a, 'b': b, 'ea': a, 'eb': b, 'alias': none, 'name': none, 'star': false} -%}
  {%- set last = t[b] -%}
  {%- if b - a >= 2 and t[b - 1][0] == 'name' and (t[b - 1][1] | lower) == 'as' and last[0] in ('name', 'quoted') -%}
    {%- do p.update({'alias': dbt_vulcan.vulcan_sql_ident(last), 'eb': b - 2}) -%}
  {%- elif b > a and (last[0] == 'quoted' or (last[0] == 'name' and (last[1] | lower) not in c.kw))
      and (t[a][1] | lower) != 'interval' and c.depth[b] == c.depth[a] -%}
    {#- `expr alias`: the token before ends an operand -#}
    {%- set before = t[b - 1] -%}
    {%- set lb = before[1] | lower -%}
    {%- if before[0] in ('number', 'string', 'var', 'quoted') or before[1] in (')', ']')
        or (before[0] == 'name' and (lb not in c.kw or lb in ('null', 'true', 'false', 'end'))) -%}
      {%- do p.update({'alias': dbt_vulcan.vulcan_sql_ident(last), 'eb': b - 1}) -%}
    {%- endif -%}
  {%- endif -%}
  {%- set ea, eb = p.ea, p.eb -%}
  {%- do p.update({'star': t[eb][1] == '*' and (ea == eb or t[eb - 1][1] == '.')}) -%}
  {%- if p.alias is not none -%}
    {%- do p.update({'name': p.alias | lower}) -%}
  {%- else -%}
    {#- a column keeps its name, also through a CAST (`cast(d as date)` is named d) -#}
    {%- set inner = namespace(a=ea, b=eb) -%}
    {%- if t[ea][0] == 'name' and (t[ea][1] | lower) in ('cast', 'try_cast') and ea + 1 < eb and t[ea + 1][1] == '(' and c.match.get(ea + 1) == eb -%}
      {%- for k in range(ea + 2, eb) if c.depth[k] == c.depth[ea] + 1 and t[k][0] == 'name' and (t[k][1] | lower) == 'as' -%}
        {%- set inner.a, inner.b = ea + 2, k - 1 -%}
      {%- endfor -%}
    {%- else -%}
      {%- for k in range(ea + 1, eb) if t[k][1] == '::' and c.depth[k] == c.depth[ea] -%}
        {%- set inner.b = k - 1 -%}
      {%- endfor -%}
    {%- endif -%}
    {%- set parts = dbt_vulcan._vulcan_safety_colref(c, inner.a, inner.b) -%}
    {%- if parts is not none -%}{%- do p.update({'name': parts[-1] | lower}) -%}{%- endif -%}
  {%- endif -%}
  {{ return(p) }}
{% endmacro %}

{#- The time column's sources (expressions of projections named like it, UNION branches by
    position) as normalized text (c.sources), and the columns aligned with it (c.base). -#}
{% macro _vulcan_safety_sources(c) %}
  {%- set ranges = [] -%}
  {%- for si in c.order -%}
    {%- set s = c.selects[si] -%}
    {%- for p in s.projections if p.name == c.tc -%}{%- do ranges.append([p.ea, p.eb]) -%}{%- endfor -%}
    {%- if s.chain != si -%}
      {%- set first = c.selects[s.chain] -%}
      {%- set positions = [] -%}
      {%- for k in range(first.projections | length) if first.projections[k].name == c.tc -%}{%- do positions.append(k) -%}{%- endfor -%}
      {%- if positions and positions[0] < s.projections | length and not s.projections[positions[0]].star -%}
        {%- set p = s.projections[positions[0]] -%}
        {%- do ranges.append([p.ea, p.eb]) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set sources = [] -%}
  {%- set base = [c.tc] -%}
  {#- words of a window spec, which the column reader of text/sql_lexer.sql does not know -#}
  {%- set spec_words = ['partition', 'by', 'rows', 'range', 'asc', 'desc', 'nulls', 'first', 'last',
      'unbounded', 'preceding', 'following', 'current', 'row', 'filter', 'within', 'ignore', 'respect'] -%}
  {%- for a, b in ranges -%}
    {%- do sources.append(dbt_vulcan._vulcan_safety_norm(c, a, b)) -%}
    {%- set names = dbt_vulcan.vulcan_sql_columns(c.tokens[a:b + 1]) | map(attribute='parts') | map('last') | map('lower') | reject('in', spec_words) | unique | list -%}
    {%- if names | length == 1 and names[0] not in base -%}{%- do base.append(names[0]) -%}{%- endif -%}
  {%- endfor -%}
  {%- do c.update({'sources': sources, 'base': base}) -%}
{% endmacro %}

{#- Which queries see one time slice (c.selects[i].sliced): the outermost, and those whose
    input (after the select list) holds a @start_*/@end_* token or reads a CTE that does. -#}
{% macro _vulcan_safety_sliced(c) %}
  {%- set t = c.tokens -%}
  {%- set names = c.groups.values() | map(attribute='cte') | reject('none') | unique | list -%}
  {%- for si in c.order -%}
    {%- set s = c.selects[si] -%}
    {%- set ns = namespace(filtered=false) -%}
    {%- set reads = [] -%}
    {%- for j in range(s.clauses.select[1], s.end) -%}
      {%- set tk = t[j] -%}
      {%- if tk[0] == 'var' and tk[1][1:].strip('{}') in c.filters -%}
        {%- set ns.filtered = true -%}
      {%- elif tk[0] in ('name', 'quoted') and j > 0 -%}
        {%- set name = dbt_vulcan.vulcan_sql_ident(tk) | lower -%}
        {%- set prev = t[j - 1][1] | lower -%}
        {%- set next = (t[j + 1][1] | lower) if j + 1 < c.n else '' -%}
        {%- if name in names and next not in ('.', '(') and (prev in ('from', 'join') or (prev == ',' and (j - 1) in c.from_commas)) -%}
          {%- do reads.append(name) -%}
        {%- endif -%}
      {%- endif -%}
    {%- endfor -%}
    {%- set ctes = [] -%}
    {%- for o in s.frames if c.groups[o].cte is not none -%}{%- do ctes.append(c.groups[o].cte) -%}{%- endfor -%}
    {%- do s.update({'filtered': ns.filtered, 'reads': reads, 'ctes': ctes}) -%}
  {%- endfor -%}
  {#- the CTEs that depend on the batch, to a fixed point (a CTE can read another) -#}
  {%- set sliced = [] -%}
  {%- for round in range(names | length + 1) -%}
    {%- for name in names if name not in sliced -%}
      {%- for si in c.order if name in c.selects[si].ctes and name not in sliced -%}
        {%- set s = c.selects[si] -%}
        {%- if s.filtered or (s.reads | select('in', sliced) | list) -%}{%- do sliced.append(name) -%}{%- endif -%}
      {%- endfor -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- for si in c.order -%}
    {%- set s = c.selects[si] -%}
    {%- do s.update({'sliced': s.top or s.filtered or (s.reads | select('in', sliced) | list | length > 0)}) -%}
  {%- endfor -%}
{% endmacro %}

{#- [[a, b], ...]: the items of [a, b] separated by commas at `depth` (empty items dropped). -#}
{% macro _vulcan_safety_split(c, a, b, depth) %}
  {%- set items = [] -%}
  {%- set ns = namespace(start=a) -%}
  {%- for j in range(a, b + 2) -%}
    {%- if j == b + 1 or (c.tokens[j][1] == ',' and c.depth[j] == depth) -%}
      {%- if j > ns.start -%}{%- do items.append([ns.start, j - 1]) -%}{%- endif -%}
      {%- set ns.start = j + 1 -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(items) }}
{% endmacro %}

{#- [a, b] without parentheses around all of it. -#}
{% macro _vulcan_safety_unparen(c, a, b) %}
  {%- set ns = namespace(a=a, b=b) -%}
  {%- for _ in range((b - a + 1) // 2) -%}
    {%- if ns.a < ns.b and c.tokens[ns.a][1] == '(' and c.match.get(ns.a) == ns.b -%}
      {%- set ns.a, ns.b = ns.a + 1, ns.b - 1 -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return([ns.a, ns.b]) }}
{% endmacro %}

{#- The names of a column reference [a, b] (`t.order_date` -> ['t', 'order_date']), or none. -#}
{% macro _vulcan_safety_colref(c, a, b) %}
  {%- if a > b or (b - a) % 2 != 0 -%}{{ return(none) }}{%- endif -%}
  {%- set parts = [] -%}
  {%- for j in range(a, b + 1) -%}
    {%- set tk = c.tokens[j] -%}
    {%- if (j - a) % 2 == 0 -%}
      {%- if not (tk[0] == 'quoted' or (tk[0] == 'name' and (tk[1] | lower) not in c.kw and (tk[1] | lower) not in c.niladic)) -%}{{ return(none) }}{%- endif -%}
      {%- do parts.append(dbt_vulcan.vulcan_sql_ident(tk)) -%}
    {%- elif tk[1] != '.' -%}
      {{ return(none) }}
    {%- endif -%}
  {%- endfor -%}
  {{ return(parts) }}
{% endmacro %}

{#- [a, b] as comparable text: lower-cased tokens, names unquoted, table qualifiers dropped. -#}
{% macro _vulcan_safety_norm(c, a, b) %}
  {%- set r = dbt_vulcan._vulcan_safety_unparen(c, a, b) -%}
  {%- set out = [] -%}
  {%- for j in range(r[0], r[1] + 1) -%}
    {%- set tk = c.tokens[j] -%}
    {%- set qualifier = tk[0] in ('name', 'quoted') and j + 1 <= r[1] and c.tokens[j + 1][1] == '.' -%}
    {%- set dropped_dot = tk[1] == '.' and j > r[0] and c.tokens[j - 1][0] in ('name', 'quoted') -%}
    {%- if not qualifier and not dropped_dot -%}
      {%- if tk[0] in ('name', 'quoted') -%}
        {%- do out.append(dbt_vulcan.vulcan_sql_ident(tk) | lower) -%}
      {%- elif tk[0] == 'string' -%}
        {%- do out.append("'" ~ tk[1][1:-1] | lower ~ "'") -%}
      {%- else -%}
        {%- do out.append(tk[1] | lower) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out | join(' ')) }}
{% endmacro %}

{#- The text of tokens a..b as written, whitespace collapsed, at most 100 characters. -#}
{% macro _vulcan_safety_text(c, a, b) %}
  {%- set text = c.sql[c.tokens[a][2]:c.tokens[b][3]].split() | join(' ') -%}
  {{ return(text if text | length <= 100 else text[:97] ~ '...') }}
{% endmacro %}

{% macro _vulcan_safety_finding(c, pattern, si, fragment, why) %}
  {%- set where = c.selects[si].location if si >= 0 else 'the top-level query' -%}
  {{ return({'pattern': pattern, 'fragment': fragment, 'location': where, 'message': fragment ~ ' in ' ~ where ~ ': ' ~ why}) }}
{% endmacro %}
