{#- A small Spark SQL reader for incremental_by_unique_key's keys, `when_matched` clauses and
    `merge_filter` (no SQL parser runs in package mode): a tokenizer (quotes, backquotes,
    comments, parentheses), a well-formedness check of one expression, the column references
    of an expression and the qualification of a key's columns. tests/oracle/unique_key.py
    (sqlglot) is the test oracle (tests/unit/macros/kinds/unique_key/test_unique_key_macros.py).

    Known differences from the oracle (sqlglot parses the whole SQL grammar):
    - what makes a text "not an expression" is this reader's grammar: operands, unary and binary
      operators, function calls, `a.b` fields, `a[i]` subscripts, CASE ... END, IS [NOT]
      NULL/TRUE/FALSE/DISTINCT FROM, [NOT] IN/LIKE/BETWEEN, CAST(x AS type), `x::type`,
      INTERVAL n unit, lambdas `x -> ...`; the reason given in parentheses is this reader's,
      not sqlglot's; a few texts sqlglot reads leniently are refused here (an empty WHEN
      MATCHED AND condition, `UPDATE SET a = 1 where x`);
    - a column reference is a name or `backquoted name` that is not a keyword, not followed by
      `(` (a function) or `->` (a lambda parameter), not a lambda's parameter inside that
      lambda's parentheses, not a type (after AS or ::, or a typed literal DATE'...'), not a
      date unit (first argument of a function call, after a number, before FROM) and not a
      name Spark reads as a function without parentheses (current_date, ...);
    - messages quote the text as written (whitespace kept) where sqlglot quotes its own
      rendering of it (e.g. 'LOWER(source.id)' for lower(source.id), 'a AS b' for a b);
    - a key column named like a type (date, timestamp) is qualified (target.date; sqlglot
      reads the name as a type and leaves it bare), and a comment in a key is left out of its
      SQL (the oracle keeps it, so `a -- c` would comment out the rest of the ON clause).
    tests/unit/macros/kinds/unique_key/test_unique_key_macros.py pins each difference. -#}

{#- {tokens: [[kind, text, start, end], ...] (no blanks, no comments), error}; kinds: name,
    quoted, string, number, var (@token), op, punct -#}
{% macro vulcan_sql_tokens(text) %}
  {%- set pattern = "(?P<ws>\\s+)"
      ~ "|(?P<comment>--[^\\n]*|/\\*[\\s\\S]*?\\*/)"
      ~ "|(?P<string>'(?:[^'\\\\]|\\\\[\\s\\S]|'')*'|\"(?:[^\"\\\\]|\\\\[\\s\\S]|\"\")*\")"
      ~ "|(?P<quoted>`(?:[^`]|``)+`)"
      ~ "|(?P<var>@\\{[A-Za-z_][A-Za-z0-9_]*\\}|@[A-Za-z_][A-Za-z0-9_]*)"
      ~ "|(?P<number>(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?[A-Za-z]*)"
      ~ "|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
      ~ "|(?P<op><=>|->|::|<=|>=|<>|!=|==|\\|\\||[-+*/%=<>&|^~!])"
      ~ "|(?P<punct>[()\\[\\],.;:])"
      ~ "|(?P<other>[\\s\\S])" -%}
  {%- set tokens = [] -%}
  {%- for found in modules.re.finditer(pattern, text) -%}
    {%- set kind = found.lastgroup -%}
    {%- if kind == 'other' -%}
      {{ return({'tokens': none, 'error': 'cannot read ' ~ dbt_vulcan.vulcan_repr(text[found.start():]) ~ ' (an unclosed quote?)' if found.group(0) in ('\'', '"', '`') else 'unexpected ' ~ dbt_vulcan.vulcan_repr(found.group(0))}) }}
    {%- elif kind not in ('ws', 'comment') -%}
      {%- do tokens.append([kind, found.group(0), found.start(), found.end()]) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'tokens': tokens, 'error': none}) }}
{% endmacro %}

