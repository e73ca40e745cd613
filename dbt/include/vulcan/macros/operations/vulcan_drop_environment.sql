{#- dbt run-operation vulcan_drop_environment --args '{environment: pr_42}'
    Drops an environment of the virtual layer (environments/): each of its views (where its
    runs put them) and its pointers (a pointer row without a table, per model). Its physical
    tables stay: those no other environment points at are the janitor's (vulcan_janitor) once
    its TTL has passed. `environment` defaults to the target's; prod (vulcan_prod_target) is
    refused. -#}
{% macro vulcan_drop_environment(environment=none) %}
  {% do dbt_vulcan.vulcan_create_state_table() %}
  {%- set env = (environment or dbt_vulcan.vulcan_environment()) | string | lower -%}
  {%- if env == dbt_vulcan.vulcan_prod_environment() -%}
    {{ exceptions.raise_compiler_error("vulcan_drop_environment: '" ~ env ~ "' is the prod environment (vulcan_prod_target); it is not dropped") }}
  {%- endif -%}
  {%- set at = dbt_vulcan.vulcan_format_ts(dbt_vulcan.vulcan_run_vars(none, {}).execution_time) -%}
  {%- set values = [] -%}
  {%- set views = [] -%}
  {%- for key, rows in dbt_vulcan.vulcan_pointer_rows().items() -%}
    {%- set theirs = dbt_vulcan.vulcan_pointers(rows).get(env) -%}
    {%- if theirs is not none -%}
      {%- set parts = key.split('.') -%}
      {%- if theirs.view -%}
        {%- set view_parts = theirs.view.split('.') -%}
        {%- set view = api.Relation.create(database=view_parts[-3] if view_parts | length > 2 else none, schema=view_parts[-2], identifier=view_parts[-1], type='view') -%}
        {% do adapter.drop_relation(view) %}
        {%- do views.append(theirs.view) -%}
      {%- endif -%}
      {%- set pointer = api.Relation.create(schema=parts[-2], identifier=parts[-1]) -%}
      {%- do values.append(dbt_vulcan.vulcan_state_values(pointer, [[at, at]], 'pointer', theirs.version, tojson({'environment': env, 'physical': none}), theirs.model_id)) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if values -%}{% do dbt_vulcan.vulcan_record_intervals(values | join(',\n')) %}{%- endif -%}
  {{ print("vulcan_drop_environment: environment '" ~ env ~ "': " ~ views | length ~ ' view' ~ ('s' if views | length != 1 else '') ~ ' dropped' ~ (' (' ~ views | join(', ') ~ ')' if views else '') ~ ', ' ~ values | length ~ ' pointer' ~ ('s' if values | length != 1 else '') ~ ' removed; its physical tables are left to vulcan_janitor') }}
{% endmacro %}
