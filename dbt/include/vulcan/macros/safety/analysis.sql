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
    `no_time_filter` and `ts_on_timestamp` (a warning read apart: ts_bounds.sql) are refused. -#}
{% macro _vulcan_safety_patterns() %}
  {{ return(['limit', 'nondeterministic', 'window', 'distinct', 'group_by', 'having', 'no_time_filter', 'ts_on_timestamp']) }}
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
