{#- Data audits of a batch (rules, SQL and messages: dbt/adapters/vulcan/audits.py).

    The batch's rows are written once to a stage table next to the target
    (`<schema>.vulcan_batch__<table>`): plain parquet, or Iceberg for an Iceberg target (in
    Iceberg's session catalog a dropped parquet table leaves its folder behind, and the next
    CREATE of the name fails; PURGE removes an Iceberg stage's files). One statement counts
    every audit's offending rows in it; only when some audit fails, a second statement
    fetches up to 5 offending rows of each failing audit for the message. A failing blocking audit drops the stage and fails the
    model before the write strategy runs; a non-blocking one warns. The strategy then reads
    the stage (`select * from <stage>`), which is dropped after the batch is recorded.

    Statements per batch: create stage, count, [samples], drop stage; once per run: drop a
    stage a crashed run may have left.

    A user-defined audit is a project macro `audit_<name>(relation, **args)` that returns
    the SQL of the offending rows of `relation` (the stage), e.g. audit_no_future_orders
    returning "select * from <relation> where <column> > current_date()". -#}

{% macro _vulcan_audit_stage_relation(relation) %}
  {{ return(relation.incorporate(path={'identifier': 'vulcan_batch__' ~ relation.identifier}, type='table')) }}
{% endmacro %}

{% macro vulcan_audit_batch(stage, audits, sql, batch, first_batch, file_format) %}
  {{ return(adapter.dispatch('vulcan_audit_batch', 'dbt_vulcan')(stage, audits, sql, batch, first_batch, file_format)) }}
{% endmacro %}

{% macro default__vulcan_audit_batch(stage, audits, sql, batch, first_batch, file_format) %}
  {%- if first_batch -%}
    {% do dbt_vulcan._vulcan_drop_audit_stage(stage, file_format) %}
  {%- endif -%}
  {% call statement('vulcan_audit_stage') -%}
    create table {{ stage }} using {{ dbt_vulcan._vulcan_audit_stage_format(file_format) }} as
    {{ sql }}
  {%- endcall %}
  {%- set sqls = [] -%}
  {%- for audit in audits -%}
    {%- if audit.builtin -%}
      {%- do sqls.append(audit.sql) -%}
    {%- else -%}
      {%- do sqls.append(context[audit.macro](stage, **audit.args) | string) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set counts = run_query(adapter.vulcan_audit_count_query(sqls)) -%}
  {%- set failing = adapter.vulcan_audit_failures(counts) -%}
  {%- if failing -%}
    {%- set samples = run_query(adapter.vulcan_audit_sample_query(sqls, failing)) -%}
    {%- set report = adapter.vulcan_audit_report(model, audits, batch, counts, samples) -%}
    {%- for warning in report.warnings -%}
      {% do exceptions.warn(warning) %}
    {%- endfor -%}
    {%- if report.error -%}
      {% do dbt_vulcan._vulcan_drop_audit_stage(stage, file_format) %}
      {% do adapter.vulcan_audit_fail(report.error) %}
    {%- endif -%}
  {%- endif -%}
  {{ return('select * from ' ~ stage) }}
{% endmacro %}

{% macro _vulcan_audit_stage_format(file_format) %}
  {{ return('iceberg' if file_format == 'iceberg' else 'parquet') }}
{% endmacro %}

{% macro _vulcan_drop_audit_stage(stage, file_format) %}
  {% call statement('vulcan_audit_stage_drop') -%}
    drop table if exists {{ stage }}{% if dbt_vulcan._vulcan_audit_stage_format(file_format) == 'iceberg' %} purge{% endif %}
  {%- endcall %}
{% endmacro %}
