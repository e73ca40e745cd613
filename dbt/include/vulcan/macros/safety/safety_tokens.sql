{#- The static safety analysis of an incremental_by_time_range model's SQL in Jinja, for the
    package on stock dbt-spark / dbt-databricks (no Python of ours runs there): the patterns
    that give different rows on a time slice than on the whole range, read from the tokens of
    text/sql_lexer.sql (strings, backquoted names and comments are never read as SQL).
    The `vulcan` adapter parses the SQL with sqlglot instead (dbt/adapters/vulcan/safety.py):
    same pattern names, same verdicts on tests/support/safety_catalogue.py, same messages (the
    fragment quoted as written, where the adapter quotes sqlglot's rendering of it).

    How the tokens are read: parentheses are matched; every SELECT keyword starts a query that
    ends at its closing parenthesis, at a UNION / INTERSECT / EXCEPT / MINUS of its level or at
    a `;`; a token belongs to the innermost query around it. A query's own tokens (outside its
    parentheses) split it into clauses (select list, FROM, WHERE, GROUP BY, HAVING, WINDOW,
    QUALIFY, ORDER BY, LIMIT) and its select list into projections (`expr [AS] alias`). A
    parenthesis opened in a WITH list before a SELECT is a CTE body.

    A query sees one time slice when it is the outermost query, or the part after its select
    list (FROM, joins, WHERE, nested queries ...) holds a `@start_*` / `@end_*` token or reads
    (FROM / JOIN / a FROM list) a CTE that does, to a fixed point; the adapter's rule.

    An expression is time-aligned (safety.py's _Aligner, on token text): the expression of a
    projection named like the time column (its alias, or a column's own name), compared as
    lower-cased tokens with table qualifiers dropped, or a later branch's projection at the
    same position in a UNION chain; a column named like the time column, or the only column
    such an expression reads; a select alias of an aligned expression; an ordinal in GROUP BY;
    CAST / TRY_CAST / `::` / TO_DATE / DATE / DATE_TRUNC / TRUNC of an aligned expression whose
    grain nests in the model's interval unit.

    Known differences from the adapter (each pinned in tests/unit/macros/safety/test_safety_catalogue.py):
    - an expression is compared as written: `DATE(x)` and `CAST(x AS DATE)` are two
      expressions here, one for sqlglot; backquotes never change one here, they do for sqlglot;
    - a UNION branch in parentheses takes no time column from the first branch's position;
    - aggregates sqlglot does not know (`try_sum`, `mean`, `every`, `some`, `any`, ...) count as
      aggregates here; a bare column named `random` or `now` is a column here, a function
      call for the adapter;
    - GROUP BY with a time-aligned plain key and GROUPING SETS is aligned here (each set gets
      the key), refused by the adapter;
    - the hint of an unknown override name is the config validator's (edit distance), not
      difflib's;
    - SQL the reader cannot read (an unclosed quote or parenthesis, a `$` or `{`) is reported
      as `unparseable` (warning) with the reader's reason; Spark's `FROM t SELECT ...` form is
      not read as a query. -#}

{#- The pattern names, in the order findings are reported (safety.py's OVERRIDABLE); all but
    `no_time_filter` are refused. -#}
{% macro _vulcan_safety_patterns() %}
  {{ return(['limit', 'nondeterministic', 'window', 'distinct', 'group_by', 'having', 'no_time_filter']) }}
{% endmacro %}

{#- Function names (safety.py's lists): random values, the clock, how Spark splits its input;
    the clock's names Spark also reads without parentheses; aggregates (sqlglot's, with the
    window functions it counts among them, which matters to GROUP BY ALL; and Spark's that
    sqlglot does not know). -#}
{% macro _vulcan_safety_functions() %}
  {{ return({
    'random': ['rand', 'randn', 'random', 'uniform', 'randstr', 'uuid', 'shuffle'],
    'clock': ['current_timestamp', 'current_date', 'current_time', 'current_datetime', 'now',
              'curdate', 'localtimestamp', 'localtime'],
    'bare_clock': ['current_timestamp', 'current_date', 'current_time', 'localtimestamp', 'localtime'],
    'layout': ['monotonically_increasing_id', 'spark_partition_id', 'input_file_name',
               'input_file_block_start', 'input_file_block_length'],
    'aggregate': ['count', 'sum', 'avg', 'min', 'max', 'first', 'last', 'any_value',
                  'collect_list', 'collect_set', 'array_agg', 'stddev', 'stddev_pop', 'stddev_samp',
                  'variance', 'var_pop', 'var_samp', 'approx_count_distinct', 'approx_percentile',
                  'percentile', 'percentile_approx', 'percentile_cont', 'percentile_disc', 'median',
                  'mode', 'corr', 'covar_pop', 'covar_samp', 'count_if', 'bool_and', 'bool_or',
                  'max_by', 'min_by', 'kurtosis', 'skewness', 'regr_avgx', 'regr_avgy', 'regr_count',
                  'regr_intercept', 'regr_r2', 'regr_slope', 'regr_sxx', 'regr_sxy', 'regr_syy',
                  'string_agg', 'listagg', 'bit_and', 'bit_or', 'bit_xor', 'array_union_agg',
                  'bitmap_construct_agg', 'bitmap_or_agg', 'approx_top_k', 'group_concat',
                  'mean', 'std', 'every', 'some', 'any', 'try_sum', 'try_avg', 'histogram_numeric',
                  'hll_sketch_agg', 'hll_union_agg', 'count_min_sketch',
                  'first_value', 'last_value', 'nth_value', 'lag', 'lead', 'rank', 'dense_rank',
                  'ntile', 'cume_dist', 'percent_rank'],
  }) }}
{% endmacro %}

{#- DATE_TRUNC / TRUNC units -> the grain they truncate to (safety.py's _UNIT_GRAINS), and the
    interval units each grain nests in (_NESTS_IN). -#}
{% macro _vulcan_safety_grains() %}
  {{ return({
    'units': {'microsecond': 'second', 'millisecond': 'second', 'second': 'second',
              'minute': 'minute', 'hour': 'hour', 'day': 'day', 'dd': 'day', 'week': 'week',
              'month': 'month', 'mon': 'month', 'mm': 'month', 'quarter': 'quarter',
              'year': 'year', 'yyyy': 'year', 'yy': 'year'},
    'nests_in': {'hour': ['hour', 'day', 'week', 'month', 'quarter', 'year'],
                 'day': ['day', 'week', 'month', 'quarter', 'year'],
                 'week': ['week'],
                 'month': ['month', 'quarter', 'year'],
                 'quarter': ['quarter', 'year'],
                 'year': ['year']},
  }) }}
{% endmacro %}

{#- Words after which a name is not a subquery alias. -#}
{% macro _vulcan_safety_not_alias() %}
  {{ return(dbt_vulcan.vulcan_sql_keywords() + ['left', 'right', 'inner', 'outer', 'full', 'cross',
    'natural', 'anti', 'semi', 'lateral', 'using', 'qualify', 'window', 'cluster', 'distribute',
    'sort', 'offset', 'fetch', 'except', 'intersect', 'minus', 'pivot', 'unpivot', 'tablesample']) }}
{% endmacro %}

{#- {names: the override names (lower-cased), error: none or safety.py's config error}. -#}
{% macro _vulcan_safety_overrides(overrides) %}
  {%- set allowed = dbt_vulcan._vulcan_safety_patterns() -%}
  {%- set names = [] -%}
  {%- for given in ([overrides] if overrides is string else (overrides or [])) -%}
    {%- set name = (given | string).strip().lower() -%}
    {%- if name not in names -%}{%- do names.append(name) -%}{%- endif -%}
  {%- endfor -%}
  {%- set errors = [] -%}
  {%- for name in names | sort if name not in allowed -%}
    {%- set close = dbt_vulcan.vulcan_closest(name, allowed) -%}
    {%- do errors.append(dbt_vulcan.vulcan_repr(name) ~ (' (did you mean ' ~ dbt_vulcan.vulcan_repr(close) ~ '?)' if close is not none else '')) -%}
  {%- endfor -%}
  {%- set error = none -%}
  {%- if errors -%}
    {%- set error = 'safety_overrides: ' ~ errors | join(', ') ~ ' not a safety pattern; allowed: ' ~ allowed | join(', ') -%}
  {%- endif -%}
  {{ return({'names': names, 'error': error}) }}
{% endmacro %}

{#- The analysis: {error: none or the override error, findings: [{pattern, message, fragment,
    location, refused}]}, ordered by pattern, overridden patterns dropped. `sql` is the
    compiled model SQL with its time tokens still in it. -#}
{% macro _vulcan_safety_analyze(sql, time_column, overrides=[], interval_unit='day', week_start=0) %}
  {%- set skip = dbt_vulcan._vulcan_safety_overrides(overrides) -%}
  {%- if skip.error -%}{{ return({'error': skip.error, 'findings': []}) }}{%- endif -%}
  {%- set patterns = dbt_vulcan._vulcan_safety_patterns() -%}
  {%- set tokens = dbt_vulcan.vulcan_time_tokens('2000-01-01 00:00:00', '2000-01-02 00:00:00', '2000-01-03 00:00:00') -%}
  {%- set filters = {} -%}
  {%- for name in tokens if name.startswith('start_') or name.startswith('end_') -%}
    {%- do filters.update({name: ''}) -%}
  {%- endfor -%}
  {%- set early = [] -%}
  {%- if dbt_vulcan.vulcan_render_tokens(sql, filters) == sql -%}
    {%- do early.append({'pattern': 'no_time_filter', 'fragment': '', 'location': '', 'message':
        'the SQL uses none of the @start_*/@end_* tokens, so every batch reads all input data (the output filter still keeps only the batch\'s rows); filter the input, e.g. WHERE ' ~ time_column ~ ' BETWEEN @start_ds AND @end_ds'}) -%}
  {%- endif -%}
  {%- set read = dbt_vulcan.vulcan_sql_tokens(sql) -%}
  {%- set scan = dbt_vulcan._vulcan_safety_scan(read.tokens) if read.error is none else {'error': read.error} -%}
  {%- set head = (read.tokens[0][1] | lower) if scan.error is none and read.tokens else 'select' -%}
  {%- if head not in ('select', 'with', '(', 'from', 'values', 'table') -%}
    {%- set text = sql.split() | join(' ') -%}
    {%- set scan = {'error': 'not a query: ' ~ (text if text | length <= 100 else text[:97] ~ '...')} -%}
  {%- endif -%}
  {%- set found = [] -%}
  {%- if scan.error is not none -%}
    {%- do early.append({'pattern': 'unparseable', 'fragment': '', 'location': '', 'message':
        'the SQL could not be parsed for the safety analysis, which was skipped: ' ~ scan.error}) -%}
  {%- else -%}
    {%- set unit = (interval_unit or 'day') | string | lower -%}
    {%- set c = {'sql': sql, 'tokens': read.tokens, 'n': read.tokens | length,
                 'tc': (time_column | string).strip().strip('`').lower(), 'unit': unit,
                 'week_start': week_start or 0, 'filters': filters,
                 'kw': dbt_vulcan.vulcan_sql_keywords(), 'niladic': dbt_vulcan.vulcan_sql_niladic(),
                 'functions': dbt_vulcan._vulcan_safety_functions(), 'grains': dbt_vulcan._vulcan_safety_grains()} -%}
    {%- do c.update(scan) -%}
    {%- do dbt_vulcan._vulcan_safety_clauses(c) -%}
    {%- do dbt_vulcan._vulcan_safety_sources(c) -%}
    {%- do dbt_vulcan._vulcan_safety_sliced(c) -%}
    {%- do found.extend(dbt_vulcan._vulcan_safety_limits(c)) -%}
    {%- do found.extend(dbt_vulcan._vulcan_safety_nondeterministic(c)) -%}
    {%- do found.extend(dbt_vulcan._vulcan_safety_windows(c)) -%}
    {%- do found.extend(dbt_vulcan._vulcan_safety_set_operations(c)) -%}
    {%- for si in c.order if c.selects[si].sliced -%}
      {%- do found.extend(dbt_vulcan._vulcan_safety_select_findings(c, c.selects[si])) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set findings = [] -%}
  {%- for f in early if f.pattern not in skip.names -%}
    {%- do f.update({'refused': false}) -%}
    {%- do findings.append(f) -%}
  {%- endfor -%}
  {%- set seen = [] -%}
  {%- for pattern in patterns if pattern not in skip.names -%}
    {%- for f in found if f.pattern == pattern and [f.pattern, f.message] not in seen -%}
      {%- do seen.append([f.pattern, f.message]) -%}
      {%- do f.update({'refused': true}) -%}
      {%- do findings.append(f) -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return({'error': none, 'findings': findings}) }}
{% endmacro %}

{#- {refusal: none or the error text, warnings: [lines]} for a model's findings, worded as
    safety.py's verdict. -#}
{% macro _vulcan_safety_verdict(model_name, findings) %}
  {%- set warnings = [] -%}
  {%- set lines = [] -%}
  {%- set names = [] -%}
  {%- for f in findings -%}
    {%- if f.refused -%}
      {%- do lines.append('  - [' ~ f.pattern ~ '] ' ~ f.message) -%}
      {%- if dbt_vulcan.vulcan_repr(f.pattern) not in names -%}{%- do names.append(dbt_vulcan.vulcan_repr(f.pattern)) -%}{%- endif -%}
    {%- else -%}
      {%- do warnings.append("Model '" ~ model_name ~ "': safety analysis [" ~ f.pattern ~ ']: ' ~ f.message) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if not lines -%}{{ return({'refusal': none, 'warnings': warnings}) }}{%- endif -%}
  {{ return({'warnings': warnings, 'refusal': "Model '" ~ model_name ~ "': the incremental safety analysis refused the model SQL; these patterns give different results on a time slice than on the full data:\n"
    ~ lines | join('\n')
    ~ "\nFix the SQL, or, if the result is correct on every slice, list the pattern names in the model's safety_overrides config (here: [" ~ names | join(', ') ~ "])."}) }}
{% endmacro %}

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
