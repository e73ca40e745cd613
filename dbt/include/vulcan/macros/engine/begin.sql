{#- The start of every materializing kind: the relation's log rows and the validated config
    (planning/model_state.sql: every problem at once, before anything is written), the target,
    the existing relation, and whether the run rebuilds the table (none yet, a --full-refresh
    the model allows, or a view in its place). A swap that a killed run left half done is
    replayed first (engine/stage.sql; it records nothing, so the rows read before stay true),
    then a write it left unrecorded is settled (engine/write_check.sql; the rows it records
    are added to those read). -#}
{% macro vulcan_begin(kind) %}
  {%- set state = dbt_vulcan.vulcan_model_state(model, kind, this) -%}
  {%- set cfg = state.cfg -%}
  {% do dbt_vulcan.vulcan_check_extras(cfg) %}
  {%- set tags = dbt_vulcan.vulcan_tags(cfg) -%}
  {%- if tags -%}{% do dbt_vulcan.vulcan_check_tags(cfg, tags, this) %}{%- endif -%}
  {%- if state.virtual is none -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set view_existing = none -%}
    {#- the virtual layer turned off explicitly: a model its view served gets its table back
        (engine/virtual_adopt.sql) -#}
    {%- if var('vulcan_virtual', none) is not none and (existing_relation is none or existing_relation.type == 'view' or not state.rows) -%}
      {%- set reversed = dbt_vulcan.vulcan_virtual_reverse(model, target_relation, existing_relation, cfg) -%}
      {%- if reversed is not none -%}
        {%- do state.update({'rows': reversed}) -%}
        {%- set existing_relation = target_relation -%}
      {%- endif -%}
    {%- endif -%}
  {%- else -%}
    {#- the virtual layer: the model's rows in its version's physical table, `this` its view
        (environments/); a version prod's view points at is only read by another environment -#}
    {%- set target_relation = state.virtual.resolved.relation -%}
    {%- set view_existing = load_cached_relation(this) -%}
    {%- if view_existing is not none and view_existing.type != 'view' -%}
      {#- a table built without the virtual layer: adopted as its version's (engine/virtual_adopt.sql) -#}
      {%- do state.update({'rows': dbt_vulcan.vulcan_virtual_adopt(view_existing, target_relation, state.by_key.get(dbt_vulcan.vulcan_relation_key(this), []), state.rows, cfg)}) -%}
      {%- set view_existing = this.incorporate(type='view') -%}
    {%- endif -%}
    {%- set existing_relation = dbt_vulcan.vulcan_physical_existing(target_relation, state.rows) -%}
    {%- if state.virtual.resolved.reuse and existing_relation is not none -%}
      {{ return({'cfg': cfg, 'state': state, 'target_relation': target_relation, 'existing_relation': existing_relation, 'rebuild': false, 'reuse': true, 'view_existing': view_existing}) }}
    {%- endif -%}
    {%- set cfg = dbt_vulcan.vulcan_windowed_cfg(cfg, state.virtual.ctx) -%}
  {%- endif -%}
  {%- set full_refresh = should_full_refresh() and existing_relation is not none and dbt_vulcan.vulcan_full_refresh(cfg) -%}
  {#- the stages a stopped run may have left are looked for every run, or while the log names
      one (engine/stage.sql) -#}
  {%- set named = none if dbt_vulcan.vulcan_lists_stages(cfg) else dbt_vulcan.vulcan_pending_stages(state.rows) -%}
  {%- if existing_relation is not none and existing_relation.type == 'table' -%}
    {%- set replayed = dbt_vulcan.vulcan_recover_interrupted_write(target_relation, cfg, named) if named != [] else [] -%}
    {#- a write a stopped run left unrecorded: recorded, or due again (engine/write_check.sql) -#}
    {% do dbt_vulcan.vulcan_settle_writes(target_relation, cfg, state.rows, replayed) %}
  {%- elif state.rows and named != [] -%}
    {#- the log knows the model but its table is gone (dropped by hand, a view in its place):
        a stage a stopped run left beside the old table is dropped, never replayed over the
        table this run builds -#}
    {%- for stale in dbt_vulcan.vulcan_stale_stages(target_relation) -%}
      {% do adapter.drop_relation(stale) %}
    {%- endfor -%}
  {%- endif -%}
  {%- set rebuild = existing_relation is none or full_refresh or existing_relation.type != 'table' -%}
  {#- everything checked: a long log is folded (state/fold.sql). The plan is made from the rows
      read, which replay as the folded ones do; the folded log may have lost the row that
      recorded the settings, so this run records them -#}
  {%- if dbt_vulcan.vulcan_fold_state(state.key, state.rows, cfg.model, rebuild) and state.record is none -%}
    {%- do state.update({'record': {'settings': toyaml(cfg), 'cron': state.cron}}) -%}
  {%- endif -%}
  {{ return({
    'cfg': cfg,
    'state': state,
    'target_relation': target_relation,
    'existing_relation': existing_relation,
    'rebuild': rebuild,
    'view_existing': view_existing,
  }) }}
{% endmacro %}

{#- Whether a --full-refresh asked for (of an existing table) rebuilds the model. A model that keeps its history
    (forward_only, disable_restatement: SCD type 2 by default) follows dbt's convention for
    `full_refresh: false`: a --full-refresh of the whole project (nightly or CI jobs) runs it
    incrementally, and one line says why. It fails only when the model's own config asks for
    both (`full_refresh: true`). -#}
{% macro vulcan_full_refresh(cfg) %}
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

{#- What the plain package (stock dbt-spark / dbt-databricks) cannot run, refused with one clear
    error before anything is touched: Python models of dbt-vulcan's kinds (they run in the
    adapter's embedded SparkSession). Both modes check the model's audits and grains here
    (audits/audit_parse.sql): every problem at once, before anything is written. -#}
{% macro vulcan_check_extras(cfg) %}{{ return(adapter.dispatch('vulcan_check_extras', 'dbt_vulcan')(cfg)) }}{% endmacro %}

{% macro default__vulcan_check_extras(cfg) %}
  {%- if model.language == 'python' -%}
    {{ exceptions.raise_compiler_error("Model '" ~ cfg.model ~ "': Python models need the `vulcan` adapter (type: vulcan) in this release; the dbt_vulcan package on type: " ~ adapter.type() ~ " runs every kind as SQL (see README, \"Install as a dbt package\"). Nothing was run.") }}
  {%- endif -%}
  {% do dbt_vulcan.vulcan_check_audits(cfg) %}
{% endmacro %}

{% macro vulcan__vulcan_check_extras(cfg) %}
  {% do dbt_vulcan.vulcan_check_audits(cfg) %}
{% endmacro %}

{#- The layout a run writes into, recorded with every processed row (run_batches) and compared
    with the config on the next run: {file_format, partitioned_by} (lowercase), `clustered_by`
    for a clustered table (engine/clustering.sql) and `tags` for a tagged one (engine/tags.sql). -#}
{% macro vulcan_layout(cfg) %}
  {%- set layout = {'file_format': cfg.file_format, 'partitioned_by': (cfg.partition_cols or []) | map('lower') | list} -%}
  {%- if cfg.get('liquid_clustered_by') or cfg.get('auto_liquid_cluster') -%}
    {%- do layout.update({'clustered_by': dbt_vulcan.vulcan_clustering(cfg)}) -%}
  {%- endif -%}
  {%- set tags = dbt_vulcan.vulcan_tags(cfg) -%}
  {%- if tags -%}{%- do layout.update({'tags': tags}) -%}{%- endif -%}
  {{ return(layout) }}
{% endmacro %}

{#- An existing table is only ever written in the layout this kind created it with, so no write
    strategy can replace the wrong rows (a parquet INSERT OVERWRITE of an unpartitioned table
    replaces all of it) or keep rows a clean build would not have:
    - a table the state log knows nothing of (built by another materialization, e.g. a model
      converted from `table`, or its state reset) is rebuilt as this kind's own on this run,
      with one line saying so; a model that keeps history (forward_only, disable_restatement:
      SCD type 2 by default) stops instead, unless the table holds no history (it is empty,
      e.g. a first run killed after creating it, or an SCD type 2 table lacks its valid_to
      column);
    - a table whose recorded layout (file format, partition columns) differs from what the
      config now asks stops before anything is written: --full-refresh rebuilds it (a
      different clustering is altered in place when the target is prepared:
      engine/materialize.sql).
    Returns the run's plan (planned again as a rebuild when the table is adopted). -#}
{% macro vulcan_adopt_existing(cfg, begin, plan, run=none) %}
  {%- set existing = begin.existing_relation -%}
  {%- if plan.rebuild or existing is none -%}{{ return(plan) }}{%- endif -%}
  {%- if plan.has_state -%}
    {%- set recorded = plan.layout -%}
    {%- set wanted = dbt_vulcan.vulcan_layout(cfg) -%}
    {%- if recorded is mapping and recorded and (recorded.get('file_format') != wanted.file_format or recorded.get('partitioned_by') != wanted.partitioned_by) -%}
      {% do dbt_vulcan._vulcan_layout_changed(cfg, begin, recorded, wanted) %}
    {%- endif -%}
    {{ return(plan) }}
  {%- endif -%}
  {{ return(dbt_vulcan._vulcan_adopt_unlogged(cfg, begin, run)) }}
{% endmacro %}

{#- The error of a table whose recorded layout is not the config's (its own macro: a steady run
    compiles none of it). -#}
{% macro _vulcan_layout_changed(cfg, begin, recorded, wanted) %}
  {%- set shown = recorded.get('file_format') ~ ', partitioned by (' ~ (recorded.get('partitioned_by') or []) | join(', ') ~ ')' -%}
  {{ exceptions.raise_compiler_error("Model '" ~ cfg.model ~ "' (" ~ cfg.kind ~ "): the existing table " ~ begin.target_relation ~ " is " ~ shown ~ ", but its config now asks for " ~ wanted.file_format ~ ", partitioned by (" ~ wanted.partitioned_by | join(', ') ~ "): writing into it in the new layout could replace or keep the wrong rows. Nothing was written. Rebuild it with --full-refresh (recomputes the whole table), or restore file_format / partitioned_by.") }}
{% endmacro %}

{#- An existing table the log knows nothing of: rebuilt as this kind's own (the plan of a
    rebuild), or refused when it may hold history. Its own macro: a run with state compiles
    none of it. -#}
{% macro _vulcan_adopt_unlogged(cfg, begin, run) %}
  {%- set relation = begin.target_relation -%}
  {%- set where = "Model '" ~ cfg.model ~ "' (" ~ cfg.kind ~ "): the existing table " ~ relation -%}
  {%- set keeps_history = cfg.forward_only or cfg.disable_restatement -%}
  {%- if keeps_history and cfg.kind in ('scd_type_2_by_time', 'scd_type_2_by_column') -%}
    {%- set names = adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list -%}
    {%- set keeps_history = (cfg.valid_to_name | lower) in names -%}
  {%- endif -%}
  {#- an empty table holds nothing to keep (e.g. a first run killed after creating it) -#}
  {%- if keeps_history and run_query('select 1 from ' ~ relation ~ ' limit 1').rows | length == 0 -%}
    {%- set keeps_history = false -%}
  {%- endif -%}
  {%- if keeps_history -%}
    {%- set key = 'forward_only' if cfg.forward_only else 'disable_restatement' -%}
    {{ exceptions.raise_compiler_error(where ~ " has no dbt-vulcan state (it was built by another materialization, or its state was reset), and " ~ key ~ " is true, so it is not rebuilt: its rows may be history a rebuild cannot recompute. Nothing was written. To build it as " ~ cfg.kind ~ ", drop the table, or run once with --full-refresh and " ~ key ~ ": false.") }}
  {%- endif -%}
  {{ log("Model '" ~ cfg.model ~ "': " ~ relation ~ " exists but has no dbt-vulcan state (built by another materialization, or its state was reset); rebuilding it as " ~ cfg.kind ~ ".", info=True) }}
  {{ return(dbt_vulcan.vulcan_model_plan(cfg, relation, true, model, run, begin.state)) }}
{% endmacro %}
