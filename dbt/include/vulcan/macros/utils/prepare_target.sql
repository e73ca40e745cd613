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
  {%- set full_refresh = dbt_vulcan.vulcan_full_refresh(cfg, should_full_refresh() and existing_relation is not none) -%}
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

{#- Whether a --full-refresh rebuilds the model. A model that keeps its history
    (forward_only, disable_restatement: SCD type 2 by default) follows dbt's convention for
    `full_refresh: false`: a --full-refresh of the whole project (nightly or CI jobs) runs it
    incrementally, and one line says why. It fails only when the model's own config asks for
    both (`full_refresh: true`). -#}
{% macro vulcan_full_refresh(cfg, requested) %}
  {%- if not requested -%}{{ return(false) }}{%- endif -%}
  {%- set reasons = [] -%}
  {%- if cfg.forward_only -%}{%- do reasons.append('forward_only: true') -%}{%- endif -%}
  {%- if cfg.disable_restatement -%}{%- do reasons.append('disable_restatement: true') -%}{%- endif -%}
  {%- if not reasons -%}{{ return(true) }}{%- endif -%}
  {%- set why = reasons | join(' and ') -%}
  {%- if config.get('full_refresh') is not none -%}
    {{ exceptions.raise_compiler_error("Model '" ~ cfg.model ~ "' sets full_refresh: true but has " ~ why ~ ": a full refresh would erase the history it keeps. Remove one of the two (to reset the history on purpose, set " ~ reasons[0].split(':')[0] ~ ': false).') }}
  {%- endif -%}
  {{ log("Model '" ~ cfg.model ~ "': --full-refresh skipped (" ~ why ~ ": its history is kept); it runs incrementally. Set " ~ reasons[0].split(':')[0] ~ ': false to allow a reset.', info=True) }}
  {{ return(false) }}
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
  {#- an enforced contract's constraints, on the empty table (utils/contract.sql) -#}
  {% do dbt_vulcan.vulcan_contract_constraints(relation, cfg) %}
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
