{#- The life of a model run, written once for every kind. A kind's materialization
    (kinds/<kind>/) calls `vulcan_materialize(kind, steps)`; `steps` holds what differs:

      strategy         the write strategy's kind: `vulcan_<strategy>_<file_format>` writes each
                       batch (engine/strategy.sql finds it)
      action           the word of the per-batch progress line ('insert', 'upsert', ...)
      validate(cfg)    optional: the kind's own config checks that need no query, before the
                       pre-hooks (bad input raises before anything is touched)
      run_vars(cfg)    optional: the run's vars as the kind reads them (default: the run's)
      check(cfg, begin, plan, schema_sql)
                       the kind's checks of the query's columns; returns a dict:
                         query_columns  the columns a schema change compares with the table
                                        (none: not read; the schema is then left as it is)
                         time_type      the time column's type the batches render with
                         create_sql     optional: the SQL whose columns a new table gets
                                        (default: the model's query, with its contract)
                         extra          optional: the kind's own per-run values for its strategy
      adopt_after_check
                       true when the config must be checked against the query before the
                       existing table's recorded layout is compared with it (time range: the
                       time column sets the default partitioning)
      safety           true when the run goes through the static safety analysis (safety/)
      schema_change    'on_change' (only when the model's definition changed) or 'every_run'
                       (a `select *` model sees its source's new columns without a change)
      project(cfg, relation, created, projection)
                       optional: the columns the batches insert in the table's order (default:
                       an enforced contract's order, engine/contract.sql)

    The order is the same for every kind: begin (state read, config validated, an interrupted
    swap replayed) -> validate -> pre-hooks -> plan -> contract -> the query's columns checked
    -> an existing table adopted or refused -> a Delta table's TIMESTAMP partitions
    checked against the session's time zone -> safety -> the target (re)created, or its
    clustering altered -> its Unity Catalog tags set -> schema change
    -> projection -> batches (each written, then recorded) -> grants -> docs -> OPTIMIZE (a
    clustered or Z-ordered Delta table) -> post-hooks. Everything that can be
    refused is refused before the target is touched. -#}
{% macro vulcan_materialize(kind, steps) %}
  {%- set begin = dbt_vulcan.vulcan_begin(kind) -%}
  {#- the virtual layer: another environment on prod's version writes nothing (environments/) -#}
  {%- if begin.get('reuse') -%}{{ return(dbt_vulcan.vulcan_virtual_reuse(begin)) }}{%- endif -%}
  {%- set cfg, target_relation = begin.cfg, begin.target_relation -%}
  {%- if steps.get('validate') -%}{% do steps.validate(cfg) %}{%- endif -%}

  {{ run_hooks(pre_hooks) }}
  {%- set run = steps.run_vars(cfg) if steps.get('run_vars') else none -%}
  {%- set plan = dbt_vulcan.vulcan_model_plan(cfg, target_relation, begin.rebuild, model, run, begin.state) -%}
  {%- if not steps.get('adopt_after_check') -%}
    {%- set plan = dbt_vulcan.vulcan_adopt_existing(cfg, begin, plan, run) -%}
  {%- endif -%}
  {#- a rebuild of a table some environment's view shows: written beside it, swapped in when
      complete (environments/rebuild.sql) -#}
  {%- set plan = dbt_vulcan.vulcan_virtual_rebuild_aside(begin, plan) -%}
  {%- set target_relation = begin.target_relation -%}
  {#- an enforced contract checked against the query (dbt's contract error), before anything
      is touched; the table is then created with the contract's columns (engine/contract.sql) -#}
  {%- set schema_sql = dbt_vulcan.vulcan_contract_query(dbt_vulcan.vulcan_model_query(kind, cfg, plan)) -%}
  {%- set checked = steps.check(cfg, begin, plan, schema_sql) -%}
  {%- if steps.get('adopt_after_check') -%}
    {%- set plan = dbt_vulcan.vulcan_adopt_existing(cfg, begin, plan, run) -%}
  {%- endif -%}
  {#- a Delta table partitioned by a TIMESTAMP column is written only where Delta stores its
      partition values right (engine/delta_time_zone.sql); the columns ride on the run's rows -#}
  {%- if plan.batches and not flags.EMPTY -%}
    {%- set stamped = dbt_vulcan.vulcan_timestamp_partitions(cfg, plan, checked.get('query_columns'), target_relation, begin.existing_relation) -%}
    {%- if stamped is not none -%}
      {%- do plan.update({'timestamp_partitions': stamped}) -%}
      {% do dbt_vulcan.vulcan_check_delta_time_zone(cfg, stamped) %}
    {%- endif -%}
  {%- endif -%}
  {#- the static safety analysis of the SQL (sqlglot in the adapter, tokens in the package):
      refusals raise here, once per definition (safety/safety.sql); not under --empty (dbt
      then rewrites every ref to `... limit 0`, and nothing is written) -#}
  {%- if steps.get('safety') and not flags.EMPTY -%}
    {% do dbt_vulcan.vulcan_check_safety_once(cfg, compiled_code, plan) %}
  {%- endif -%}

  {%- set created = dbt_vulcan.vulcan_prepare_target(target_relation, begin.existing_relation, plan.rebuild, plan, cfg, checked.get('create_sql') or schema_sql, checked) -%}
  {#- an existing table whose recorded clustering is not the config's: one ALTER TABLE, no
      rebuild, once everything has been checked (engine/clustering.sql) -#}
  {%- set had = plan.layout.get('clustered_by', []) if plan.get('layout') is mapping else [] -%}
  {%- if not created and plan.has_state and had != dbt_vulcan.vulcan_layout(cfg).get('clustered_by', []) -%}
    {% do dbt_vulcan.vulcan_alter_clustering(target_relation, cfg, had) %}
  {%- endif -%}
  {#- Unity Catalog tags: all of them on a table just created, else those added or changed
      since the log recorded them (engine/tags.sql) -#}
  {%- set tags = dbt_vulcan.vulcan_tags(cfg) -%}
  {%- if tags -%}
    {%- set recorded = plan.layout.get('tags') if plan.get('layout') is mapping and plan.has_state and not created else none -%}
    {% do dbt_vulcan.vulcan_apply_tags(target_relation, tags, recorded or {}) %}
  {%- endif -%}
  {%- set projection = none -%}
  {%- if created and checked.get('query_columns') is not none and not checked.get('create_sql') -%}
    {#- the new table has the query's columns: their digest rides on the run's state rows, so
        the next run of this definition reads no table columns (engine/schema_change.sql) -#}
    {%- do plan.update({'columns': dbt_vulcan.vulcan_columns_digest(checked.query_columns)}) -%}
  {%- endif -%}
  {%- if not created and checked.get('query_columns') is not none and (steps.get('schema_change') == 'every_run' or plan.fingerprint_changed) -%}
    {%- set projection = dbt_vulcan.vulcan_apply_schema_change(target_relation, checked.query_columns, cfg, plan) -%}
  {%- endif -%}
  {%- set project = steps.get('project') or dbt_vulcan._vulcan_contract_order -%}
  {%- set projection = project(cfg, target_relation, created, projection) -%}

  {%- set held = plan.get('held') -%}
  {%- if held and held.intervals -%}{{ log(dbt_vulcan.vulcan_held_back_message(cfg, held), info=True) }}{%- endif -%}
  {%- set extra = {'created': created} -%}
  {%- do extra.update(checked.get('extra') or {}) -%}
  {%- if begin.state.virtual is not none and dbt_vulcan.vulcan_reads_itself(model) -%}
    {#- a model reading itself (`{{ this }}`, its view) reads the table it writes: the view
        points there before the batches (environments/view.sql) -#}
    {%- do dbt_vulcan.vulcan_point_view(begin, true) -%}
  {%- endif -%}
  {%- set written = dbt_vulcan.vulcan_run_batches(kind, steps.strategy, target_relation, plan, cfg, checked.get('time_type'), projection, steps.action, extra) -%}
  {#- as dbt-spark's and dbt-databricks' own materializations end: dbt's `grants` (revoking
      what the config no longer grants, unless the table is new), the docs (`persist_docs`),
      OPTIMIZE of a clustered or Z-ordered Delta table after a run that wrote
      (engine/clustering.sql), then the post-hooks -#}
  {% do apply_grants(target_relation, config.get('grants'), should_revoke(begin.existing_relation, full_refresh_mode=created)) %}
  {% do persist_docs(target_relation, model) %}
  {%- if cfg.get('liquid_clustered_by') or cfg.get('auto_liquid_cluster') or cfg.get('zorder') -%}
    {% do dbt_vulcan.vulcan_optimize(target_relation, cfg, written | length > 0) %}
  {%- endif -%}
  {%- set relations = [target_relation] -%}
  {%- if begin.state.virtual is not none -%}
    {#- the view over the physical table, once its rows are complete for this run: a run
        stopped before here leaves the view on the version it had (environments/view.sql) -#}
    {%- set refresh = created or plan.fingerprint_changed or steps.get('schema_change') == 'every_run' -%}
    {%- set view = dbt_vulcan.vulcan_point_view(begin, refresh) -%}
    {% do apply_grants(view, config.get('grants'), should_revoke(begin.view_existing, full_refresh_mode=begin.view_existing is none)) %}
    {%- do relations.append(view) -%}
    {%- if not written and not created and begin.state.virtual.resolved.pointer != begin.state.virtual.resolved.key -%}
      {% do store_raw_result('main', message='reused ' ~ begin.state.virtual.resolved.key, code='OK', rows_affected=-1) %}
    {%- endif -%}
  {%- endif -%}
  {{ run_hooks(post_hooks) }}
  {{ return({'relations': relations}) }}
{% endmacro %}

{% macro _vulcan_contract_order(cfg, relation, created, projection) %}
  {{ return(dbt_vulcan.vulcan_contract_projection(relation, created, projection)) }}
{% endmacro %}