{#- Words that are never columns (the grammar's keywords). -#}
{% macro vulcan_sql_keywords() %}
  {{ return(['and', 'or', 'not', 'null', 'true', 'false', 'is', 'in', 'like', 'ilike', 'rlike',
    'regexp', 'between', 'case', 'when', 'then', 'else', 'end', 'as', 'distinct', 'interval',
    'div', 'escape', 'from', 'where', 'select', 'group', 'order', 'having', 'limit', 'union',
    'join', 'on', 'over', 'unknown', 'with']) }}
{% endmacro %}

{#- Names Spark reads as functions without parentheses (never columns). -#}
{% macro vulcan_sql_niladic() %}
  {{ return(['current_date', 'current_timestamp', 'current_time', 'current_user',
    'current_catalog', 'current_database', 'current_schema', 'localtimestamp', 'localtime',
    'session_user', 'user']) }}
{% endmacro %}

{% macro _vulcan_sql_units() %}
  {{ return(['year', 'years', 'quarter', 'quarters', 'month', 'months', 'week', 'weeks', 'day',
    'days', 'dayofyear', 'hour', 'hours', 'minute', 'minutes', 'second', 'seconds',
    'millisecond', 'milliseconds', 'microsecond', 'microseconds']) }}
{% endmacro %}

{#- The text from token `first` to token `last` (indexes), as written. -#}
{% macro vulcan_sql_slice(text, tokens, first, last) %}
  {{ return(text[tokens[first][2]:tokens[last][3]].strip()) }}
{% endmacro %}

{#- Per token: outside any parentheses, brackets and CASE ... END (tests/oracle/unique_key.py's _top_level). -#}
{% macro vulcan_sql_top_level(tokens) %}
  {%- set flags = [] -%}
  {%- set ns = namespace(depth=0) -%}
  {%- for t in tokens -%}
    {%- set word = t[1] | lower if t[0] == 'name' else t[1] -%}
    {%- if t[0] in ('punct', 'name') and word in (')', ']', 'end') -%}
      {%- set ns.depth = [ns.depth - 1, 0] | max -%}
    {%- endif -%}
    {%- do flags.append(ns.depth == 0) -%}
    {%- if t[0] in ('punct', 'name') and word in ('(', '[', 'case') -%}
      {%- set ns.depth = ns.depth + 1 -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(flags) }}
{% endmacro %}

{#- Is `tokens` one well-formed expression? {error: none or the reason, alias: it is
    `expr [AS] name`, clause: a top-level FROM/WHERE/... follows the expression}. -#}
{% macro vulcan_sql_check_expr(tokens) %}
  {%- set kw = dbt_vulcan.vulcan_sql_keywords() -%}
  {%- set clauses = ['from', 'where', 'group', 'order', 'having', 'limit', 'union', 'join', 'select', 'with'] -%}
  {%- set stack = [] -%}
  {%- set r = dbt_vulcan.vulcan_repr -%}
  {%- set ns = namespace(expect='operand', generic=0, prev=none, interval=false, case_start=false, alias=false, error=none) -%}
  {%- for t in tokens -%}
    {%- set kind, x = t[0], t[1] -%}
    {%- set l = x | lower -%}
    {%- set top = stack[-1] if stack else none -%}
    {%- set word = kind == 'name' -%}
    {%- set call = ns.prev is not none and ((ns.prev[0] == 'name' and (ns.prev[1] | lower) not in kw) or ns.prev[0] == 'quoted') -%}
    {%- if ns.expect == 'type_args' and not (x == '<' or ns.generic > 0) -%}{%- set ns.expect = 'operator' -%}{%- endif -%}
    {%- set e = ns.expect -%}
    {%- set unexpected = 'unexpected ' ~ r(x) -%}
    {%- if e == 'operand' -%}
      {%- if kind in ('number', 'string', 'var', 'quoted') -%}
        {%- set ns.expect = 'operator' -%}
      {%- elif word and l == 'case' -%}
        {%- do stack.append('case') -%}{%- set ns.case_start = true -%}
      {%- elif word and l == 'when' and ns.case_start -%}
        {%- set ns.case_start = false -%}
      {%- elif word and l == 'not' -%}
      {%- elif word and l == 'interval' -%}
        {%- set ns.interval = true -%}
      {%- elif word and l == 'distinct' and ns.prev is not none and ns.prev[1] == '(' -%}
      {%- elif word and l in ('null', 'true', 'false') -%}
        {%- set ns.expect = 'operator' -%}
      {%- elif word and l not in kw -%}
        {%- set ns.expect = 'operator' -%}
      {%- elif x == '(' -%}
        {%- do stack.append('(') -%}
      {%- elif x == ')' and top == '(' and ns.prev is not none and ns.prev[1] == '(' -%}
        {%- do stack.pop() -%}{%- set ns.expect = 'operator' -%}
      {%- elif x == '*' or (kind == 'op' and x in ('-', '+', '~', '!')) -%}
        {%- if x == '*' -%}{%- set ns.expect = 'operator' -%}{%- endif -%}
      {%- else -%}
        {%- set ns.error = unexpected -%}
      {%- endif -%}
      {%- if not (word and l == 'case') -%}{%- set ns.case_start = false -%}{%- endif -%}
    {%- elif e == 'operator' -%}
      {%- if kind == 'string' and ns.prev[0] == 'name' and (ns.prev[1] | lower) in ('date', 'timestamp', 'timestamp_ntz', 'timestamp_ltz', 'x') -%}
        {#- a typed literal: DATE'2025-01-01' -#}
      {%- elif kind == 'op' and x not in ('~', '!') -%}
        {%- set ns.expect = 'type' if x == '::' else 'operand' -%}
        {%- set ns.interval = false -%}
      {%- elif x == '.' -%}
        {%- set ns.expect = 'field' -%}
      {%- elif x == '(' and call -%}
        {%- do stack.append('(') -%}{%- set ns.expect = 'operand' -%}
      {%- elif x == '[' -%}
        {%- do stack.append('[') -%}{%- set ns.expect = 'operand' -%}
      {%- elif x in (')', ']') -%}
        {%- if top != ('(' if x == ')' else '[') -%}{%- set ns.error = unexpected -%}{%- else -%}{%- do stack.pop() -%}{%- endif -%}
      {%- elif x == ',' and top == '(' -%}
        {%- set ns.expect = 'operand' -%}
      {%- elif word and l in ('and', 'or', 'like', 'ilike', 'rlike', 'regexp', 'div', 'escape', 'between', 'in') -%}
        {%- set ns.expect = 'operand' -%}{%- set ns.interval = false -%}
      {%- elif word and l == 'not' -%}
        {%- set ns.expect = 'not_op' -%}
      {%- elif word and l == 'is' -%}
        {%- set ns.expect = 'is' -%}
      {%- elif word and l in ('when', 'then', 'else') and top == 'case' -%}
        {%- set ns.expect = 'operand' -%}
      {%- elif word and l == 'end' and top == 'case' -%}
        {%- do stack.pop() -%}
      {%- elif word and l == 'as' and top == '(' -%}
        {%- set ns.expect = 'type' -%}
      {%- elif word and l in ('from', 'for') and top == '(' -%}
        {%- set ns.expect = 'operand' -%}
      {%- elif word and ns.interval and l in dbt_vulcan._vulcan_sql_units() -%}
      {%- elif word and top is none and l in clauses -%}
        {{ return({'error': none, 'alias': false, 'clause': true}) }}
      {%- elif top is none and (kind == 'quoted' or (word and (l == 'as' or l not in kw))) -%}
        {%- set ns.alias = true -%}
        {%- set ns.expect = 'alias_name' if l == 'as' else 'after_alias' -%}
      {%- else -%}
        {%- set ns.error = unexpected -%}
      {%- endif -%}
    {%- elif e == 'type' or e == 'alias_name' -%}
      {%- if kind in ('name', 'quoted') -%}
        {%- set ns.expect = 'type_args' if e == 'type' else 'after_alias' -%}
      {%- else -%}{%- set ns.error = unexpected -%}{%- endif -%}
    {%- elif e == 'type_args' and x == '<' and ns.generic == 0 -%}
      {#- array<int>, map<string, struct<a: int>> -#}
      {%- set ns.generic = 1 -%}
    {%- elif e == 'type_args' and ns.generic > 0 -%}
      {%- if x in ('<', '>') -%}{%- set ns.generic = ns.generic + (1 if x == '<' else -1) -%}{%- endif -%}
      {%- if ns.generic == 0 -%}{%- set ns.expect = 'operator' -%}{%- endif -%}
    {%- elif e == 'field' -%}
      {%- if kind in ('name', 'quoted') or x == '*' -%}{%- set ns.expect = 'operator' -%}{%- else -%}{%- set ns.error = unexpected -%}{%- endif -%}
    {%- elif e == 'is' -%}
      {%- if word and l == 'not' -%}
      {%- elif word and l in ('null', 'true', 'false', 'unknown') -%}{%- set ns.expect = 'operator' -%}
      {%- elif word and l == 'distinct' -%}{%- set ns.expect = 'from_kw' -%}
      {%- else -%}{%- set ns.error = unexpected -%}{%- endif -%}
    {%- elif e == 'from_kw' -%}
      {%- if word and l == 'from' -%}{%- set ns.expect = 'operand' -%}{%- else -%}{%- set ns.error = unexpected -%}{%- endif -%}
    {%- elif e == 'not_op' -%}
      {%- if word and l in ('in', 'like', 'ilike', 'rlike', 'regexp', 'between') -%}{%- set ns.expect = 'operand' -%}{%- else -%}{%- set ns.error = unexpected -%}{%- endif -%}
    {%- else -%}  {#- after_alias -#}
      {%- set ns.error = unexpected -%}
    {%- endif -%}
    {%- if ns.error is not none -%}{%- break -%}{%- endif -%}
    {%- set ns.prev = t -%}
  {%- endfor -%}
  {%- if ns.error is none and stack -%}
    {%- set ns.error = 'expecting ' ~ ('END' if stack[-1] == 'case' else (')' if stack[-1] == '(' else ']')) -%}
  {%- elif ns.error is none and ns.generic > 0 -%}
    {%- set ns.error = 'expecting >' -%}
  {%- elif ns.error is none and ns.expect not in ('operator', 'after_alias', 'type_args') -%}
    {%- set ns.error = 'the expression is incomplete' if tokens else 'the expression is empty' -%}
  {%- endif -%}
  {{ return({'error': ns.error, 'alias': ns.alias, 'clause': false}) }}
{% endmacro %}

{#- An identifier's name: `a``b` -> a`b -#}
{% macro vulcan_sql_ident(token) %}
  {{ return(token[1][1:-1].replace('``', '`') if token[0] == 'quoted' else token[1]) }}
{% endmacro %}

{#- The column references of an expression: [{index, parts, written}], `index` the token where
    it starts, `parts` the names (`s.f` -> [s, f]), `written` the reference as written. -#}
{% macro vulcan_sql_columns(tokens) %}
  {%- set kw = dbt_vulcan.vulcan_sql_keywords() -%}
  {%- set niladic = dbt_vulcan.vulcan_sql_niladic() -%}
  {%- set units = dbt_vulcan._vulcan_sql_units() -%}
  {%- set n = tokens | length -%}
  {#- matching parentheses, and the lambdas: [first, last, names] (the parentheses around) -#}
  {%- set opens = [] -%}
  {%- set match = {} -%}
  {%- for t in tokens -%}
    {%- if t[1] == '(' and t[0] == 'punct' -%}{%- do opens.append(loop.index0) -%}
    {%- elif t[1] == ')' and t[0] == 'punct' and opens -%}
      {%- set o = opens.pop() -%}{%- do match.update({o: loop.index0, loop.index0: o}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set lambdas = [] -%}
  {%- set params = [] -%}
  {%- for i in range(n) if tokens[i][1] == '->' -%}
    {%- set names = [] -%}
    {%- if i > 0 and tokens[i - 1][0] in ('name', 'quoted') -%}
      {%- do names.append(dbt_vulcan.vulcan_sql_ident(tokens[i - 1]) | lower) -%}{%- do params.append(i - 1) -%}
    {%- elif i > 0 and tokens[i - 1][1] == ')' and (i - 1) in match -%}
      {%- for j in range(match[i - 1] + 1, i - 1) if tokens[j][0] in ('name', 'quoted') -%}
        {%- do names.append(dbt_vulcan.vulcan_sql_ident(tokens[j]) | lower) -%}{%- do params.append(j) -%}
      {%- endfor -%}
    {%- endif -%}
    {#- the lambda's scope: the parentheses around it (the whole text at top level) -#}
    {%- set ns = namespace(first=0, last=n - 1) -%}
    {%- for o in match if o < i and match[o] > i and tokens[o][1] == '(' and o >= ns.first and match[o] <= ns.last -%}
      {%- set ns.first, ns.last = o, match[o] -%}
    {%- endfor -%}
    {%- do lambdas.append([ns.first, ns.last, names]) -%}
  {%- endfor -%}
  {#- the arguments of a generic type (cast(x as struct<a: int>)) name no columns -#}
  {%- set typed = [] -%}
  {%- for i in range(1, n - 1) if (tokens[i - 1][1] | lower) in ('as', '::') and tokens[i + 1][1] == '<' -%}
    {%- set g = namespace(depth=0, done=false) -%}
    {%- for j in range(i + 1, n) if not g.done -%}
      {%- set g.depth = g.depth + (1 if tokens[j][1] == '<' else (-1 if tokens[j][1] == '>' else 0)) -%}
      {%- do typed.append(j) -%}
      {%- if g.depth == 0 -%}{%- set g.done = true -%}{%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set found = [] -%}
  {%- set ns = namespace(skip=-1) -%}
  {%- for t in tokens -%}
    {%- set i = loop.index0 -%}
    {%- set before = tokens[i - 1] if i > 0 else none -%}
    {%- set after = tokens[i + 1] if i + 1 < n else none -%}
    {%- set b = (before[1] | lower) if before is not none else '' -%}
    {%- set a = (after[1] | lower) if after is not none else '' -%}
    {%- set l = t[1] | lower -%}
    {%- set candidate = i > ns.skip and (t[0] == 'quoted' or (t[0] == 'name' and l not in kw and l not in niladic))
        and b not in ('.', 'as', '::') and a not in ('(', '->') and i not in params and i not in typed -%}
    {%- if candidate and t[0] == 'name' -%}
      {#- a typed literal (DATE'2025-01-01'), a date unit (dateadd(day, ...), interval 1 day,
          extract(day from d)) -#}
      {%- set typed = after is not none and after[0] == 'string' -%}
      {%- set unit = l in units and ((before is not none and before[0] in ('number', 'string')) or a == 'from'
          or (b == '(' and a == ',' and i > 1 and tokens[i - 2][0] == 'name')) -%}
      {%- set candidate = not typed and not unit -%}
    {%- endif -%}
    {%- if candidate -%}
      {%- set name = dbt_vulcan.vulcan_sql_ident(t) | lower -%}
      {%- set bound = [] -%}
      {%- for first, last, names in lambdas if first <= i <= last and name in names -%}{%- do bound.append(1) -%}{%- endfor -%}
      {%- if not bound -%}
        {%- set parts = [dbt_vulcan.vulcan_sql_ident(t)] -%}
        {%- set written = [t[1]] -%}
        {%- set ns.skip = i -%}
        {%- for j in range(i + 1, n - 1, 2) -%}
          {%- if tokens[j][1] != '.' or tokens[j + 1][0] not in ('name', 'quoted') or ns.skip != j - 1 -%}{%- break -%}{%- endif -%}
          {%- do parts.append(dbt_vulcan.vulcan_sql_ident(tokens[j + 1])) -%}
          {%- do written.append(tokens[j + 1][1]) -%}
          {%- set ns.skip = j + 1 -%}
        {%- endfor -%}
        {%- do found.append({'index': i, 'parts': parts, 'written': written | join('.')}) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(found) }}
{% endmacro %}
