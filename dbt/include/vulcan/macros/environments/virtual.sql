{#- Environments, the virtual layer (opt-in with the var `vulcan_virtual: true`).

    A model of a dbt-vulcan kind keeps its rows in a physical table named for the model and its
    version (environments/version.sql), in one schema every target shares
    (`vulcan_physical_schema`, default `vulcan_physical`); the model's own relation, what `ref()`
    gives and BI tools read, is a view over it (environments/view.sql). An environment is a
    dbt target (`target.name`); prod is the target named by `vulcan_prod_target` (default
    `prod`). Intervals are recorded against the physical table, so every environment on a
    version shares them; which physical table each environment's view points at is recorded in
    the state log too (`pointer` rows, environments/resolve.sql).

    Without the var nothing here runs: the same tables and statements as without it. -#}

{#- Whether the virtual layer is on (var `vulcan_virtual`: true / false, or their strings). -#}
{% macro vulcan_virtual() %}
  {%- set on = var('vulcan_virtual', false) -%}
  {{ return(on is sameas true or (on is string and on | lower in ('true', 'yes', '1'))) }}
{% endmacro %}

{#- The environment of this invocation: the dbt target's name, lower case. -#}
{% macro vulcan_environment() %}
  {{ return(target.name | string | lower) }}
{% endmacro %}

{#- The prod environment's name (var `vulcan_prod_target`, default `prod`), lower case. -#}
{% macro vulcan_prod_environment() %}
  {{ return(var('vulcan_prod_target', 'prod') | string | lower) }}
{% endmacro %}

{#- The schema of the physical tables (var `vulcan_physical_schema`, default `vulcan_physical`),
    a name, never SQL. On type: databricks it is in the target's catalog. -#}
{% macro vulcan_physical_schema() %}
  {%- set schema = var('vulcan_physical_schema', 'vulcan_physical') | string -%}
  {%- if not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', schema) -%}
    {{ exceptions.raise_compiler_error('vulcan_physical_schema: ' ~ (schema | tojson) ~ ' is not a schema name (letters, digits and _, not starting with a digit)') }}
  {%- endif -%}
  {{ return(schema | lower) }}
{% endmacro %}

{#- The first instant a non-prod environment backfills new versions from (var
    `vulcan_dev_start`: a date or timestamp, or `N days` / `N hours` before the execution
    time), as a naive UTC datetime; none in prod or when the var is not set. -#}
{% macro vulcan_dev_start(execution_time) %}
  {%- set raw = var('vulcan_dev_start', none) -%}
  {%- if raw is none or raw == '' or dbt_vulcan.vulcan_environment() == dbt_vulcan.vulcan_prod_environment() -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set relative = modules.re.match('^\\s*(\\d+)\\s*(day|days|hour|hours)\\s*$', raw | string | lower) -%}
  {%- if relative -%}
    {%- set n = relative.group(1) | int -%}
    {%- set delta = modules.datetime.timedelta(days=n) if relative.group(2).startswith('day') else modules.datetime.timedelta(hours=n) -%}
    {%- set floor = modules.datetime.datetime(execution_time.year, execution_time.month, execution_time.day) if relative.group(2).startswith('day') else execution_time.replace(minute=0, second=0, microsecond=0) -%}
    {{ return(floor - delta) }}
  {%- endif -%}
  {%- set parsed = dbt_vulcan.vulcan_cfg_parse_time(raw, 'vulcan_dev_start', false) -%}
  {%- if parsed.error -%}
    {{ exceptions.raise_compiler_error('vulcan_dev_start: ' ~ parsed.error ~ " (or 'N days' / 'N hours' before the execution time)") }}
  {%- endif -%}
  {{ return(parsed.time) }}
{% endmacro %}

{#- Whether a node is a model the virtual layer versions: a dbt-vulcan kind (every kind has a
    table; dbt's own materializations stay dbt's). -#}
{% macro vulcan_is_virtual_node(node) %}
  {{ return(node.get('resource_type') == 'model' and dbt_vulcan.vulcan_node_config(node).get('materialized') in dbt_vulcan.vulcan_kinds()) }}
{% endmacro %}

{#- The physical table's base name of a model (its name, and `_v<N>` for a versioned model):
    the same in every target, whatever schema or alias the target gives the model. -#}
{% macro vulcan_physical_base(node) %}
  {%- set name = node.name | string | lower -%}
  {%- if node.get('version') is not none -%}{%- set name = name ~ '_v' ~ (node.version | string | lower) -%}{%- endif -%}
  {{ return(modules.re.sub('[^a-z0-9_]', '_', name)) }}
{% endmacro %}

{#- A physical table of a model: `<schema>.<base>__<version>`, shared by every environment, or
    `<schema>.<base>__<version>__<environment>`, one environment's own (`env` given). Each has a
    second table, `_b` after the version (`aside`): a rebuild of a table some view shows is
    built there and swapped in when complete, and the next such rebuild goes back to the first
    (environments/rebuild.sql). -#}
{% macro vulcan_physical_relation(node, version, env=none, aside=false) %}
  {%- set identifier = dbt_vulcan.vulcan_physical_base(node) ~ '__' ~ version ~ ('_b' if aside else '') -%}
  {%- if env -%}{%- set identifier = identifier ~ '__' ~ modules.re.sub('[^a-z0-9_]', '_', env | string | lower) -%}{%- endif -%}
  {{ return(api.Relation.create(schema=dbt_vulcan.vulcan_physical_schema(), identifier=identifier, type='table')) }}
{% endmacro %}

{#- The state log's key of a model's pointer rows (which physical table each environment's
    view points at): `<physical schema>.<base>`, beside its versions' keys. -#}
{% macro vulcan_pointer_key(node) %}
  {{ return(dbt_vulcan.vulcan_state_key(none, dbt_vulcan.vulcan_physical_schema(), dbt_vulcan.vulcan_physical_base(node))) }}
{% endmacro %}
