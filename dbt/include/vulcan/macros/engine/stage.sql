{#- Stage tables. Spark cannot overwrite a table that the same statement reads, and Delta
    cannot MERGE from a source that reads its own target, so a rewrite computes the new rows
    into a stage table `<table>__vulcan_stage_<run>` (or `__vulcan_changes_<run>`, or the
    tracked kind's `__vulcan_groups_<run>`) first.

    The name carries the dbt invocation: a run killed while creating a stage leaves files at a
    location no later run uses (Spark refuses to create a managed table where files are).

    A stage that holds the table's complete new content is marked with the table property
    `vulcan.replay` (in its CREATE TABLE AS SELECT, so a stage that exists is complete) before
    the statement that swaps it in. That statement is the one a crash can interrupt half way
    (INSERT OVERWRITE of a parquet table deletes the old files before the job commits): the
    next run of the model finds the marked stage and replays the swap before anything else
    (`vulcan_recover_interrupted_write`). An unmarked stage left behind is only dropped: the
    table was not touched.

    Which runs look for stages a stopped run left: a kind that stages every batch (on parquet
    the unique key, SCD type 2 and tracked kinds, a time range table not partitioned by its
    time column, a partition query reading its own table; SCD type 2 by MERGE, and the tracked
    kind on every format) and a model with audits (a stage per batch) look every run. Every
    other kind stages only for a schema change's rewrite: before creating that stage, the run
    records a `staging` row naming it (vulcan_stage_intent), and later runs look only while
    one is pending (no `processed` or `abandoned` row after it, state/log.sql). They
    replay only the stages the pending rows name and drop any other stage found. A steady run
    of those kinds reads no listing. -#}

{% macro vulcan_stage_relation(relation, suffix='__vulcan_stage') %}
  {%- set run = invocation_id | replace('-', '') -%}
  {{ return(relation.incorporate(path={'identifier': relation.identifier ~ suffix ~ '_' ~ run[:12]}, type='table')) }}
{% endmacro %}

{#- `replay`: how to swap the stage in again after a crash ('overwrite' or 'rebuild'), or none
    when the stage does not hold the table's new content. -#}
{% macro vulcan_stage_create(stage, sql, file_format='parquet', replay=none) %}
  {% call statement('vulcan_stage') -%}
    create table {{ stage }} using {{ file_format }}
    {%- if replay %} tblproperties ('vulcan.replay' = '{{ replay }}'){% endif %} as
    {{ sql }}
  {%- endcall %}
{% endmacro %}

{% macro vulcan_stage_mark(stage, replay) %}
  {% call statement('vulcan_stage_mark') -%}
    alter table {{ stage }} set tblproperties ('vulcan.replay' = '{{ replay }}')
  {%- endcall %}
{% endmacro %}

{% macro vulcan_stage_drop(stage) %}
  {% call statement('vulcan_stage_drop') %}drop table if exists {{ stage }}{% endcall %}
{% endmacro %}

{#- Whether a run of the model looks for the stages a stopped run left on every run (see the
    top of this file), rather than only while a `staging` row is pending. -#}
{% macro vulcan_lists_stages(cfg) %}
  {%- set fmt = cfg.file_format -%}
  {%- set scd2 = cfg.kind in ('scd_type_2_by_time', 'scd_type_2_by_column') -%}
  {%- set every_batch = cfg.kind == 'tracked'
      or (scd2 and fmt != 'iceberg')
      or (fmt == 'parquet' and cfg.kind == 'incremental_by_unique_key')
      or (fmt == 'parquet' and cfg.kind == 'incremental_by_time_range' and cfg.time_column not in (cfg.partition_cols or []))
      or (fmt == 'parquet' and cfg.kind == 'incremental_by_partition' and this.render() in (compiled_code or '')) -%}
  {%- set audited = cfg.audits or cfg.grains or cfg.get('grains_audit') is not none -%}
  {{ return(true if every_batch or audited or fmt not in ('parquet', 'delta', 'iceberg') else false) }}
{% endmacro %}

{#- Before a stage is created by a model that does not look for stages every run: a `staging`
    row over the run's execution time, naming the stage (once per stage). -#}
{% macro vulcan_stage_intent(relation, stage, cfg, plan) %}
  {%- if dbt_vulcan.vulcan_lists_stages(cfg) -%}{{ return(none) }}{%- endif -%}
  {%- set details = tojson({'stage': stage.identifier | lower}) -%}
  {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_state_values(relation, [[plan.execution_time, plan.execution_time]], 'staging', plan.fingerprint, details)) %}
{% endmacro %}

{#- The stages (lower-case names) the log's pending `staging` rows name: `rows`, a relation's
    log in replay order. -#}
{% macro vulcan_pending_stages(rows) %}
  {%- if not (rows | selectattr('row_type', 'equalto', 'staging') | list) -%}{{ return([]) }}{%- endif -%}
  {%- set named = [] -%}
  {%- for row in dbt_vulcan.vulcan_log_summary(rows).pending_stages -%}
    {%- do named.append((dbt_vulcan.vulcan_log_details(row).get('stage') or '') | lower) -%}
  {%- endfor -%}
  {{ return(named) }}
{% endmacro %}

{#- Replace the rows of `args.relation` (all of them, or with dynamic partition overwrite the
    partitions the rows fall in) by `sql`, plus `add_sql`'s rows when given, through a parquet
    stage. `args`: a write strategy's (engine/run_batches.sql). -#}
{% macro vulcan_overwrite_from_stage(args, sql, add_sql=none) %}
  {%- set relation = args.relation -%}
  {%- set stage = dbt_vulcan.vulcan_stage_relation(relation) -%}
  {% do dbt_vulcan.vulcan_stage_intent(relation, stage, args.cfg, args.plan) %}
  {% do dbt_vulcan.vulcan_stage_create(stage, sql, replay=none if add_sql is not none else 'overwrite') %}
  {%- if add_sql is not none -%}
    {% call statement('vulcan_stage_add') -%}
      insert into {{ stage }} by name
      {{ add_sql }}
    {%- endcall %}
    {% do dbt_vulcan.vulcan_stage_mark(stage, 'overwrite') %}
  {%- endif -%}
  {% do dbt_vulcan.vulcan_swap_in_stage(relation, stage) %}
  {% do dbt_vulcan.vulcan_stage_drop(stage) %}
{% endmacro %}

{% macro vulcan_swap_in_stage(relation, stage) %}
  {% call statement('main') -%}
    insert overwrite table {{ relation }} by name select * from {{ stage }}
  {%- endcall %}
{% endmacro %}

{#- Run first by every materializing kind on an existing table: finish what a killed run left
    half done (see the top of this file), then drop its stages. Returns the names (lower case)
    of the stages whose swap it replayed (engine/write_check.sql: a write that committed).
    `named`: the stages the pending `staging` rows name (lower case), for a model that does not
    look every run: only those are replayed. -#}
{% macro vulcan_recover_interrupted_write(relation, cfg, named=none) %}
  {%- set replayed = [] -%}
  {%- for stale in dbt_vulcan.vulcan_stale_stages(relation) -%}
    {%- set replay = dbt_vulcan._vulcan_stage_replay_mode(stale) if named is none or (stale.identifier | lower) in named else none -%}
    {%- if replay -%}
      {#- the replay writes the table as the run would: refused where Delta would shift its
          TIMESTAMP partition values (engine/delta_time_zone.sql), the stage kept for a run
          in the JVM's zone -#}
      {% do dbt_vulcan.vulcan_check_delta_time_zone(cfg, dbt_vulcan.vulcan_timestamp_partitions(cfg, {}, none, relation, relation)) %}
      {%- do replayed.append(stale.identifier | lower) -%}
      {{ log('Warning: ' ~ relation ~ ': a previous run stopped while swapping in ' ~ stale ~ '; replaying that swap (' ~ replay ~ ') before this run. Its batch was not recorded and runs again.', info=True) }}
      {%- if replay == 'rebuild' -%}
        {% do dbt_vulcan._vulcan_rebuild_from_stage(relation, stale, cfg) %}
      {%- else -%}
        {#- a column `__vulcan_marker` flags rows that only name a partition to replace
            (the unique key strategy; `__vulcan_changed`, its flag of changed rows, is not a
            column of the table either): they are not written, and a partition they alone name
            is left empty by the batch: dropped first, as the batch would have (else a key
            that moved out of it would stay there too) -#}
        {%- set columns = adapter.get_columns_in_relation(stale) | map(attribute='name') | list -%}
        {%- set kept = [] -%}
        {%- for column in columns if column not in ('__vulcan_marker', '__vulcan_changed') -%}
          {%- do kept.append(adapter.quote(column)) -%}
        {%- endfor -%}
        {%- if '__vulcan_marker' in columns -%}
          {%- set partition_cols = dbt_vulcan.vulcan_table_layout(run_query('describe table extended ' ~ relation).rows).partition_cols -%}
          {%- if partition_cols -%}
            {%- set emptied = run_query(dbt_vulcan.vulcan_stage_emptied_partitions_sql(stale, partition_cols)).rows -%}
            {%- set drop_sql = dbt_vulcan.vulcan_drop_partitions_sql(relation, partition_cols, emptied) -%}
            {%- if drop_sql -%}
              {% call statement('vulcan_replay_drop_partitions') %}{{ drop_sql }}{% endcall %}
            {%- endif -%}
          {%- endif -%}
        {%- endif -%}
        {% call statement('vulcan_replay') -%}
          insert overwrite table {{ relation }} by name select {{ kept | join(', ') }} from {{ stale }}
          {%- if '__vulcan_marker' in columns %} where not __vulcan_marker{% endif %}
        {%- endcall %}
      {%- endif -%}
    {%- endif -%}
    {% do adapter.drop_relation(stale) %}
  {%- endfor -%}
  {{ return(replayed) }}
{% endmacro %}

{% macro _vulcan_stage_replay_mode(stage) %}
  {%- for row in run_query('show tblproperties ' ~ stage) -%}
    {%- if row[0] == 'vulcan.replay' -%}{{ return(row[1]) }}{%- endif -%}
  {%- endfor -%}
  {{ return(none) }}
{% endmacro %}

{#- The stage tables (`<table>__vulcan_stage_<run>`, `__vulcan_changes_<run>`,
    `__vulcan_groups_<run>`, an audit's `__vulcan_audit_<run>`) a stopped run left beside
    `relation`. The package asks the metastore (one SHOW TABLES); the `vulcan`
    adapter reads dbt's relation cache of the schema (no statement). -#}
{% macro vulcan_stale_stages(relation) %}{{ return(adapter.dispatch('vulcan_stale_stages', 'dbt_vulcan')(relation)) }}{% endmacro %}

{% macro default__vulcan_stale_stages(relation) %}
  {%- set table = relation.identifier | lower -%}
  {%- set found = [] -%}
  {%- for row in run_query("show tables in " ~ relation.schema ~ " like '" ~ table ~ "__vulcan_*'") -%}
    {%- set name = row[1] | string | lower -%}
    {%- for suffix in ['__vulcan_stage_', '__vulcan_changes_', '__vulcan_groups_', '__vulcan_audit_'] -%}
      {%- set rest = name[(table ~ suffix) | length:] -%}
      {%- if name.startswith(table ~ suffix) and rest and rest.isalnum() and not row[2] -%}
        {%- do found.append(relation.incorporate(path={'identifier': row[1]}, type='table')) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return(found) }}
{% endmacro %}

{% macro vulcan__vulcan_stale_stages(relation) %}
  {{ return(adapter.vulcan_stale_stages(relation)) }}
{% endmacro %}

{#- The table a batch is staged in for its audits (`<table>__vulcan_audit_<run>`, audits/audits.sql). -#}
{% macro vulcan_audit_stage_relation(relation) %}
  {{ return(dbt_vulcan.vulcan_stage_relation(relation, '__vulcan_audit')) }}
{% endmacro %}

{#- The partitions (JSON rows, for vulcan_drop_partitions_sql) that a unique-key batch's scoped
    stage (kinds/unique_key/unique_key_sql.sql) names by marker rows only: the batch leaves them
    with no rows. Also run when such a stage is replayed after a crash (above). -#}
{% macro vulcan_stage_emptied_partitions_sql(stage, partition_cols) %}
  {%- set parts = [] -%}
  {%- set as_json = [] -%}
  {%- for p in partition_cols -%}
    {%- do parts.append(dbt_vulcan.vulcan_quote_identifier(p)) -%}
    {%- do as_json.append(dbt_vulcan.vulcan_sql_string(p) ~ ', cast(' ~ parts[-1] ~ ' as string)') -%}
  {%- endfor -%}
  {{ return('select to_json(named_struct(' ~ as_json | join(', ') ~ ')) as vulcan_partition from ' ~ stage ~ ' group by ' ~ parts | join(', ') ~ ' having bool_and(__vulcan_marker)') }}
{% endmacro %}

{#- ALTER TABLE ... DROP of the partitions `emptied_partitions` returned (JSON rows), '' when
    there are none. -#}
{% macro vulcan_drop_partitions_sql(relation, partition_cols, rows) %}
  {%- set specs = [] -%}
  {%- for row in rows -%}
    {%- set values = fromjson(row[0] | string) -%}
    {%- set items = [] -%}
    {%- for c in partition_cols -%}
      {%- set v = values.get(c) -%}
      {%- do items.append(dbt_vulcan.vulcan_quote_identifier(c) ~ ' = ' ~ ('null' if v is none else dbt_vulcan.vulcan_sql_string(v))) -%}
    {%- endfor -%}
    {%- do specs.append('partition (' ~ items | join(', ') ~ ')') -%}
  {%- endfor -%}
  {{ return('alter table ' ~ relation ~ ' drop if exists ' ~ specs | join(', ') if specs else '') }}
{% endmacro %}
