{#- The run of a tracked model's write, shared by its strategies (tracked_<format>.sql), which
    give `apply(args, spec, groups, changes)`: the statement(s) that write the changes.

    1. stage the query's groups with their hashes (`groups`), 2. check it: a NULL key or a row
    twice in a group raises here, with the table untouched, 3. a new table: insert the stage;
    else stage the changed keys (`changes`), count them, and apply them unless there are none,
    4. one line says what changed; the stages are dropped.

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
  {%- set spec = dbt_vulcan.vulcan_tracked_spec(cfg, names, window) -%}
  {%- set groups = dbt_vulcan.vulcan_stage_relation(args.relation, '__vulcan_groups') -%}
  {% do dbt_vulcan.vulcan_stage_create(groups, dbt_vulcan.vulcan_tracked_groups_sql(spec, args.sql)) %}
  {%- set found = run_query(dbt_vulcan.vulcan_tracked_check_sql(spec, groups)).rows[0] -%}
  {%- set problems = dbt_vulcan._vulcan_tracked_problems(cfg, found) -%}
  {%- if problems -%}
    {% do dbt_vulcan.vulcan_stage_drop(groups) %}
    {{ exceptions.raise_compiler_error("Model '" ~ cfg.model ~ "' (tracked): " ~ problems | join('; ') ~ '. Nothing was written.') }}
  {%- endif -%}
  {%- if args.created -%}
    {% call statement('main') -%}
      insert into {{ args.relation }} by name select * from {{ groups }}
    {%- endcall %}
    {{ log('tracked ' ~ args.relation ~ ': ' ~ found[1] ~ ' group' ~ ('s' if found[1] != 1 else '') ~ ' inserted', info=True) }}
    {% do dbt_vulcan.vulcan_stage_drop(groups) %}
    {{ return(none) }}
  {%- endif -%}
  {%- set changes = dbt_vulcan.vulcan_stage_relation(args.relation, '__vulcan_changes') -%}
  {% do dbt_vulcan.vulcan_stage_create(changes, dbt_vulcan.vulcan_tracked_changes_sql(spec, groups, args.relation)) %}
  {%- set counts = {'insert': 0, 'replace': 0, 'delete': 0} -%}
  {%- for row in run_query('select vulcan_change, count(*) from ' ~ changes ~ ' group by vulcan_change') -%}
    {%- do counts.update({row[0]: row[1]}) -%}
  {%- endfor -%}
  {%- if counts.insert or counts.replace or counts.delete -%}
    {% do apply(args, spec, groups, changes) %}
  {%- endif -%}
  {{ log('tracked ' ~ args.relation ~ ': ' ~ dbt_vulcan._vulcan_tracked_summary(counts, found[1]), info=True) }}
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

{#- The check's row [null_keys, groups, duplicates, duplicate_example] as problems. -#}
{% macro _vulcan_tracked_problems(cfg, found) %}
  {%- set problems = [] -%}
  {%- set key = 'group_key (' ~ cfg.group_key | join(', ') ~ ')' -%}
  {%- if found[0] -%}
    {%- do problems.append(key ~ ' is NULL in ' ~ found[0] ~ ' row' ~ ('s' if found[0] != 1 else '') ~ " of the query; every row needs its group's key") -%}
  {%- endif -%}
  {%- if found[2] -%}
    {%- do problems.append(found[2] ~ ' group' ~ (' holds' if found[2] == 1 else 's hold') ~ ' the same row more than once (e.g. the group ' ~ found[3] ~ '), which makes the group ambiguous: a group is a set of distinct rows; add a column that tells them apart (a line number) or select distinct') -%}
  {%- endif -%}
  {{ return(problems) }}
{% endmacro %}

{% macro _vulcan_tracked_summary(counts, groups) %}
  {%- set unchanged = groups - counts.insert - counts.replace -%}
  {%- if not (counts.insert or counts.replace or counts.delete) -%}
    {{ return('no group changed (' ~ unchanged ~ ' unchanged); nothing written') }}
  {%- endif -%}
  {{ return(counts.replace ~ ' group' ~ ('s' if counts.replace != 1 else '') ~ ' replaced, ' ~ counts.insert ~ ' inserted, ' ~ counts.delete ~ ' deleted (' ~ unchanged ~ ' unchanged)') }}
{% endmacro %}
