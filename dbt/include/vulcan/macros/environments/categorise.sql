{#- Whether a change of a model's SQL is non-breaking, as SQLMesh categorises a change: the new
    query only adds columns to its outermost SELECT, so every column the old query gave keeps
    its values and the rows stay the same rows. The models below it keep their versions (and
    their tables); the changed model itself gets a new version, built in full.

    The comparison is of tokens (the same in both modes: it reads the SQL as written, Jinja
    included, which no SQL parser can): comments and whitespace do not count, words are
    compared in lower case, a Jinja expression or statement is one token. A query the rule
    cannot read (no SELECT outside parentheses, a set operation at the top, SELECT DISTINCT, a
    Jinja statement inside the select list) is never non-breaking. A column added may not be a
    star, a Jinja expression, a generator (explode and its kind add rows) or, unless the query
    groups its rows, an aggregate without OVER (it would fold the rows into one). sqlglot's
    reading of the same queries is the test oracle (tests/oracle/environments.py,
    is_non_breaking). -#}

{#- {body, projections, addable} of a query as written: a hash of the query without its
    outermost select list, a hash of each of its columns, and whether each may be added by a
    non-breaking change; none when the rule cannot read it. -#}
{% macro vulcan_select_signature(sql) %}
  {%- set re = modules.re -%}
  {%- set pattern = "'(?:[^'\\\\]|\\\\.)*'|\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`|\\{\\{.*?\\}\\}|\\{%.*?%\\}|\\{#.*?#\\}|--[^\\n]*|/\\*.*?\\*/|\\w+|\\S" -%}
  {%- set tokens = [] -%}
  {%- for t in re.findall(pattern, sql or '', re.S) if not (t.startswith('--') or t.startswith('/*') or t.startswith('{#')) -%}
    {%- if t.startswith('{') -%}
      {%- do tokens.append(re.sub('\\s+', ' ', re.sub('^(\\{[{%])-|-([}%]\\})$', '\\1\\2', t))) -%}
    {%- elif re.match('\\w', t) -%}
      {%- do tokens.append(t | lower) -%}
    {%- else -%}
      {%- do tokens.append(t) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set enders = ['from', 'where', 'group', 'having', 'order', 'limit', 'window', 'cluster', 'distribute', 'sort', 'qualify', ';'] -%}
  {%- set st = {'depth': 0, 'start': none, 'end': none, 'ok': true, 'grouped': false} -%}
  {%- for t in tokens -%}
    {%- if t == '(' -%}
      {%- do st.update({'depth': st.depth + 1}) -%}
    {%- elif t == ')' -%}
      {%- do st.update({'depth': st.depth - 1}) -%}
    {%- elif st.depth == 0 -%}
      {%- if t in ('union', 'intersect', 'except', 'minus') -%}
        {%- do st.update({'ok': false}) -%}
      {%- elif st.start is none and t == 'select' -%}
        {%- do st.update({'start': loop.index}) -%}
      {%- elif st.start is not none and st.end is none and t in enders -%}
        {%- do st.update({'end': loop.index0}) -%}
      {%- elif st.start is not none and st.end is none and t.startswith('{%') -%}
        {%- do st.update({'ok': false}) -%}
      {%- endif -%}
      {%- if st.end is not none and t == 'group' -%}{%- do st.update({'grouped': true}) -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if not st.ok or st.start is none or st.depth != 0 -%}{{ return(none) }}{%- endif -%}
  {%- set start = st.start -%}
  {%- set end = st.end if st.end is not none else tokens | length -%}
  {%- if start < end and tokens[start] == 'distinct' -%}{{ return(none) }}{%- endif -%}
  {%- if start < end and tokens[start] == 'all' -%}{%- set start = start + 1 -%}{%- endif -%}
  {#- the columns: the select list split at its commas outside parentheses -#}
  {%- set columns = [[]] -%}
  {%- set depth = {'n': 0} -%}
  {%- for t in tokens[start:end] -%}
    {%- if t == ',' and depth.n == 0 -%}
      {%- do columns.append([]) -%}
    {%- else -%}
      {%- if t == '(' -%}{%- do depth.update({'n': depth.n + 1}) -%}{%- elif t == ')' -%}{%- do depth.update({'n': depth.n - 1}) -%}{%- endif -%}
      {%- do columns[-1].append(t) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set generators = ['explode', 'explode_outer', 'posexplode', 'posexplode_outer', 'inline', 'inline_outer', 'stack', 'json_tuple'] -%}
  {%- set aggregates = ['count', 'sum', 'avg', 'mean', 'min', 'max', 'first', 'last', 'any_value', 'collect_list', 'collect_set', 'count_if', 'bool_and', 'bool_or', 'every', 'some', 'any', 'max_by', 'min_by', 'stddev', 'stddev_pop', 'stddev_samp', 'variance', 'var_pop', 'var_samp', 'percentile', 'percentile_approx', 'approx_percentile', 'approx_count_distinct', 'median', 'mode', 'corr', 'covar_pop', 'covar_samp', 'kurtosis', 'skewness', 'array_agg', 'string_agg', 'listagg'] -%}
  {%- set projections, addable = [], [] -%}
  {%- for column in columns -%}
    {%- if not column -%}{{ return(none) }}{%- endif -%}
    {%- do projections.append(local_md5(column | join(' '))[:10]) -%}
    {%- set ok = {'v': true} -%}
    {%- for t in column -%}
      {%- set after = column[loop.index] if loop.index < column | length else '' -%}
      {%- if t == '*' and (loop.first or column[loop.index0 - 1] == '.') -%}{%- do ok.update({'v': false}) -%}{%- endif -%}
      {%- if t.startswith('{') -%}{%- do ok.update({'v': false}) -%}{%- endif -%}
      {%- if after == '(' and t in generators -%}{%- do ok.update({'v': false}) -%}{%- endif -%}
      {%- if after == '(' and t in aggregates and 'over' not in column and not st.grouped -%}{%- do ok.update({'v': false}) -%}{%- endif -%}
    {%- endfor -%}
    {%- do addable.append(ok.v) -%}
  {%- endfor -%}
  {%- set body = tokens[:start] + ['<columns>'] + tokens[end:] -%}
  {{ return({'body': local_md5(body | join(' '))[:10], 'projections': projections, 'addable': addable}) }}
{% endmacro %}

{#- Whether the query of signature `new` only adds columns to the query of signature `old`
    (vulcan_select_signature, either may be none): the same query around the select list, the
    old columns in the same order among the new ones, every other new column one that may be
    added. -#}
{% macro vulcan_change_is_additive(old, new) %}
  {%- if old is not mapping or new is not mapping or old.get('body') != new.body -%}{{ return(false) }}{%- endif -%}
  {%- set wanted = old.get('projections') or [] -%}
  {%- set st = {'i': 0, 'ok': true} -%}
  {%- for p in new.projections -%}
    {%- if st.i < wanted | length and wanted[st.i] == p -%}
      {%- do st.update({'i': st.i + 1}) -%}
    {%- elif not new.addable[loop.index0] -%}
      {%- do st.update({'ok': false}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(st.ok and st.i == wanted | length) }}
{% endmacro %}
