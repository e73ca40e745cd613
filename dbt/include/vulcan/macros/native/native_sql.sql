{#- dbt's own commands on dbt-vulcan models: unit tests, `dbt show` and `dbt compile`.

    A run renders the time tokens (`@start_ds`, ...) per batch; dbt's commands that run a
    model's SQL outside a run see one known range instead (vulcan_native_range):
      - a unit test: the unit test's `overrides: vars:` (vulcan_start, vulcan_end,
        vulcan_execution_time; then --vars), else all of time;
      - dbt show / dbt compile: the next run's first batch, planned as the run plans it
        (--vars included; the model's first interval when no batch is due).
    The tokens are rendered there by dbt's dispatched macros (get_unit_test_sql,
    get_empty_subquery_sql, get_limit_sql), which this package overrides with `spark__`
    variants (found when the project's dispatch block puts dbt_vulcan before dbt) and the
    `vulcan` adapter with `vulcan__` ones: both call vulcan_native_sql. `dbt compile` cannot be
    hooked: the Jinja form of each token (dbt_vulcan.start_ds(), ...) renders the placeholder
    in a run and the range's value under compile, show and unit tests. -#}

{#- The range dbt's own commands render `node` for: {start, end, execution_time, source,
    cfg, plan} (times 'YYYY-MM-DD HH:MM:SS[.ffffff]'; source: vars, all_time, plan or
    first_interval; cfg and plan only for a model). -#}
{% macro vulcan_native_range(node) %}
  {%- set fmt = dbt_vulcan.vulcan_format_ts -%}
  {%- if node.resource_type == 'unit_test' -%}
    {%- set overrides = ((node.get('overrides') or {}).get('vars') or {}) -%}
    {%- set raw = {} -%}
    {%- for name in ['vulcan_start', 'vulcan_end', 'vulcan_execution_time'] -%}
      {%- do raw.update({name: overrides[name] if name in overrides else var(name, none)}) -%}
    {%- endfor -%}
    {%- set run = dbt_vulcan.vulcan_run_vars(node.name, raw) -%}
    {%- if run.start is not none -%}
      {{ return({'start': fmt(run.start), 'end': fmt(run.end), 'execution_time': fmt(run.execution_time), 'source': 'vars'}) }}
    {%- endif -%}
    {%- set all_time = dbt_vulcan.vulcan_all_time() -%}
    {{ return({'start': all_time[0], 'end': all_time[1], 'execution_time': fmt(run.execution_time), 'source': 'all_time'}) }}
  {%- endif -%}
  {%- set kind = (node.config or {}).get('materialized') -%}
  {%- if kind not in dbt_vulcan.vulcan_kinds() -%}
    {{ exceptions.raise_compiler_error("Model '" ~ node.name ~ "': the time tokens (dbt_vulcan.start_ds(), @start_ds, ...) are for dbt-vulcan's kinds; it is materialized as " ~ dbt_vulcan.vulcan_repr(kind) ~ ', not one of: ' ~ dbt_vulcan.vulcan_kinds() | join(', ')) }}
  {%- endif -%}
  {%- set cfg = dbt_vulcan.vulcan_settings(node, kind) -%}
  {%- set identifier = node.alias or node.name -%}
  {%- set existing = adapter.get_relation(database=node.database, schema=node.schema, identifier=identifier) -%}
  {%- set plan = dbt_vulcan.vulcan_model_plan(cfg, {'schema': node.schema, 'identifier': identifier}, existing is none, node, dbt_vulcan.vulcan_run_vars(node.name)) -%}
  {%- if plan.batches -%}
    {{ return({'start': plan.batches[0].start, 'end': plan.batches[0].end, 'execution_time': plan.execution_time, 'source': 'plan', 'cfg': cfg, 'plan': plan}) }}
  {%- endif -%}
  {{ return({'start': plan.first_interval[0], 'end': plan.first_interval[1], 'execution_time': plan.execution_time, 'source': 'first_interval', 'cfg': cfg, 'plan': plan}) }}
{% endmacro %}

{#- `sql` (the current node's) as dbt's own commands run it: in a unit test, its tokens
    rendered for the unit test's range and, when the model's SQL sets `time_column`, wrapped in
    the output filter; under `dbt show`, a dbt-vulcan SQL model's first batch exactly as the run
    renders it (tokens and output filter); anything else unchanged (a run renders its own). -#}
{% macro vulcan_native_sql(sql) %}
  {%- if not execute or model is not defined or model is none or sql is none -%}
    {{ return(sql) }}
  {%- endif -%}
  {%- if model.resource_type == 'unit_test' -%}
    {%- set range = dbt_vulcan.vulcan_native_range(model) -%}
    {%- set cfg = dbt_vulcan._vulcan_native_unit_cfg(model) -%}
    {%- set batch = {'start': range.start, 'end': range.end} -%}
    {#- the tracked kind filters whole groups, never rows (time_tokens/time_tokens.sql) -#}
    {%- if not cfg.time_column or cfg.materialized == 'tracked' -%}
      {{ return(dbt_vulcan.vulcan_batch_query(sql, cfg, batch, none, range.execution_time).query) }}
    {%- endif -%}
    {%- set time_type = cfg.time_data_type or dbt_vulcan._vulcan_native_time_type(sql, cfg, range) -%}
    {#- a fixture row given without a time (NULL) is kept: a unit test written before the model
        became a dbt-vulcan kind gives rows without its time column -#}
    {%- set batch_query = dbt_vulcan.vulcan_batch_query(sql, cfg, batch, time_type, range.execution_time) -%}
    {{ return('select * from (\n' ~ batch_query.query ~ '\n) as vulcan_batch\nwhere ' ~ dbt_vulcan.vulcan_quote_identifier(cfg.time_column) ~ ' is null or (' ~ batch_query.filter ~ ')') }}
  {%- endif -%}
  {%- set kind = (model.config or {}).get('materialized') -%}
  {%- if flags.WHICH == 'show' and model.resource_type == 'model' and model.language != 'python' and kind in dbt_vulcan.vulcan_kinds() -%}
    {%- set range = dbt_vulcan.vulcan_native_range(model) -%}
    {%- set cfg = range.cfg -%}
    {%- set time_type = range.plan.time_type -%}
    {%- if cfg.time_column and not time_type -%}
      {%- set time_type = dbt_vulcan._vulcan_native_time_type(sql, cfg, range) -%}
    {%- endif -%}
    {{ return(dbt_vulcan.vulcan_batch_query(sql, cfg, {'start': range.start, 'end': range.end}, time_type, range.execution_time).sql) }}
  {%- endif -%}
  {{ return(sql) }}
{% endmacro %}

{#- The overrides of dbt's dispatched macros: each renders the SQL with vulcan_native_sql, then
    builds dbt's own statement. Called by the package's `spark__` and the adapter's `vulcan__`. -#}
{% macro vulcan_native_unit_test_sql(main_sql, expected_fixture_sql, expected_column_names) %}
  {{ return(dbt.default__get_unit_test_sql(dbt_vulcan.vulcan_native_sql(main_sql), expected_fixture_sql, expected_column_names)) }}
{% endmacro %}

{% macro vulcan_native_empty_subquery_sql(select_sql, select_sql_header=none) %}
  {{ return(dbt.default__get_empty_subquery_sql(dbt_vulcan.vulcan_native_sql(select_sql), select_sql_header)) }}
{% endmacro %}

{% macro vulcan_native_limit_sql(sql, limit) %}
  {{ return(dbt.default__get_limit_sql(dbt_vulcan.vulcan_native_sql(sql), limit)) }}
{% endmacro %}

{#- Package mode: found by dbt only with the root project's dispatch block
    `dispatch: [{macro_namespace: dbt, search_order: [<root project>, dbt_vulcan, dbt]}]`
    (type: databricks dispatches to spark__ too). -#}
{% macro spark__get_unit_test_sql(main_sql, expected_fixture_sql, expected_column_names) %}{{ return(dbt_vulcan.vulcan_native_unit_test_sql(main_sql, expected_fixture_sql, expected_column_names)) }}{% endmacro %}
{% macro spark__get_empty_subquery_sql(select_sql, select_sql_header=none) %}{{ return(dbt_vulcan.vulcan_native_empty_subquery_sql(select_sql, select_sql_header)) }}{% endmacro %}
{% macro spark__get_limit_sql(sql, limit) %}{{ return(dbt_vulcan.vulcan_native_limit_sql(sql, limit)) }}{% endmacro %}

{#- ---------------------------------------------------------------- private helpers -#}

{#- A unit test has none of its model's config (dbt gives it its own): the output filter's keys
    (and `materialized`: the tracked kind filters no row) are read from the `config(...)` call
    of the model's SQL, where a string sets them, directly (`time_column='d'`) or in its `meta`
    (`'time_column': 'd'`). -#}
{% macro _vulcan_native_unit_cfg(node) %}
  {%- set cfg = {'model': node.name, 'kind': 'incremental_by_time_range', 'materialized': none, 'time_column': none, 'time_format': none, 'time_data_type': none} -%}
  {%- set code = node.raw_code or '' -%}
  {%- for key in ['materialized', 'time_column', 'time_format', 'time_data_type'] -%}
    {%- set found = modules.re.search("(?:\\b" ~ key ~ "\\s*=|['\"]" ~ key ~ "['\"]\\s*:)\\s*(['\"])(.*?)\\1", code) -%}
    {%- if found -%}{%- do cfg.update({key: found.group(2)}) -%}{%- endif -%}
  {%- endfor -%}
  {{ return(cfg) }}
{% endmacro %}

{#- The time column's type from the query's columns (tokens rendered for the range;
    vulcan_query_columns uses dbt's default empty subquery, not the dispatched one, which would
    come back here). -#}
{% macro _vulcan_native_time_type(sql, cfg, range) %}
  {%- set rendered = dbt_vulcan.vulcan_render_tokens(sql, dbt_vulcan.vulcan_time_tokens(range.start, range.end, range.execution_time)) -%}
  {%- set columns = dbt_vulcan.vulcan_query_columns(rendered) -%}
  {{ return(dbt_vulcan.vulcan_time_type(cfg, columns)) }}
{% endmacro %}
