{#- Stage tables. Spark cannot overwrite a table that the same statement reads, and Delta
    cannot MERGE from a source that reads its own target, so a rewrite computes the new rows
    into `<table>__vulcan_stage` first. A failure before the final statement leaves the
    target untouched; a stale stage from a killed run is dropped before it is created. -#}

{% macro _vulcan_stage_relation(relation, suffix='__vulcan_stage') %}
  {{ return(relation.incorporate(path={'identifier': relation.identifier ~ suffix}, type='table')) }}
{% endmacro %}

{#- `drop_first`: false when this run already dropped a stale stage (one statement less a batch). -#}
{% macro _vulcan_stage_create(stage, sql, file_format='parquet', drop_first=true) %}
  {%- if drop_first -%}
    {% do _vulcan_stage_drop(stage) %}
  {%- endif -%}
  {% call statement('vulcan_stage') -%}
    create table {{ stage }} using {{ file_format }} as
    {{ sql }}
  {%- endcall %}
{% endmacro %}

{% macro _vulcan_stage_drop(stage) %}
  {% call statement('vulcan_stage_drop') %}drop table if exists {{ stage }}{% endcall %}
{% endmacro %}

{#- Replace `relation`'s rows (all of them, or with dynamic partition overwrite the partitions
    the rows fall in) by `sql`, plus `add_sql`'s rows when given, through a parquet stage. -#}
{% macro _vulcan_overwrite_from_stage(relation, sql, add_sql=none) %}
  {%- set stage = _vulcan_stage_relation(relation) -%}
  {% do _vulcan_stage_create(stage, sql) %}
  {%- if add_sql is not none -%}
    {% call statement('vulcan_stage_add') -%}
      insert into {{ stage }} by name
      {{ add_sql }}
    {%- endcall %}
  {%- endif -%}
  {% call statement('main') -%}
    insert overwrite table {{ relation }} by name select * from {{ stage }}
  {%- endcall %}
  {% do _vulcan_stage_drop(stage) %}
{% endmacro %}
