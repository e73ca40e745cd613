{#- INCREMENTAL_BY_UNIQUE_KEY: the unique key, `when_matched` clauses and `merge_filter` of a
    model, parsed and validated (every problem at once), and checked against the query's
    columns. tests/oracle/unique_key.py is the test oracle (UpsertSpec.build, parse_keys,
    parse_when_matched, column_problems); the SQL reader is text/sql_lexer.sql (its
    header lists where it differs from the oracle).

    A spec: {model, keys: [{text, columns}], clauses: [{condition, delete, star,
    assignments: [[column, value], ...]}], when_matched (the clauses as written, tokens
    rendered), merge_filter, filters: [[label, text], ...]}. -#}

{#- The validated spec; a compiler error naming every problem. `values`: the time tokens to
    substitute in when_matched and merge_filter ({} leaves them); `predicates`: dbt's
    incremental_predicates (DBT_INTERNAL_DEST / DBT_INTERNAL_SOURCE), ANDed to merge_filter. -#}
{% macro vulcan_unique_key_spec(cfg, values={}, predicates=[]) %}
  {%- set built = dbt_vulcan._vulcan_uk_build(cfg, values, predicates) -%}
  {%- if built.problems -%}
    {{ exceptions.raise_compiler_error(dbt_vulcan.vulcan_config_message(cfg, built.problems)) }}
  {%- endif -%}
  {{ return(built.spec) }}
{% endmacro %}

{#- The model's incremental_predicates (a string or a list) -#}
{% macro vulcan_incremental_predicates(node) %}
  {%- set found = dbt_vulcan.vulcan_node_config(node).get('incremental_predicates') or [] -%}
  {{ return([found] if found is string else found | list) }}
{% endmacro %}

{#- {spec, problems} -#}
{% macro _vulcan_uk_build(cfg, values, predicates) %}
  {%- set parsed = dbt_vulcan.vulcan_uk_parse_keys(cfg.unique_key or []) -%}
  {%- set problems = parsed.problems -%}
  {%- if not cfg.unique_key -%}
    {%- do problems.append('unique_key: required (a column, a list of columns or expressions)') -%}
  {%- endif -%}
  {%- set when_matched = [] -%}
  {%- for c in cfg.when_matched or [] -%}{%- do when_matched.append(dbt_vulcan.vulcan_render_tokens(c, values)) -%}{%- endfor -%}
  {%- set clauses = dbt_vulcan._vulcan_uk_parse_when_matched(when_matched) -%}
  {%- set problems = problems + clauses.problems -%}
  {%- set filters = [] -%}
  {%- if cfg.merge_filter -%}{%- do filters.append(['merge_filter', cfg.merge_filter]) -%}{%- endif -%}
  {%- for p in predicates if p.strip() -%}
    {%- do filters.append(['incremental_predicates', dbt_vulcan._vulcan_uk_dbt_aliases(p)]) -%}
  {%- endfor -%}
  {%- set rendered = [] -%}
  {%- for label, text in filters -%}
    {%- set text = dbt_vulcan.vulcan_render_tokens(text, values) -%}
    {%- do rendered.append([label, text]) -%}
    {%- set lexed = dbt_vulcan.vulcan_sql_tokens(text) -%}
    {%- set check = {'error': lexed.error} if lexed.error is not none else dbt_vulcan.vulcan_sql_check_expr(lexed.tokens) -%}
    {%- set error = check.error -%}
    {%- if error is none and (check.alias or check.clause) -%}
      {%- set error = 'a predicate, not a list, alias or query' -%}
    {%- endif -%}
    {%- if error is not none -%}
      {%- do problems.append('merge_filter: ' ~ dbt_vulcan.vulcan_repr(text) ~ ' is not a SQL predicate (' ~ error ~ ')') -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if problems -%}{{ return({'spec': none, 'problems': problems}) }}{%- endif -%}
  {%- set merge_filter = rendered[0][1] if rendered | length == 1 else none -%}
  {%- if rendered | length > 1 -%}
    {%- set wrapped = [] -%}
    {%- for label, text in rendered -%}{%- do wrapped.append('(' ~ text ~ ')') -%}{%- endfor -%}
    {%- set merge_filter = wrapped | join(' and ') -%}
  {%- endif -%}
  {%- set written = [] -%}
  {%- for c in when_matched if c.strip() -%}{%- do written.append(c.strip()) -%}{%- endfor -%}
  {{ return({'spec': {
    'model': cfg.model, 'keys': parsed['keys'], 'clauses': clauses.clauses,
    'when_matched': written | join('\n'), 'merge_filter': merge_filter, 'filters': rendered,
  }, 'problems': []}) }}
{% endmacro %}

{#- The assignments of `spec`'s when_matched clauses whose value reads the table's own columns
    (`target.<column>`), as written ('qty = target.qty + source.qty'): applying such a clause
    twice gives another result than once (tests/oracle/unique_key.py's reads_target). -#}
{% macro vulcan_unique_key_reads_target(spec) %}
  {%- set found = [] -%}
  {%- for clause in spec.clauses if not clause.delete -%}
    {%- for column, expression in clause.assignments -%}
      {%- set tokens = dbt_vulcan.vulcan_sql_tokens(expression).tokens or [] -%}
      {%- for i in range(tokens | length - 1) if tokens[i][0] in ('name', 'quoted') and (dbt_vulcan.vulcan_sql_ident(tokens[i]) | lower) == 'target' and tokens[i + 1][1] == '.' -%}
        {%- if loop.first -%}{%- do found.append(column ~ ' = ' ~ expression) -%}{%- endif -%}
      {%- endfor -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return(found) }}
{% endmacro %}

{#- An incremental_predicates entry with dbt's merge aliases renamed to target/source. -#}
{% macro _vulcan_uk_dbt_aliases(predicate) %}
  {%- set lexed = dbt_vulcan.vulcan_sql_tokens(predicate) -%}
  {%- if lexed.error is not none -%}{{ return(predicate.strip()) }}{%- endif -%}
  {%- set aliases = {'dbt_internal_dest': 'target', 'dbt_internal_source': 'source'} -%}
  {%- set out = [] -%}
  {%- set ns = namespace(position=0) -%}
  {%- for t in lexed.tokens if t[0] in ('name', 'quoted') and (dbt_vulcan.vulcan_sql_ident(t) | lower) in aliases -%}
    {%- do out.append(predicate[ns.position:t[2]] ~ aliases[dbt_vulcan.vulcan_sql_ident(t) | lower]) -%}
    {%- set ns.position = t[3] -%}
  {%- endfor -%}
  {%- do out.append(predicate[ns.position:]) -%}
  {{ return((out | join('')).strip()) }}
{% endmacro %}

{#- ------------------------------------------------------------------------------- keys -#}

{#- `a, b` and `(a, b)` -> the parts' token ranges [[first, last], ...] (tests/oracle/unique_key.py's
    _split_top_level) -#}
{% macro _vulcan_uk_split(tokens, first, last) %}
  {%- set part = tokens[first:last + 1] -%}
  {%- set top = dbt_vulcan.vulcan_sql_top_level(part) -%}
  {%- set n = part | length -%}
  {%- if n > 2 and part[0][1] == '(' and part[-1][1] == ')' and (top | select | list | length) == 2 -%}
    {%- set inner = dbt_vulcan._vulcan_uk_split(tokens, first + 1, last - 1) -%}
    {{ return(inner if inner | length > 1 else [[first, last]]) }}
  {%- endif -%}
  {%- set parts = [] -%}
  {%- set ns = namespace(start=first) -%}
  {%- for t in part -%}
    {%- if top[loop.index0] and t[0] == 'punct' and t[1] == ',' -%}
      {%- if first + loop.index0 > ns.start -%}{%- do parts.append([ns.start, first + loop.index0 - 1]) -%}{%- endif -%}
      {%- set ns.start = first + loop.index0 + 1 -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if ns.start <= last -%}{%- do parts.append([ns.start, last]) -%}{%- endif -%}
  {{ return(parts) }}
{% endmacro %}

{#- {keys: [{text, columns}], problems} -#}
{% macro vulcan_uk_parse_keys(unique_key) %}
  {%- set r = dbt_vulcan.vulcan_repr -%}
  {%- set keys = [] -%}
  {%- set problems = [] -%}
  {%- for text in unique_key -%}
    {%- set lexed = dbt_vulcan.vulcan_sql_tokens(text) -%}
    {%- set tokens = lexed.tokens or [] -%}
    {%- set ranges = dbt_vulcan._vulcan_uk_split(tokens, 0, (tokens | length) - 1) if tokens else [] -%}
    {%- set ns = namespace(error=lexed.error, clause=false) -%}
    {%- set checks = [] -%}
    {#- a parenthesized tuple among other parts (`(a, b), c`) has no one split into key parts -#}
    {%- set tuples = [] -%}
    {%- for first, last in ranges if ranges | length > 1 and dbt_vulcan._vulcan_uk_split(tokens, first, last) | length > 1 -%}
      {%- do tuples.append(first) -%}
    {%- endfor -%}
    {%- for first, last in ranges if ns.error is none and not ns.clause -%}
      {%- set check = dbt_vulcan.vulcan_sql_check_expr(tokens[first:last + 1]) -%}
      {%- do checks.append(check) -%}
      {%- set ns.error, ns.clause = check.error, check.clause -%}
    {%- endfor -%}
    {%- if ns.error is not none -%}
      {%- do problems.append('unique_key: ' ~ r(text) ~ ' is not a column or SQL expression (' ~ ns.error ~ ')') -%}
    {%- elif ns.clause -%}
      {%- do problems.append('unique_key: ' ~ r(text) ~ ' is not a column or SQL expression') -%}
    {%- elif tuples -%}
      {%- do problems.append('unique_key: cannot split ' ~ r(text) ~ ' into key parts') -%}
    {%- else -%}
      {%- for first, last in ranges -%}
        {%- set item = tokens[first:last + 1] -%}
        {%- set item_text = dbt_vulcan.vulcan_sql_slice(text, tokens, first, last) -%}
        {%- set columns = dbt_vulcan.vulcan_sql_columns(item) -%}
        {%- set tables = [] -%}
        {%- for c in columns if c.parts | length > 1 -%}{%- do tables.append(c) -%}{%- endfor -%}
        {%- if checks[loop.index0].alias or not columns or (item | length == 1 and item[0][1] == '*') -%}
          {%- do problems.append('unique_key: ' ~ r(item_text) ~ " is not a column or an expression over the model's columns") -%}
        {%- elif tables -%}
          {%- do problems.append('unique_key: ' ~ r(item_text) ~ ' names a table; write the column alone (it is matched as source.<key> = target.<key>)') -%}
        {%- else -%}
          {%- do keys.append({'text': item_text, 'columns': columns, 'tokens': item, 'source': text}) -%}
        {%- endif -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'keys': keys, 'problems': problems}) }}
{% endmacro %}

{#- A key's SQL with every column it names prefixed by `alias` (none: as written). -#}
{% macro _vulcan_uk_key_sql(key, alias=none) %}
  {%- if alias is none -%}{{ return(key.text) }}{%- endif -%}
  {%- set text = key.source -%}
  {%- set first = key.tokens[0][2] -%}
  {%- set out = [] -%}
  {%- set ns = namespace(position=first) -%}
  {%- for c in key.columns -%}
    {%- set t = key.tokens[c.index] -%}
    {%- do out.append(text[ns.position:t[2]] ~ alias ~ '.') -%}
    {%- set ns.position = t[2] -%}
  {%- endfor -%}
  {%- do out.append(text[ns.position:key.tokens[-1][3]]) -%}
  {{ return(out | join('') | trim) }}
{% endmacro %}

{% macro _vulcan_uk_keys_sql(spec, alias=none) %}
  {%- set out = [] -%}
  {%- for key in spec['keys'] -%}{%- do out.append(dbt_vulcan._vulcan_uk_key_sql(key, alias)) -%}{%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- ----------------------------------------------------------------------- when_matched -#}
{% macro _vulcan_uk_clause_form() %}{{ return('WHEN MATCHED [AND <condition>] THEN UPDATE SET <column> = <expr>, ... | DELETE') }}{% endmacro %}

{#- {clauses, problems}: the clauses of `when_matched` (one string may hold several), in order -#}
{% macro _vulcan_uk_parse_when_matched(items) %}
  {%- set r = dbt_vulcan.vulcan_repr -%}
  {%- set form = dbt_vulcan._vulcan_uk_clause_form() -%}
  {%- set kept = [] -%}
  {%- for c in items if c.strip() -%}{%- do kept.append(c.strip()) -%}{%- endfor -%}
  {%- set text = kept | join('\n') -%}
  {%- if not text -%}{{ return({'clauses': [], 'problems': []}) }}{%- endif -%}
  {%- set lexed = dbt_vulcan.vulcan_sql_tokens(text) -%}
  {%- set cannot = 'when_matched: cannot parse ' ~ r(text) ~ ' as ' ~ form ~ ' (' -%}
  {%- if lexed.error is not none -%}{{ return({'clauses': [], 'problems': [cannot ~ lexed.error ~ ')']}) }}{%- endif -%}
  {%- set tokens = lexed.tokens -%}
  {%- set n = tokens | length -%}
  {%- set top = dbt_vulcan.vulcan_sql_top_level(tokens) -%}
  {%- set starts = [] -%}
  {%- for i in range(n - 1) if top[i] and tokens[i][0] == 'name' and (tokens[i][1] | lower) == 'when' and (tokens[i + 1][1] | lower) in ('matched', 'not') -%}
    {%- do starts.append(i) -%}
  {%- endfor -%}
  {%- if not starts or starts[0] != 0 -%}
    {{ return({'clauses': [], 'problems': [cannot ~ 'expected WHEN MATCHED at ' ~ r(text[tokens[0][2]:tokens[0][2] + 20]) ~ ')']}) }}
  {%- endif -%}
  {%- set clauses = [] -%}
  {%- set problems = [] -%}
  {%- for start in starts -%}
    {%- set number = loop.index -%}
    {%- set end = starts[loop.index] if not loop.last else n -%}
    {%- set parsed = dbt_vulcan._vulcan_uk_parse_clause(text, tokens, top, start, end) -%}
    {%- set label = 'when_matched clause ' ~ number ~ ' (' ~ r(dbt_vulcan.vulcan_sql_slice(text, tokens, start, parsed.get('label_end', end - 1))) ~ ')' -%}
    {%- if parsed.error == 'split' -%}
      {#- sqlglot reads `UPDATE SET *, a = 1`, which the oracle then cannot split -#}
      {%- do problems.append('split') -%}
    {%- elif parsed.error is not none -%}
      {{ return({'clauses': [], 'problems': [cannot ~ parsed.error ~ ')']}) }}
    {%- endif -%}
    {%- for p in parsed.problems or [] -%}{%- do problems.append(label ~ ': ' ~ p) -%}{%- endfor -%}
    {%- do clauses.append(parsed.clause) -%}
  {%- endfor -%}
  {%- set real = problems | reject('equalto', 'split') | list -%}
  {%- if real -%}{{ return({'clauses': [], 'problems': real}) }}{%- endif -%}
  {%- if problems -%}
    {{ return({'clauses': [], 'problems': ['when_matched: cannot split ' ~ r(text) ~ ' into ' ~ form ~ ' clauses']}) }}
  {%- endif -%}
  {%- for clause in clauses[:-1] -%}
    {%- if clause.condition is none -%}
    {%- do problems.append('when_matched clause ' ~ loop.index ~ ' of ' ~ clauses | length ~ ' has no AND condition: only the last WHEN MATCHED clause may omit it (clauses apply in order)') -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'clauses': clauses, 'problems': problems}) }}
{% endmacro %}

{#- One clause, tokens [start, end): {clause, problems, error (it does not parse)} -#}
{% macro _vulcan_uk_parse_clause(text, tokens, top, start, end) %}
  {%- set r = dbt_vulcan.vulcan_repr -%}
  {%- set words = [] -%}
  {%- for t in tokens[start:end] -%}{%- do words.append(t[1] | lower if t[0] == 'name' else '') -%}{%- endfor -%}
  {%- set thens = [] -%}
  {%- for i in range(start + 2, end) if top[i] and words[i - start] == 'then' -%}{%- do thens.append(i) -%}{%- endfor -%}
  {%- if not thens or thens[0] + 1 >= end -%}
    {{ return({'error': 'a clause needs THEN and an action'}) }}
  {%- endif -%}
  {%- set then = thens[0] -%}
  {%- set action = words[then + 1 - start] -%}
  {%- if words[1] == 'not' -%}
    {%- if words[2] != 'matched' -%}{{ return({'error': 'expected WHEN NOT MATCHED'}) }}{%- endif -%}
    {{ return({'error': none, 'clause': none, 'problems': ['only WHEN MATCHED clauses are allowed (' ~ dbt_vulcan._vulcan_uk_clause_form() ~ '); rows with new keys are always inserted']}) }}
  {%- endif -%}
  {%- set condition = none -%}
  {%- if then > start + 2 -%}
    {%- if words[2] != 'and' or then == start + 3 -%}{{ return({'error': 'expected AND <condition> THEN'}) }}{%- endif -%}
    {%- set check = dbt_vulcan.vulcan_sql_check_expr(tokens[start + 3:then]) -%}
    {%- if check.error is not none or check.alias or check.clause -%}
      {{ return({'error': check.error or 'unexpected ' ~ r(dbt_vulcan.vulcan_sql_slice(text, tokens, start + 3, then - 1))}) }}
    {%- endif -%}
    {%- set condition = dbt_vulcan.vulcan_sql_slice(text, tokens, start + 3, then - 1) -%}
  {%- endif -%}
  {%- if action == 'delete' -%}
    {%- if then + 2 != end -%}{{ return({'error': 'unexpected ' ~ r(tokens[then + 2][1])}) }}{%- endif -%}
    {{ return({'error': none, 'problems': [], 'clause': {'condition': condition, 'delete': true, 'star': false, 'assignments': []}}) }}
  {%- elif action == 'insert' -%}
    {{ return({'error': none, 'clause': none, 'problems': ['the action must be UPDATE SET ... or DELETE']}) }}
  {%- elif action != 'update' or (then + 2 < end and words[then + 2 - start] != 'set') -%}
    {{ return({'error': 'expected UPDATE SET ... or DELETE after THEN'}) }}
  {%- endif -%}
  {%- set first = then + 3 -%}
  {%- if first >= end -%}
    {#- named as sqlglot renders it: `WHEN MATCHED ... THEN UPDATE` -#}
    {{ return({'error': none, 'clause': none, 'label_end': then + 1, 'problems': ['UPDATE SET needs `column = expr, ...` or `*`']}) }}
  {%- endif -%}
  {%- if first + 1 == end and tokens[first][1] == '*' -%}
    {{ return({'error': none, 'problems': [], 'clause': {'condition': condition, 'delete': false, 'star': true, 'assignments': []}}) }}
  {%- endif -%}
  {#- assignments: top-level commas split them -#}
  {%- set groups = [] -%}
  {%- set ns = namespace(begin=first) -%}
  {%- for i in range(first, end + 1) -%}
    {%- if i == end or (top[i] and tokens[i][1] == ',' and tokens[i][0] == 'punct') -%}
      {%- if i == ns.begin -%}{{ return({'error': 'an assignment is empty'}) }}{%- endif -%}
      {%- do groups.append([ns.begin, i]) -%}
      {%- set ns.begin = i + 1 -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set assignments = [] -%}
  {%- set problems = [] -%}
  {%- for begin, stop in groups -%}
    {%- set item = tokens[begin:stop] -%}
    {%- set item_text = dbt_vulcan.vulcan_sql_slice(text, tokens, begin, stop - 1) -%}
    {%- if item | length == 1 and item[0][1] == '*' -%}
      {{ return({'error': 'split'}) }}
    {%- endif -%}
    {%- set check = dbt_vulcan.vulcan_sql_check_expr(item) -%}
    {%- if check.error is not none or check.clause or check.alias -%}
      {{ return({'error': check.error or 'unexpected ' ~ r(item_text)}) }}
    {%- endif -%}
    {%- set eqs = [] -%}
    {%- for i in range(begin, stop) if top[i] and tokens[i][1] == '=' -%}{%- do eqs.append(i) -%}{%- endfor -%}
    {#- the target column: a name, or names joined by dots, before the first `=` -#}
    {%- set ns2 = namespace(chain=eqs | length > 0 and eqs[0] > begin) -%}
    {%- if ns2.chain -%}
      {%- for i in range(begin, eqs[0]) -%}
        {%- set want_name = (i - begin) is even -%}
        {%- if (want_name and tokens[i][0] not in ('name', 'quoted')) or (not want_name and tokens[i][1] != '.') or (tokens[i][0] == 'name' and (tokens[i][1] | lower) in dbt_vulcan.vulcan_sql_keywords()) -%}
          {%- set ns2.chain = false -%}
        {%- endif -%}
      {%- endfor -%}
      {%- set ns2.chain = ns2.chain and (eqs[0] - begin) is odd and eqs[0] + 1 < stop -%}
    {%- endif -%}
    {%- if not ns2.chain -%}
      {%- do problems.append(r(item_text) ~ ' is not `column = expr`') -%}
    {%- else -%}
      {%- set parts = [] -%}
      {%- for i in range(begin, eqs[0], 2) -%}{%- do parts.append(dbt_vulcan.vulcan_sql_ident(tokens[i])) -%}{%- endfor -%}
      {%- if parts | length > 1 and (parts[-2] | lower) != 'target' -%}
        {%- do problems.append(r(dbt_vulcan.vulcan_sql_slice(text, tokens, begin, eqs[0] - 1)) ~ ' is not a column of the target; assign to `target.<column>` or `<column>`') -%}
      {%- endif -%}
      {%- do assignments.append([parts[-1], dbt_vulcan.vulcan_sql_slice(text, tokens, eqs[0] + 1, stop - 1)]) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'error': none, 'problems': problems, 'clause': {'condition': condition, 'delete': false, 'star': false, 'assignments': assignments}}) }}
{% endmacro %}
