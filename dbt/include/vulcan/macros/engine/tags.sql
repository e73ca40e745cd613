{#- Unity Catalog tags, configured as dbt-databricks configures them on its own
    materializations: the model's `databricks_tags` and its columns' `databricks_tags` (in a
    properties file). Checked before anything runs (Unity Catalog only: dbt-databricks refuses
    them on the Hive metastore, and type: spark has none), then set with dbt-databricks' own
    statements (`apply_tags`, `apply_column_tags`) when the table is created or rebuilt, and on
    a later run for a tag added or changed: set only, as dbt-databricks (a tag removed from the
    config stays on the table). What a run set is recorded in the layout of its state rows
    (engine/begin.sql, vulcan_layout), so no run reads the catalog's tags back. -#}

{#- The tags of the model being run: {table: {name: value}, columns: {column: {name: value}}},
    or {} when neither the model nor a column has any (the common case, decided here without
    compiling the rest). -#}
{% macro vulcan_tags(cfg) %}
  {%- set node = model if model is mapping else {} -%}
  {%- if cfg.get('databricks_tags') or (node.get('columns') or {}).values() | select('mapping') | selectattr('databricks_tags') | list -%}
    {{ return(dbt_vulcan._vulcan_tags_read(cfg, node)) }}
  {%- endif -%}
  {{ return({}) }}
{% endmacro %}

{% macro _vulcan_tags_read(cfg, node) %}
  {%- set columns = {} -%}
  {%- set errors = [] -%}
  {%- for name, column in (node.get('columns') or {}).items() if column is mapping and column.get('databricks_tags') -%}
    {%- set checked = dbt_vulcan.vulcan_tags_value('columns.' ~ name ~ '.databricks_tags', column.databricks_tags) -%}
    {%- do errors.extend(checked.errors) -%}
    {%- if checked.value -%}{%- do columns.update({name: checked.value}) -%}{%- endif -%}
  {%- endfor -%}
  {%- if errors -%}
    {{ exceptions.raise_compiler_error("Invalid config for model '" ~ cfg.model ~ "' (" ~ cfg.kind ~ "), " ~ errors | length ~ " problem(s):\n  - " ~ errors | join('\n  - ')) }}
  {%- endif -%}
  {{ return({'table': cfg.get('databricks_tags') or {}, 'columns': columns}) }}
{% endmacro %}

{#- Refuses tags where they cannot be set, before anything runs: on a target without Unity
    Catalog (type: spark, type: vulcan) and on the Hive metastore (`relation.database` none
    or `hive_metastore`), where dbt-databricks' own materializations refuse them too. -#}
{% macro vulcan_check_tags(cfg, tags, relation) %}
  {%- set key = 'databricks_tags' if tags.table else 'databricks_tags of column ' ~ tags.columns.keys() | list | first -%}
  {%- set shown = key ~ ' ' ~ '%r' | format(tags.table or tags.columns.values() | list | first) -%}
  {%- set where = "Model '" ~ cfg.model ~ "' (" ~ cfg.kind ~ "): " ~ shown ~ ': tags are a Unity Catalog feature' -%}
  {%- if adapter.type() != 'databricks' -%}
    {{ exceptions.raise_compiler_error(where ~ ', and type: ' ~ adapter.type() ~ ' has no Unity Catalog. Nothing was run. Remove the tags, or run the model on type: databricks in a Unity Catalog catalog.') }}
  {%- elif relation.database is none or relation.database | lower == 'hive_metastore' -%}
    {{ exceptions.raise_compiler_error(where ~ " (dbt-databricks: \"Tags are only supported for Unity Catalog\"), and the model's catalog is " ~ (relation.database or 'hive_metastore') ~ '. Nothing was run. Remove the tags, or build the model in a Unity Catalog catalog (its `catalog` / `database`).') }}
  {%- endif -%}
{% endmacro %}

{#- Sets what `tags` holds and `had` (the tags the log recorded, {} for a table just created)
    does not: dbt-databricks' own statements, one for the table's tags and one per column. -#}
{% macro vulcan_apply_tags(relation, tags, had) %}
  {{ return(adapter.dispatch('vulcan_apply_tags', 'dbt_vulcan')(relation, tags, had)) }}
{% endmacro %}

{% macro default__vulcan_apply_tags(relation, tags, had) %}
  {{ exceptions.raise_compiler_error('databricks_tags: Unity Catalog tags need type: databricks (vulcan_check_tags refuses them before a run on type: ' ~ adapter.type() ~ ')') }}
{% endmacro %}

{% macro databricks__vulcan_apply_tags(relation, tags, had) %}
  {%- set recorded = had if had is mapping else {} -%}
  {%- set table = {} -%}
  {%- for name, value in tags.table.items() if (recorded.get('table') or {}).get(name) != value -%}
    {%- do table.update({name: value}) -%}
  {%- endfor -%}
  {%- set columns = {} -%}
  {%- for column, wanted in tags.columns.items() -%}
    {%- set before = (recorded.get('columns') or {}).get(column) or {} -%}
    {%- set changed = {} -%}
    {%- for name, value in wanted.items() if before.get(name) != value -%}
      {%- do changed.update({name: value}) -%}
    {%- endfor -%}
    {%- if changed -%}{%- do columns.update({column: changed}) -%}{%- endif -%}
  {%- endfor -%}
  {%- if table -%}{% do apply_tags(relation, table) %}{%- endif -%}
  {%- if columns -%}{% do apply_column_tags(relation, {'set_column_tags': columns}) %}{%- endif -%}
{% endmacro %}
