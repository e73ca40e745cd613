{#- Shared by every materializing kind: refuse a --full-refresh the model forbids, and when
    (re)building, reset the model's intervals in the state log and create the empty table
    (delta/iceberg atomically replace an existing table; parquet drops and recreates it).
    Returns true when the table was (re)created. -#}

{#- The start of every materializing kind: the validated config (every problem at once, before
    anything runs), the target, the existing relation, and whether the run rebuilds the table
    (none yet, a --full-refresh the model allows, or a view in its place). A swap that a
    killed run left half done is replayed first (utils/stage.sql). -#}
{% macro vulcan_begin(kind) %}
  {%- set cfg = dbt_vulcan.vulcan_settings(model, kind) -%}
  {% do dbt_vulcan.vulcan_check_extras(cfg) %}
  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set full_refresh = should_full_refresh() and existing_relation is not none -%}
  {% do dbt_vulcan.vulcan_check_full_refresh(cfg, full_refresh) %}
  {%- if existing_relation is not none and existing_relation.type == 'table' -%}
    {% do dbt_vulcan.vulcan_recover_interrupted_write(this.incorporate(type='table'), cfg) %}
  {%- endif -%}
  {{ return({
    'cfg': cfg,
    'target_relation': this.incorporate(type='table'),
    'existing_relation': existing_relation,
    'rebuild': existing_relation is none or full_refresh or existing_relation.type != 'table',
  }) }}
{% endmacro %}

{% macro vulcan_check_full_refresh(cfg, full_refresh) %}
  {%- if full_refresh and cfg.forward_only -%}
    {{ exceptions.raise_compiler_error("Model '" ~ model.name ~ "' is forward_only: --full-refresh would rebuild its history. Restate a range instead (vulcan_restate), or set forward_only: false.") }}
  {%- endif -%}
  {%- if full_refresh and cfg.disable_restatement -%}
    {{ exceptions.raise_compiler_error("Model '" ~ model.name ~ "' has disable_restatement: true: --full-refresh would erase its history. Set disable_restatement: false to allow a reset.") }}
  {%- endif -%}
{% endmacro %}

{% macro vulcan_prepare_target(relation, existing_relation, rebuild, plan, cfg, schema_sql) %}
  {%- if not rebuild -%}{{ return(false) }}{%- endif -%}
  {%- if plan.has_state -%}
    {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_state_values(relation, [plan.all_time], 'removed', plan.fingerprint, tojson({'reset': true}))) %}
  {%- endif -%}
  {%- set replace = existing_relation is not none and existing_relation.type == 'table' and cfg.file_format in ('delta', 'iceberg') -%}
  {%- if existing_relation is not none and not replace -%}
    {% do adapter.drop_relation(existing_relation) %}
  {%- endif -%}
  {% do dbt_vulcan.vulcan_create_empty_table(relation, schema_sql, cfg, replace=replace) %}
  {{ return(true) }}
{% endmacro %}

{#- What the plain package (stock dbt-spark / dbt-databricks) cannot run, refused with one clear
    error before anything is touched: Python models of dbt-vulcan's kinds (they run in the
    adapter's embedded SparkSession). Both modes check the model's audits and grains here
    (utils/audit_parse.sql): every problem at once, before anything is written. -#}
{% macro vulcan_check_extras(cfg) %}{{ return(adapter.dispatch('vulcan_check_extras', 'dbt_vulcan')(cfg)) }}{% endmacro %}

{% macro default__vulcan_check_extras(cfg) %}
  {%- if model.language == 'python' -%}
    {{ exceptions.raise_compiler_error("Model '" ~ cfg.model ~ "': Python models need the `vulcan` adapter (type: vulcan) in this release; the dbt_vulcan package on type: " ~ adapter.type() ~ " runs every kind as SQL (see README, \"Install as a dbt package\"). Nothing was run.") }}
  {%- endif -%}
  {% do dbt_vulcan._vulcan_check_audits(cfg) %}
{% endmacro %}

{% macro vulcan__vulcan_check_extras(cfg) %}
  {% do dbt_vulcan._vulcan_check_audits(cfg) %}
{% endmacro %}
