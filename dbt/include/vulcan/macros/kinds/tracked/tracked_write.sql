{#- The run of a tracked model's write, shared by its strategies (tracked_<format>.sql), which
    give `apply(args, spec, groups, changes)`: the statement(s) that write the changes.

    1. stage the query's groups with their hashes (`groups`; a group holding a row twice gets
    a NULL hash), 2. a new table: count the stage's groups by change, which checks them, and
    insert the stage; else stage the changed keys (`changes`, which also names the groups
    breaking a rule) and count them, 3. a NULL key or a row twice in a group raises here, with
    the table untouched and the stages dropped; else the changes are applied unless there are
    none, 4. one line says what changed; the stages are dropped.

    The window (a time column's) limits an incremental run only: a table built from nothing
    (`args.created`: new, --full-refresh, a full-history restatement) gets every group of the
    query. -#}
{% macro vulcan_tracked_write(args, apply) %}
  {%- set cfg = args.cfg -%}
  {%- set names = dbt_vulcan._vulcan_tracked_batch_names(args) -%}
  {%- set window = none -%}
  {%- if cfg.time_column and not args.created -%}
    {%- set window = {'column': cfg.time_column, 'start': args.batch.start, 'end': args.batch.end, 'time_type': args.time_type, 'time_format': cfg.time_format} -%}
  {%- endif -%}
  {%- set spec = dbt_vulcan.vulcan_tracked_spec(cfg, names, window, args.tracked_complex) -%}
  {%- set groups = dbt_vulcan.vulcan_stage_relation(args.relation, '__vulcan_groups') -%}
  {%- set changes = dbt_vulcan.vulcan_stage_relation(args.relation, '__vulcan_changes') -%}
  {% do dbt_vulcan.vulcan_stage_create(groups, dbt_vulcan.vulcan_tracked_groups_sql(spec, args.sql)) %}
  {%- if args.created -%}
    {%- set counts_sql = dbt_vulcan.vulcan_tracked_counts_sql(spec, '(' ~ dbt_vulcan.vulcan_tracked_changes_sql(spec, groups) ~ ')') -%}
  {%- else -%}
    {% do dbt_vulcan.vulcan_stage_create(changes, dbt_vulcan.vulcan_tracked_changes_sql(spec, groups, args.relation)) %}
    {%- set counts_sql = dbt_vulcan.vulcan_tracked_counts_sql(spec, changes, groups) -%}
  {%- endif -%}
  {%- set counts = {'insert': 0, 'replace': 0, 'delete': 0, 'groups': 0} -%}
  {%- set found = {} -%}
  {%- for row in run_query(counts_sql) -%}
    {%- do counts.update({row[0]: row[1]}) -%}
    {%- do found.update({row[0]: row}) -%}
  {%- endfor -%}
  {%- set problems = dbt_vulcan._vulcan_tracked_problems(cfg, found) -%}
  {%- if problems -%}
    {% do dbt_vulcan.vulcan_stage_drop(changes) %}
    {% do dbt_vulcan.vulcan_stage_drop(groups) %}
    {{ exceptions.raise_compiler_error("Model '" ~ cfg.model ~ "' (tracked): " ~ problems | join('; ') ~ '. Nothing was written.') }}
  {%- endif -%}
  {%- if args.created -%}
    {% call statement('main') -%}
      insert into {{ args.relation }} by name select * from {{ groups }}
    {%- endcall %}
    {{ log('tracked ' ~ args.relation ~ ': ' ~ counts.insert ~ ' group' ~ ('s' if counts.insert != 1 else '') ~ ' inserted', info=True) }}
    {% do dbt_vulcan.vulcan_stage_drop(groups) %}
    {{ return(none) }}
  {%- endif -%}
  {%- if counts.insert or counts.replace or counts.delete -%}
    {% do apply(args, spec, groups, changes) %}
  {%- endif -%}
  {{ log('tracked ' ~ args.relation ~ ': ' ~ dbt_vulcan._vulcan_tracked_summary(counts), info=True) }}
  {% do dbt_vulcan.vulcan_stage_drop(changes) %}
  {% do dbt_vulcan.vulcan_stage_drop(groups) %}
{% endmacro %}

{#- The columns the batch selects: its projection's names, else the query's (the check's). -#}
{% macro _vulcan_tracked_batch_names(args) %}
  {%- if not args.projection -%}{{ return(args.tracked_columns) }}{%- endif -%}
  {%- set names = [] -%}
  {%- for item in args.projection -%}
    {%- do names.append(modules.re.search('`((?:[^`]|``)+)`\\s*$', item).group(1).replace('``', '`')) -%}
  {%- endfor -%}
  {{ return(names) }}
{% endmacro %}

{#- The counts' rows by change (vulcan_tracked_counts_sql: change, groups, rows, example) as
    problems: the 'null_key' and 'duplicate' ones. -#}
{% macro _vulcan_tracked_problems(cfg, found) %}
  {%- set problems = [] -%}
  {%- set key = 'group_key (' ~ cfg.group_key | join(', ') ~ ')' -%}
  {%- if 'null_key' in found -%}
    {%- set n = found.null_key[2] -%}
    {%- do problems.append(key ~ ' is NULL in ' ~ n ~ ' row' ~ ('s' if n != 1 else '') ~ " of the query; every row needs its group's key") -%}
  {%- endif -%}
  {%- if 'duplicate' in found -%}
    {%- set n = found.duplicate[1] -%}
    {%- do problems.append(n ~ ' group' ~ (' holds' if n == 1 else 's hold') ~ ' the same row more than once (e.g. the group ' ~ found.duplicate[3] ~ '), which makes the group ambiguous: a group is a set of distinct rows; add a column that tells them apart (a line number) or select distinct') -%}
  {%- endif -%}
  {{ return(problems) }}
{% endmacro %}

{% macro _vulcan_tracked_summary(counts) %}
  {%- set unchanged = counts.groups - counts.insert - counts.replace -%}
  {%- if not (counts.insert or counts.replace or counts.delete) -%}
    {{ return('no group changed (' ~ unchanged ~ ' unchanged); nothing written') }}
  {%- endif -%}
  {{ return(counts.replace ~ ' group' ~ ('s' if counts.replace != 1 else '') ~ ' replaced, ' ~ counts.insert ~ ' inserted, ' ~ counts.delete ~ ' deleted (' ~ unchanged ~ ' unchanged)') }}
{% endmacro %}
