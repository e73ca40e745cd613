{#- Data audits of a batch: the built-in audits' SQL, the statements that evaluate them and the
    failure messages (parsing: audits/audit_parse.sql). The Python oracle of every statement
    and message is tests/oracle/audits.py (tests/unit/macros/audits/test_audit_macros.py).

    The batch's rows are written once to a stage table next to the target
    (`<table>__vulcan_audit_<run>`, the invocation in its name as every stage's: two dbt
    processes of one model never share it, and a run killed while creating it leaves files at
    a location no later run uses; the next run of the model drops it, engine/stage.sql):
    plain parquet, or Iceberg for an Iceberg target (PURGE removes an Iceberg stage's files). One statement counts
    every audit's offending rows in it; only when some audit fails, a second statement
    fetches up to 5 offending rows of each failing audit for the message. A failing blocking audit drops the stage and fails the
    model before the write strategy runs; a non-blocking one warns. The strategy then reads
    the stage (`select * from <stage>`), which is dropped after the batch is recorded.

    Statements per batch: create stage, count, [samples], drop stage.

    A user-defined audit is a project macro `audit_<name>(relation, **args)` that returns
    the SQL of the offending rows of `relation` (the stage), e.g. audit_no_future_orders
    returning "select * from <relation> where <column> > current_date()". -#}

{% macro vulcan_audit_batch(stage, audits, sql, batch, file_format) %}
  {% call statement('vulcan_audit_stage') -%}
    create table {{ stage }} using {{ dbt_vulcan._vulcan_audit_stage_format(file_format) }} as
    {{ sql }}
  {%- endcall %}
  {%- set sqls = [] -%}
  {%- for audit in audits -%}
    {%- if audit.builtin -%}
      {%- do sqls.append(dbt_vulcan._vulcan_audit_sql(audit, stage)) -%}
    {%- else -%}
      {%- do sqls.append(context[audit.macro](stage, **audit.args) | string) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set counts = run_query(dbt_vulcan._vulcan_audit_count_query(sqls)) -%}
  {%- set failing = dbt_vulcan._vulcan_audit_failures(counts) -%}
  {%- if failing -%}
    {%- set samples = run_query(dbt_vulcan._vulcan_audit_sample_query(sqls, failing)) -%}
    {%- set report = dbt_vulcan._vulcan_audit_report(model.name, audits, batch, counts, samples) -%}
    {%- for warning in report.warnings -%}
      {% do exceptions.warn(warning) %}
    {%- endfor -%}
    {%- if report.error -%}
      {% do dbt_vulcan.vulcan_drop_audit_stage(stage, file_format) %}
      {{ exceptions.raise_compiler_error(report.error) }}
    {%- endif -%}
  {%- endif -%}
  {{ return('select * from ' ~ stage) }}
{% endmacro %}

{% macro _vulcan_audit_stage_format(file_format) %}
  {{ return('iceberg' if file_format == 'iceberg' else 'parquet') }}
{% endmacro %}

{% macro vulcan_drop_audit_stage(stage, file_format) %}
  {% call statement('vulcan_audit_stage_drop') -%}
    drop table if exists {{ stage }}{% if dbt_vulcan._vulcan_audit_stage_format(file_format) == 'iceberg' %} purge{% endif %}
  {%- endcall %}
{% endmacro %}

{#- --- the built-in audits' SQL: the offending rows of `relation` ---------------------------- -#}
{% macro _vulcan_audit_sql(audit, relation) %}
  {%- set args = audit.args -%}
  {%- set name = audit.name -%}
  {%- set q = dbt_vulcan.vulcan_quote_identifier -%}
  {%- set rel = relation | string -%}
  {%- if name == 'not_null' -%}
    {%- set tests = [] -%}
    {%- for column in args['columns'] -%}{%- do tests.append(q(column) ~ ' is null') -%}{%- endfor -%}
    {{ return('select * from ' ~ rel ~ ' where ' ~ tests | join(' or ')) }}
  {%- elif name == 'unique_values' -%}
    {%- set parts = [] -%}
    {%- for column in args['columns'] -%}
      {%- do parts.append('select ' ~ dbt_vulcan._vulcan_audit_literal(column) ~ ' as column_name, cast(' ~ q(column) ~ ' as string) as value, count(*) as row_count from ' ~ rel ~ ' where ' ~ q(column) ~ ' is not null group by ' ~ q(column) ~ ' having count(*) > 1') -%}
    {%- endfor -%}
    {{ return(parts | join('\nunion all\n')) }}
  {%- elif name == 'unique_combination_of_columns' -%}
    {%- set keys = [] -%}
    {%- set lowered = [] -%}
    {%- for column in args['columns'] -%}
      {%- do keys.append(q(column)) -%}
      {%- do lowered.append(column.lower()) -%}
    {%- endfor -%}
    {%- set counter = 'vulcan_row_count' if 'row_count' in lowered else 'row_count' -%}
    {{ return('select ' ~ keys | join(', ') ~ ', count(*) as ' ~ counter ~ ' from ' ~ rel ~ ' group by ' ~ keys | join(', ') ~ ' having count(*) > 1') }}
  {%- elif name == 'positive_values' -%}
    {{ return('select * from ' ~ rel ~ ' where ' ~ q(args['column']) ~ ' <= 0') }}
  {%- elif name == 'non_negative_values' -%}
    {{ return('select * from ' ~ rel ~ ' where ' ~ q(args['column']) ~ ' < 0') }}
  {%- elif name == 'accepted_values' -%}
    {%- set values = [] -%}
    {%- for value in args['values'] -%}{%- do values.append(dbt_vulcan._vulcan_audit_literal(value)) -%}{%- endfor -%}
    {{ return('select * from ' ~ rel ~ ' where ' ~ q(args['column']) ~ ' not in (' ~ values | join(', ') ~ ')') }}
  {%- elif name == 'accepted_range' -%}
    {%- set column = q(args['column']) -%}
    {%- set inclusive = args.get('inclusive', true) -%}
    {%- set tests = [] -%}
    {%- if 'min' in args -%}
      {%- do tests.append(column ~ (' < ' if inclusive else ' <= ') ~ dbt_vulcan._vulcan_audit_literal(args['min'])) -%}
    {%- endif -%}
    {%- if 'max' in args -%}
      {%- do tests.append(column ~ (' > ' if inclusive else ' >= ') ~ dbt_vulcan._vulcan_audit_literal(args['max'])) -%}
    {%- endif -%}
    {{ return('select * from ' ~ rel ~ ' where ' ~ tests | join(' or ')) }}
  {%- elif name == 'number_of_rows' -%}
    {{ return('select count(*) as row_count from ' ~ rel ~ ' having count(*) <= ' ~ (args['threshold'] | int)) }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error('audits.sql: no SQL for the audit ' ~ name) }}
{% endmacro %}

{#- A Spark SQL literal for a config value. -#}
{% macro _vulcan_audit_literal(value) %}
  {%- if value is boolean -%}
    {{ return('true' if value else 'false') }}
  {%- elif value is integer or value is float -%}
    {{ return('%r' | format(value)) }}
  {%- elif dbt_vulcan._vulcan_audit_is_date(value) and value.hour is defined -%}
    {{ return("timestamp'" ~ value.isoformat(sep=' ') ~ "'") }}
  {%- elif dbt_vulcan._vulcan_audit_is_date(value) -%}
    {{ return("date'" ~ value.isoformat() ~ "'") }}
  {%- endif -%}
  {{ return("'" ~ (value | string).replace('\\', '\\\\').replace("'", "\\'") ~ "'") }}
{% endmacro %}

{#- --- evaluation ------------------------------------------------------------------------- -#}

{#- One statement counting every audit's offending rows: (vulcan_audit, vulcan_failures). -#}
{% macro _vulcan_audit_count_query(sqls) %}
  {%- set parts = [] -%}
  {%- for sql in sqls -%}
    {%- do parts.append('select ' ~ loop.index0 ~ ' as vulcan_audit, count(*) as vulcan_failures from (\n' ~ sql ~ '\n) as vulcan_v') -%}
  {%- endfor -%}
  {{ return(parts | join('\nunion all\n')) }}
{% endmacro %}

{#- One statement fetching up to `limit` offending rows (as JSON) of each failing audit. -#}
{% macro _vulcan_audit_sample_query(sqls, failing, limit=5) %}
  {%- set parts = [] -%}
  {%- for i in failing -%}
    {%- set n = i | int -%}
    {%- do parts.append('select * from (select ' ~ n ~ " as vulcan_audit, to_json(struct(vulcan_v.*), map('ignoreNullFields', 'false')) as vulcan_sample from (\n" ~ sqls[n] ~ '\n) as vulcan_v limit ' ~ (limit | int) ~ ') as vulcan_s' ~ n) -%}
  {%- endfor -%}
  {{ return(parts | join('\nunion all\n')) }}
{% endmacro %}

{#- The rows of a query result (an agate table) or of a list of rows. -#}
{% macro _vulcan_audit_rows(result) %}
  {%- set rows = result.rows if result.rows is defined else result -%}
  {{ return(rows or []) }}
{% endmacro %}

{#- The indexes of the audits that found offending rows, from the count query's result. -#}
{% macro _vulcan_audit_failures(counts) %}
  {%- set failing = [] -%}
  {%- for row in dbt_vulcan._vulcan_audit_rows(counts) if row[1] is not none and (row[1] | int) > 0 -%}
    {%- do failing.append(row[0] | int) -%}
  {%- endfor -%}
  {{ return(failing | sort) }}
{% endmacro %}

{% macro _vulcan_audit_batch_name(batch) %}
  {%- set where = batch.get('label', '') if batch.get('tracked', true) else '(whole query)' -%}
  {{ return(('batch [' ~ batch.get('index', 1) ~ '/' ~ batch.get('count', 1) ~ '] ' ~ where).rstrip()) }}
{% endmacro %}

{#- {error: the message of the failing blocking audits or none, warnings: [...]} -#}
{% macro _vulcan_audit_report(model_name, audits, batch, counts, samples) %}
  {%- set found = {} -%}
  {%- for row in dbt_vulcan._vulcan_audit_rows(counts) if row[1] is not none -%}
    {%- do found.update({(row[0] | int): (row[1] | int)}) -%}
  {%- endfor -%}
  {%- set examples = {} -%}
  {%- for row in dbt_vulcan._vulcan_audit_rows(samples) -%}
    {%- set i = row[0] | int -%}
    {%- if i not in examples -%}{%- do examples.update({i: []}) -%}{%- endif -%}
    {%- do examples[i].append(dbt_vulcan._vulcan_audit_show_sample(row[1])) -%}
  {%- endfor -%}
  {%- set errors = [] -%}
  {%- set warnings = [] -%}
  {%- set where = dbt_vulcan._vulcan_audit_batch_name(batch) -%}
  {%- for audit in audits -%}
    {%- set count = found.get(loop.index0, 0) -%}
    {%- if count > 0 -%}
      {%- set shown = examples.get(loop.index0, []) -%}
      {%- set line = 'Audit ' ~ audit['label'] ~ ('' if audit['blocking'] else ' (non-blocking)') ~ ' failed for model ' ~ model_name ~ ', ' ~ where ~ ': ' ~ count ~ ' offending row' ~ ('' if count == 1 else 's') ~ (', e.g. ' ~ shown | join('; ') if shown else '') -%}
      {%- do (errors if audit['blocking'] else warnings).append(line) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set error = none -%}
  {%- if errors -%}
    {%- set error = (errors + ['Nothing of this batch was written: the table and its interval state are unchanged.']) | join('\n') -%}
  {%- endif -%}
  {{ return({'error': error, 'warnings': warnings}) }}
{% endmacro %}

{#- One sample row (JSON) as the message shows it: {id: None, status: 'a'}, 300 characters at most. -#}
{% macro _vulcan_audit_show_sample(raw) %}
  {%- set unreadable = namespace() -%}
  {%- set value = raw -%}
  {%- if raw is string -%}
    {%- set value = fromjson(raw, unreadable) -%}
    {%- if value is sameas unreadable -%}{%- set value = raw -%}{%- endif -%}
  {%- endif -%}
  {%- if value is mapping -%}
    {%- set parts = [] -%}
    {%- for key, v in value.items() -%}
      {%- if v is none -%}
        {%- set shown = 'None' -%}
      {%- elif v is string -%}
        {%- set shown = '%r' | format(v) -%}
      {%- elif v is mapping or (v is sequence and v is not string) -%}
        {%- set shown = tojson(v) -%}
      {%- else -%}
        {%- set shown = v | string -%}
      {%- endif -%}
      {%- do parts.append(key ~ ': ' ~ shown) -%}
    {%- endfor -%}
    {%- set text = '{' ~ parts | join(', ') ~ '}' -%}
  {%- else -%}
    {%- set text = value | string -%}
  {%- endif -%}
  {{ return(text if text | length <= 300 else text[:297] ~ '...') }}
{% endmacro %}
