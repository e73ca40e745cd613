{#- The virtual layer's side of a model run (environments/virtual.sql): the physical table's
    existence, the dev window, and the model's view pointed at the physical table, with the
    pointer recorded in the state log. -#}

{#- The physical table as an existing relation, or none. A version with rows in the log has
    its table (the janitor drops both together), unless its newest row is a rebuild's reset (a
    run stopped between dropping and creating it); any other is looked up by name, once, in a
    schema created when missing (a first build of the version). -#}
{% macro vulcan_physical_existing(relation, rows) %}
  {%- if rows and not (rows[-1].row_type == 'removed' and dbt_vulcan.vulcan_log_details(rows[-1]).get('reset')) -%}{{ return(relation) }}{%- endif -%}
  {% do adapter.create_schema(api.Relation.create(database=relation.database, schema=relation.schema)) %}
  {%- set found = [] -%}
  {#- (SHOW TABLES lists the session's temporary views too, whatever the schema) -#}
  {%- for row in run_query('show tables in ' ~ relation.schema ~ " like '" ~ relation.identifier ~ "'").rows if not row[2] -%}
    {%- do found.append(row[1]) -%}
  {%- endfor -%}
  {{ return(relation if found else none) }}
{% endmacro %}

{#- The settings as this environment runs them: a non-prod environment's dev window
    (`vulcan_dev_start`) moves a model's `start` to it, when later. -#}
{% macro vulcan_windowed_cfg(cfg, ctx) %}
  {%- if ctx.window is none or cfg.get('start') is none -%}{{ return(cfg) }}{%- endif -%}
  {%- set window = dbt_vulcan.vulcan_format_ts(ctx.window) -%}
  {%- if dbt_vulcan.vulcan_parse_ts(cfg.start) >= ctx.window -%}{{ return(cfg) }}{%- endif -%}
  {%- set windowed = {} -%}
  {%- do windowed.update(cfg) -%}
  {%- do windowed.update({'start': window}) -%}
  {{ return(windowed) }}
{% endmacro %}

{#- Points the model's view (`this`) at the run's physical table: (re)created when missing,
    when it pointed elsewhere, or when the table was (re)created or its columns may have
    changed (`refresh`); the pointer recorded when it moved. Returns the view relation. -#}
{% macro vulcan_point_view(begin, refresh=false) %}
  {%- set resolved = begin.state.virtual.resolved -%}
  {%- set physical = resolved.relation -%}
  {%- set view = this.incorporate(type='view') -%}
  {%- set moved = resolved.pointer != resolved.key -%}
  {%- if begin.view_existing is none or moved or refresh -%}
    {%- set comment = model.description if (config.get('persist_docs') or {}).get('relation') and model.description else none -%}
    {#- Iceberg's session catalog (SparkSessionCatalog) keeps a view's old query through a
        CREATE OR REPLACE VIEW: where Iceberg is in use the view is dropped and created -#}
    {%- set iceberg = begin.cfg.get('file_format') == 'iceberg' or dbt_vulcan.vulcan_state_file_format() == 'iceberg' -%}
    {%- if iceberg and begin.view_existing is not none -%}{% do adapter.drop_relation(view) %}{%- endif -%}
    {% call statement('vulcan_point_view') -%}
      {{ 'create view' if iceberg else 'create or replace view' }} {{ view }}{% if comment %} comment {{ dbt_vulcan.vulcan_sql_string(comment) }}{% endif %} as select * from {{ physical }}
    {%- endcall %}
  {%- endif -%}
  {%- if moved -%}
    {%- set at = dbt_vulcan.vulcan_format_ts(begin.state.virtual.ctx.execution_time) -%}
    {%- set details = {'environment': resolved.env, 'physical': resolved.key, 'view': dbt_vulcan.vulcan_relation_key(view), 'own': resolved.own, 'identity': dbt_vulcan.vulcan_node_identity(model)} -%}
    {#- what the next version's categorisation compares with (environments/version.sql) -#}
    {%- do details.update({'lineage': resolved.lineage, 'shape': resolved.record.shape, 'parents': resolved.record.parents, 'select': dbt_vulcan.vulcan_select_signature(model.raw_code)}) -%}
    {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_state_values(dbt_vulcan.vulcan_pointer_relation(model), [[at, at]], 'pointer', resolved.version, tojson(details))) %}
    {#- pointed: a second call of this run (a model reading itself points its view before its
        batches) records nothing again -#}
    {%- do resolved.update({'pointer': resolved.key}) -%}
    {%- do begin.update({'view_existing': view}) -%}
  {%- endif -%}
  {{ return(view) }}
{% endmacro %}

{#- The relation whose state key is a model's pointer key (vulcan_pointer_key). -#}
{% macro vulcan_pointer_relation(node) %}
  {{ return(api.Relation.create(schema=dbt_vulcan.vulcan_physical_schema(), identifier=dbt_vulcan.vulcan_physical_base(node))) }}
{% endmacro %}

{#- A run in an environment whose version prod's view points at: nothing is written, the view
    points there (the run's line says the version was reused). -#}
{% macro vulcan_virtual_reuse(begin) %}
  {{ run_hooks(pre_hooks) }}
  {%- set view = dbt_vulcan.vulcan_point_view(begin) -%}
  {% do apply_grants(view, config.get('grants'), should_revoke(begin.view_existing, full_refresh_mode=false)) %}
  {{ run_hooks(post_hooks) }}
  {% do store_raw_result('main', message='reused ' ~ begin.state.virtual.resolved.key ~ " (prod's version)", code='OK', rows_affected=-1) %}
  {{ return({'relations': [view]}) }}
{% endmacro %}
