{#- Delta's liquid clustering and OPTIMIZE, configured as dbt-databricks configures its own
    materializations (`liquid_clustered_by`, `auto_liquid_cluster`, `zorder`, `skip_optimize`;
    config/validate.sql refuses what Delta cannot do). The table is created clustered
    (engine/create_empty_table.sql, also on every rebuild); the clustering a run asks for is
    recorded in the layout of its state rows (engine/begin.sql, vulcan_layout), so a change is
    applied with one ALTER TABLE on the next run, without reading the table's metadata on the
    runs in between. -#}

{#- The clustering of `cfg`: its columns (lower case), 'auto', or [] for none. -#}
{% macro vulcan_clustering(cfg) %}
  {%- if cfg.get('liquid_clustered_by') -%}
    {{ return(cfg.liquid_clustered_by | map('lower') | list) }}
  {%- endif -%}
  {{ return('auto' if cfg.get('auto_liquid_cluster') else []) }}
{% endmacro %}

{#- The CREATE TABLE clause of `cfg`'s clustering ('' for none). -#}
{% macro vulcan_cluster_by_clause(cfg) %}
  {%- set clustering = dbt_vulcan.vulcan_clustering(cfg) -%}
  {%- if clustering == 'auto' -%}
    {{ return('cluster by auto') }}
  {%- elif clustering -%}
    {{ return('cluster by (' ~ dbt_vulcan.vulcan_quote_identifiers(cfg.liquid_clustered_by) | join(', ') ~ ')') }}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}

{#- An existing table whose recorded clustering (`had`) is not what `cfg` asks: one ALTER
    TABLE, as dbt-databricks applies a change (the data already written is reclustered by the
    next OPTIMIZE, as on Databricks). -#}
{% macro vulcan_alter_clustering(relation, cfg, had) %}
  {{ return(adapter.dispatch('vulcan_alter_clustering', 'dbt_vulcan')(relation, cfg, had)) }}
{% endmacro %}

{% macro default__vulcan_alter_clustering(relation, cfg, had) %}
  {%- set clause = dbt_vulcan.vulcan_cluster_by_clause(cfg) or 'cluster by none' -%}
  {{ log("Model '" ~ cfg.model ~ "': " ~ relation ~ " was clustered by " ~ dbt_vulcan._vulcan_clustering_shown(had) ~ ", its config now asks " ~ clause ~ ": altered, not rebuilt.", info=True) }}
  {% call statement('vulcan_alter_clustering') -%}
    alter table {{ relation }} {{ clause }}
  {%- endcall %}
{% endmacro %}

{#- OPTIMIZE after a run that wrote, as dbt-databricks runs it after its materializations:
    for a Delta table clustered or Z-ordered, unless `skip_optimize` or the vars
    `databricks_skip_optimize` / `DATABRICKS_SKIP_OPTIMIZE` say true. -#}
{% macro vulcan_optimize(relation, cfg, wrote) %}
  {{ return(adapter.dispatch('vulcan_optimize', 'dbt_vulcan')(relation, cfg, wrote)) }}
{% endmacro %}

{% macro default__vulcan_optimize(relation, cfg, wrote) %}
  {%- set sql = dbt_vulcan.vulcan_optimize_sql(relation, cfg) if wrote else none -%}
  {%- if sql -%}
    {% call statement('vulcan_optimize') -%}{{ sql }}{%- endcall %}
  {%- endif -%}
{% endmacro %}

{#- The OPTIMIZE statement of `cfg` (none when nothing is to be optimized). -#}
{% macro vulcan_optimize_sql(relation, cfg) %}
  {%- set skipped = cfg.get('skip_optimize') or (var('databricks_skip_optimize', 'false') | string | lower == 'true') or (var('DATABRICKS_SKIP_OPTIMIZE', 'false') | string | lower == 'true') -%}
  {%- if skipped or cfg.file_format != 'delta' -%}{{ return(none) }}{%- endif -%}
  {%- if dbt_vulcan.vulcan_clustering(cfg) -%}
    {{ return('optimize ' ~ relation) }}
  {%- elif cfg.get('zorder') -%}
    {{ return('optimize ' ~ relation ~ ' zorder by (' ~ dbt_vulcan.vulcan_quote_identifiers(cfg.zorder) | join(', ') ~ ')') }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}

{% macro _vulcan_clustering_shown(clustering) %}
  {{ return('auto' if clustering == 'auto' else ('(' ~ clustering | join(', ') ~ ')' if clustering else 'nothing')) }}
{% endmacro %}
