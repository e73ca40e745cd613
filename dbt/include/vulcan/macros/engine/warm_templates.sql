{#- dbt-core's template cache (dbt_common's TemplateCache) compiles a macro on its first call,
    and has no lock. When several threads start dbt-vulcan models at once, every one compiles
    the same templates (a steady run calls about 75 KB of Jinja, and compiling holds Python's
    GIL): in a daily job of 25 models on eight threads, each model of the first wave waited
    about ten seconds between its state read and its write (measured with
    benchmarks/job.py). The package's on-run-start hook (vulcan_on_run_start) therefore
    compiles the run path's templates once, in the main thread, before the threads start,
    whenever a selected model is a dbt-vulcan one (a single model's compile is then counted in
    the process's wall, not in the model's time); with `rebuild` (a --full-refresh), also
    the templates a rebuild adds.

    Only on dbt-core, where a package's macro has `get_template` (dbt v2 compiles its own
    way). In the `vulcan` adapter the same call reads the compiled code from its disk cache. -#}
{% macro vulcan_warm_templates(rebuild=false) %}
  {%- for name in dbt_vulcan.vulcan_run_path_macros() + (dbt_vulcan.vulcan_rebuild_path_macros() if rebuild else []) -%}
    {%- set macro = dbt_vulcan[name] -%}
    {%- if macro.get_template is defined -%}
      {%- do macro.get_template() -%}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}

{#- The macros a steady run of a model calls on every kind: the engine, the planner, the state
    log, the settings and the time tokens (what `benchmarks/jinja_profile.py --mode package`
    lists as compiled by a one-day run, without the time-range kind's own macros). JSON data,
    so that the list itself costs no compile; a unit test checks every name is a macro of the
    package. A name missing here costs only time: the macro compiles where it is called. -#}
{% macro vulcan_run_path_macros() %}
  {%- set names -%}
["default__vulcan_check_extras", "default__vulcan_python_release", "vulcan_adopt_existing",
"vulcan_all_time", "vulcan_audit_stage_relation", "vulcan_batch_query", "vulcan_begin",
"vulcan_cfg_parse_time", "vulcan_check_audits", "vulcan_check_extras",
"vulcan_check_safety_once", "vulcan_config_keys", "vulcan_contract_enforced",
"_vulcan_contract_order", "vulcan_contract_projection", "vulcan_contract_query",
"vulcan_contract_signature", "vulcan_create_state_table", "vulcan_cron_last_tick",
"_vulcan_cron_month_days", "_vulcan_cron_time", "vulcan_default_file_format", "vulcan_due_end",
"_vulcan_filter_literal", "vulcan_fingerprint", "vulcan_fold_state", "vulcan_format_ts",
"vulcan_held_back_message", "vulcan_timestamp_partitions", "vulcan_kinds", "vulcan_layout", "vulcan_lists_stages",
"_vulcan_log_batch", "vulcan_log_details", "vulcan_log_read", "_vulcan_log_rows",
"default___vulcan_log_rows", "_vulcan_log_sql", "vulcan_log_summary",
"vulcan_materialize", "vulcan_micros", "vulcan_model_plan", "vulcan_model_query",
"vulcan_invocation_reads", "default__vulcan_invocation_reads", "vulcan_model_state", "vulcan_nearest_models", "vulcan_node_config", "vulcan_on_run_start", "vulcan_output_filter",
"vulcan_parse_ts", "vulcan_pending_stages", "_vulcan_plan_bounds", "_vulcan_plan_datetime",
"_vulcan_plan_end_us", "_vulcan_plan_gaps", "_vulcan_plan_hold_back", "_vulcan_plan_index",
"_vulcan_plan_int", "vulcan_plan_intervals", "_vulcan_plan_k", "_vulcan_plan_micros",
"_vulcan_plan_start_of", "_vulcan_plan_start_us", "_vulcan_plan_time", "_vulcan_point_tokens",
"vulcan_prepare_target", "vulcan_python_release", "vulcan_quote_identifier",
"_vulcan_range_label", "vulcan_ranges_add", "vulcan_ranges_cut", "vulcan_ranges_merge",
"vulcan_record_intervals", "vulcan_recorded_settings", "vulcan_refresh_state",
"vulcan_relation_key", "vulcan_release", "vulcan_render_tokens", "vulcan_repr",
"vulcan_run_batches", "vulcan_run_vars", "vulcan_safety_key", "vulcan_schema_query",
"vulcan_settings_key", "vulcan_settle_writes", "vulcan_sql_string", "vulcan_stage_relation",
"vulcan_state_append_id", "_vulcan_state_append", "default___vulcan_state_append",
"vulcan_state_columns", "vulcan_state_file_format",
"vulcan_state_fold_rows", "_vulcan_state_insert_body", "_vulcan_state_insert_head",
"vulcan_state_key",
"vulcan_state_relation", "_vulcan_state_row", "vulcan_state_values", "vulcan_strategy_macro",
"vulcan_strftime_format", "_vulcan_summary", "vulcan_tags", "vulcan_time_literal",
"vulcan_time_tokens", "_vulcan_unit_add", "vulcan_unit_floor", "vulcan_unit_geometry",
"vulcan_upstream_keys", "vulcan_upstream_models", "vulcan_upstream_waits"]
  {%- endset -%}
  {{ return(fromjson(names)) }}
{% endmacro %}

{#- The macros a rebuild (a new table, a --full-refresh) adds to a steady run's: the query's
    columns checked and described, the table created empty. -#}
{% macro vulcan_rebuild_path_macros() %}
  {%- set names -%}
["vulcan_query_columns", "_vulcan_described_columns", "vulcan_check_columns",
"vulcan_time_type", "vulcan_partition_key", "vulcan_create_empty_table",
"default__vulcan_create_empty_table", "_vulcan_parquet_dynamic", "vulcan_column_sql",
"vulcan_type_sql", "vulcan_cluster_by_clause", "vulcan_location_clause",
"default__vulcan_location_clause", "vulcan_contract_constraints", "vulcan_columns_digest"]
  {%- endset -%}
  {{ return(fromjson(names)) }}
{% endmacro %}
