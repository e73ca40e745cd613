{#- TRACKED (OndatraSQL's kind): one entity spans several rows (an invoice's lines). The rows
    are grouped by `group_key`; each group gets a content hash over every column but the key
    (order-independent, NULL-safe), stored on its rows in `content_hash_column`. Each run
    compares the query's groups with the table's and, in one write per format, replaces the
    groups whose hash changed, inserts the new ones and deletes the groups gone from the
    query. With a `time_column`, an incremental run considers only the groups of its window (a
    group's time: its latest row's; planning/plan.sql gives the window as the run's one batch);
    the table's groups outside it are left alone. A table built from nothing (new,
    --full-refresh, a restatement) gets every group of the query. No interval state: each run
    is recorded as a run. A restatement is a full rebuild. SQL: tracked_sql.sql (test oracle:
    tests/oracle/tracked.py); writes: tracked_<file_format>.sql, all beside this file; the
    run's life: engine/materialize.sql. -#}

{% materialization tracked, adapter='spark', supported_languages=['sql', 'python'] %}
  {{ return(dbt_vulcan.vulcan_materialize('tracked', dbt_vulcan.vulcan_steps_tracked())) }}
{% endmaterialization %}

{#- The tracked kind's steps for engine/materialize.sql. -#}
{% macro vulcan_steps_tracked() %}
  {{ return({
    'strategy': 'tracked',
    'action': 'sync groups',
    'validate': dbt_vulcan._vulcan_tracked_validate,
    'check': dbt_vulcan._vulcan_tracked_check,
    'schema_change': 'every_run',
    'project': dbt_vulcan._vulcan_tracked_project,
  }) }}
{% endmacro %}

{#- A range given with vulcan_start/vulcan_end is the window of a model with a time column;
    without one it does not apply (the whole-table kinds' note). -#}
{% macro _vulcan_tracked_validate(cfg) %}
  {%- if not cfg.time_column -%}{% do dbt_vulcan.vulcan_whole_table_only(cfg) %}{%- endif -%}
{% endmacro %}

{#- The query's columns (read on every run, as the whole-table kinds do) against the config:
    every group_key column present, no query column named like the hash column, the time
    column a time, a new table's partition columns; one error naming every problem. The
    columns a schema change compares with the table include the hash column; a new table is
    created with it (last). -#}
{% macro _vulcan_tracked_check(cfg, begin, plan, schema_sql) %}
  {%- set query_columns = dbt_vulcan.vulcan_query_columns(schema_sql) -%}
  {%- set names = query_columns | map(attribute='name') | list -%}
  {%- do dbt_vulcan.vulcan_check_columns(cfg, query_columns, plan.rebuild, dbt_vulcan.vulcan_partition_key(model), dbt_vulcan.vulcan_tracked_column_problems(cfg, names)) -%}
  {%- set time_type = dbt_vulcan.vulcan_time_type(cfg, query_columns) if cfg.time_column else none -%}
  {%- set hash = dbt_vulcan.vulcan_quote_identifier(cfg.content_hash_column) -%}
  {{ return({
    'query_columns': query_columns + [api.Column.create(cfg.content_hash_column, 'string')],
    'time_type': time_type,
    'create_sql': 'select vulcan_query.*, cast(null as string) as ' ~ hash ~ ' from (\n' ~ schema_sql ~ '\n) as vulcan_query',
    'extra': {'tracked_columns': names, 'tracked_complex': dbt_vulcan._vulcan_tracked_complex(query_columns)},
  }) }}
{% endmacro %}

{#- The query's columns of a type that does not sort (a map, a variant) or may hold one (an
    array, a struct): their rows' content hashes them as JSON text. -#}
{% macro _vulcan_tracked_complex(columns) %}
  {%- set out = [] -%}
  {%- for column in columns -%}
    {%- set dtype = (column.dtype | string | lower).strip() -%}
    {%- if '<' in dtype or dtype in ('map', 'array', 'struct', 'variant') -%}{%- do out.append(column.name) -%}{%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- The batches select the query's columns: a projection (an enforced contract's, or the
    table's when a schema change is ignored) without the hash column, which the strategy adds. -#}
{% macro _vulcan_tracked_project(cfg, relation, created, projection) %}
  {%- set projection = dbt_vulcan.vulcan_contract_projection(relation, created, projection) -%}
  {%- if projection is none -%}{{ return(none) }}{%- endif -%}
  {%- set hash = dbt_vulcan.vulcan_quote_identifier(cfg.content_hash_column) | lower -%}
  {%- set kept = [] -%}
  {%- for item in projection if not (item | lower).endswith(hash) -%}{%- do kept.append(item) -%}{%- endfor -%}
  {{ return(kept) }}
{% endmacro %}
