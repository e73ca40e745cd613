{#- on_additive_change / on_destructive_change (error | warn | allow | ignore), checked when the
    model's definition changed since its intervals were recorded (every run for the kinds
    without intervals). Returns the column list the batches must project to (when changes are
    ignored), else none. Nothing is touched on error.

    A run that finds the table's columns equal to its query's records their digest
    (`plan.columns`, written in its state rows' details by run_batches); the next run whose
    definition is unchanged and whose query has the same columns then knows the table has
    them too and reads nothing (the table is only altered by runs of the model: a column
    dropped by hand fails the insert, one added by hand is left NULL, as in dbt). -#}
{% macro vulcan_apply_schema_change(relation, query_columns, cfg, plan) %}
  {%- set digest = dbt_vulcan.vulcan_columns_digest(query_columns) -%}
  {%- if not plan.fingerprint_changed and (plan.previous_details or {}).get('columns') == digest -%}
    {%- do plan.update({'columns': digest}) -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set table_columns = dbt_vulcan.vulcan_table_columns(relation) -%}
  {%- set change = dbt_vulcan.vulcan_schema_change_plan(cfg, table_columns, query_columns) -%}
  {%- if not change.changed -%}
    {%- do plan.update({'columns': digest}) -%}
    {{ return(none) }}
  {%- endif -%}
  {%- if change.errors -%}
    {{ exceptions.raise_compiler_error(change.errors | join('\n')) }}
  {%- endif -%}
  {%- do plan.update({'schema_changed': true}) -%}
  {%- for warning in change.warnings -%}
    {{ log('Warning: ' ~ warning, info=True) }}
  {%- endfor -%}
  {%- if change.rewrite -%}
    {% do dbt_vulcan._vulcan_rewrite_to_schema(relation, change.rewrite_select, cfg, plan) %}
  {%- elif change.add_columns -%}
    {% call statement('vulcan_add_columns') -%}
      alter table {{ relation }} add columns ({{ change.add_columns | join(', ') }})
    {%- endcall %}
  {%- endif -%}
  {{ return(change.projection) }}
{% endmacro %}

{% macro _vulcan_rewrite_to_schema(relation, select_list, cfg, plan) %}
  {%- set stage = dbt_vulcan.vulcan_stage_relation(relation) -%}
  {% do dbt_vulcan.vulcan_stage_intent(relation, stage, cfg, plan) %}
  {%- set delta_or_iceberg = cfg.file_format in ('delta', 'iceberg') -%}
  {% do dbt_vulcan.vulcan_stage_create(stage, 'select ' ~ select_list ~ ' from ' ~ relation, cfg.file_format if delta_or_iceberg else 'parquet', replay='rebuild') %}
  {% do dbt_vulcan._vulcan_rebuild_from_stage(relation, stage, cfg) %}
  {% do dbt_vulcan.vulcan_stage_drop(stage) %}
{% endmacro %}

{#- The table recreated with the stage's schema and filled with its rows (also the replay of
    an interrupted rewrite: engine/stage.sql). -#}
{% macro _vulcan_rebuild_from_stage(relation, stage, cfg) %}
  {%- if cfg.file_format in ('delta', 'iceberg') -%}
    {% do dbt_vulcan.vulcan_create_empty_table(relation, 'select * from ' ~ stage, cfg, replace=true) %}
    {% call statement('vulcan_rewrite') %}insert into {{ relation }} select * from {{ stage }}{% endcall %}
  {%- else -%}
    {% do adapter.drop_relation(relation) %}
    {% do dbt_vulcan.vulcan_create_empty_table(relation, 'select * from ' ~ stage, cfg) %}
    {% call statement('vulcan_rewrite') %}insert overwrite table {{ relation }} by name select * from {{ stage }}{% endcall %}
  {%- endif -%}
{% endmacro %}

{#- A digest of columns' names and types (lower case, in their order) -#}
{% macro vulcan_columns_digest(columns) %}
  {%- set pairs = [] -%}
  {%- for c in columns -%}{%- do pairs.append((c.name | lower) ~ ' ' ~ (c.dtype | lower)) -%}{%- endfor -%}
  {{ return(local_md5(pairs | join(', '))[:16]) }}
{% endmacro %}
