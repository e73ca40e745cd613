{#- An audit given as a call string (audit_parse.sql reads the other forms): its tokens and its
    name and arguments; the oracle is tests/oracle/audits.py's parse_call. -#}

{#- The call form: `name` or `name(arg=value, ...)` (`:=` too) -> {name, args, error}. Values:
    numbers, quoted strings, true/false/null, bare names (as strings), `quoted names` and
    lists `[a, b]` or `(a, b)`. A state machine over the tokens (the oracle is a recursive
    descent parser; the states are its positions, the stack its open lists). -#}
{% macro _vulcan_audit_parse_call(text) %}
  {%- set lexed = dbt_vulcan._vulcan_audit_tokens(text) -%}
  {%- if lexed.error is not none -%}{{ return({'error': lexed.error}) }}{%- endif -%}
  {%- set prefix = 'cannot parse ' ~ dbt_vulcan.vulcan_repr(text) ~ ': ' -%}
  {%- set args = {} -%}
  {%- set stack = [] -%}  {#- the open lists: [closing, items] -#}
  {%- set ns = namespace(state='name', name=none, key=none, consumed=false) -%}
  {%- for token in lexed.tokens + [none] -%}
    {%- set got = 'the end' if token is none else dbt_vulcan.vulcan_repr(token[1]) -%}
    {%- set kind = none if token is none else token[0] -%}
    {%- set punct = token[1] if kind == 'punct' else none -%}
    {%- set ns.consumed = false -%}
    {%- for step in range(4) -%}
      {%- set closing = stack[-1][0] if stack else ')' -%}
      {%- set deliver = none -%}
      {%- if ns.state == 'name' -%}
        {%- if kind != 'name' -%}{{ return({'error': prefix ~ 'expected name, got ' ~ got}) }}{%- endif -%}
        {%- set ns.name = token[1] -%}
        {%- set ns.state = 'open' -%}{%- set ns.consumed = true -%}
      {%- elif ns.state == 'open' -%}
        {%- if punct == '(' -%}
          {%- set ns.state = 'key' -%}{%- set ns.consumed = true -%}
        {%- else -%}
          {%- set ns.state = 'trailing' -%}
        {%- endif -%}
      {%- elif ns.state == 'key' -%}
        {%- if punct == ')' -%}
          {%- set ns.state = 'trailing' -%}{%- set ns.consumed = true -%}
        {%- elif kind != 'name' -%}
          {{ return({'error': prefix ~ 'expected name, got ' ~ got}) }}
        {%- else -%}
          {%- set ns.key = token[1] -%}
          {%- set ns.state = 'assign' -%}{%- set ns.consumed = true -%}
        {%- endif -%}
      {%- elif ns.state == 'assign' -%}
        {%- if kind != 'assign' -%}{{ return({'error': prefix ~ 'expected assign, got ' ~ got}) }}{%- endif -%}
        {%- set ns.state = 'value' -%}{%- set ns.consumed = true -%}
      {%- elif ns.state == 'value' -%}
        {%- if punct in ('(', '[') -%}
          {%- do stack.append([')' if punct == '(' else ']', []]) -%}
          {%- set ns.state = 'item' -%}{%- set ns.consumed = true -%}
        {%- elif token is none -%}
          {{ return({'error': prefix ~ 'a value is missing'}) }}
        {%- else -%}
          {%- set scalar = dbt_vulcan._vulcan_audit_call_value(kind, token[1]) -%}
          {%- if scalar.error -%}{{ return({'error': prefix ~ 'unexpected ' ~ got}) }}{%- endif -%}
          {%- set deliver = [scalar.value] -%}
          {%- set ns.consumed = true -%}
        {%- endif -%}
      {%- elif ns.state == 'item' -%}
        {%- if punct == closing -%}
          {%- set deliver = [stack.pop()[1]] -%}
          {%- set ns.consumed = true -%}
        {%- else -%}
          {%- set ns.state = 'value' -%}
        {%- endif -%}
      {%- elif ns.state == 'after' -%}
        {%- if punct == ',' -%}
          {%- set ns.state = 'item' if stack else 'key' -%}{%- set ns.consumed = true -%}
        {%- elif punct != closing -%}
          {{ return({'error': prefix ~ 'expected ' ~ closing ~ ', got ' ~ got}) }}
        {%- else -%}
          {%- set ns.state = 'item' if stack else 'key' -%}
        {%- endif -%}
      {%- else -%}  {#- trailing -#}
        {%- if token is not none -%}{{ return({'error': prefix ~ 'unexpected ' ~ got}) }}{%- endif -%}
        {%- set ns.consumed = true -%}
      {%- endif -%}
      {%- if deliver is not none -%}
        {%- if stack -%}
          {%- do stack[-1][1].append(deliver[0]) -%}
        {%- else -%}
          {%- do args.update({ns.key: deliver[0]}) -%}
        {%- endif -%}
        {%- set ns.state = 'after' -%}
      {%- endif -%}
      {%- if ns.consumed -%}{% break %}{%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return({'name': ns.name, 'args': args, 'error': none}) }}
{% endmacro %}

{#- {value, error} of one scalar token of the call form -#}
{% macro _vulcan_audit_call_value(kind, raw) %}
  {%- if kind == 'string' -%}
    {%- set body = raw[1:-1] -%}
    {%- if raw[0] == "'" -%}{%- set body = body.replace("''", "'") -%}{%- endif -%}
    {{ return({'value': modules.re.sub('\\\\(.)', '\\1', body), 'error': none}) }}
  {%- elif kind == 'quoted' -%}
    {{ return({'value': raw[1:-1].replace('``', '`'), 'error': none}) }}
  {%- elif kind == 'number' -%}
    {%- set number = raw | float -%}
    {{ return({'value': number | int if modules.re.fullmatch('-?\\d+', raw) else number, 'error': none}) }}
  {%- elif kind == 'name' -%}
    {%- set lowered = raw.lower() -%}
    {%- if lowered in ('true', 'false') -%}
      {{ return({'value': lowered == 'true', 'error': none}) }}
    {%- elif lowered in ('null', 'none') -%}
      {{ return({'value': none, 'error': none}) }}
    {%- endif -%}
    {{ return({'value': raw, 'error': none}) }}
  {%- endif -%}
  {{ return({'value': none, 'error': true}) }}
{% endmacro %}

{#- {tokens: [[kind, text], ...], error}: the call form's tokens, as tests/oracle/audits.py's _TOKEN_RE
    reads them (one match right after the other, from the start). -#}
{% macro _vulcan_audit_tokens(text) %}
  {%- set pattern = '\\s*(?:(?P<string>\'(?:[^\'\\\\]|\\\\.|\'\')*\'|"(?:[^"\\\\]|\\\\.)*")|(?P<quoted>`(?:[^`]|``)+`)|(?P<number>-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_.]*)|(?P<assign>:=|=)|(?P<punct>[()\\[\\],]))' -%}
  {%- set stripped = text.rstrip() -%}
  {%- set tokens = [] -%}
  {%- set ns = namespace(pos=0) -%}
  {%- for found in modules.re.finditer(pattern, stripped) -%}
    {%- if found.start() != ns.pos -%}{%- break -%}{%- endif -%}
    {%- do tokens.append([found.lastgroup, found.group(found.lastgroup)]) -%}
    {%- set ns.pos = found.end() -%}
  {%- endfor -%}
  {%- if ns.pos != stripped | length -%}
    {{ return({'tokens': none, 'error': 'cannot parse ' ~ dbt_vulcan.vulcan_repr(text) ~ ' at ' ~ dbt_vulcan.vulcan_repr(stripped[ns.pos:])}) }}
  {%- endif -%}
  {{ return({'tokens': tokens, 'error': none}) }}
{% endmacro %}
