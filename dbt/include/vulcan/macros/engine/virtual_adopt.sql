{#- The first run with the virtual layer on a model whose relation is still a table (built
    without it): the table is adopted as its version's physical table, keeping every row and
    every interval; the model's relation then becomes the view over it.

    Spark's catalogs rename a table only within its schema, so the rows are copied, in one
    statement, into the physical table (created in the model's layout, as every run creates
    it), the log rows of the old table are carried to the physical table's key (one append:
    the processed intervals are not recomputed), then the old table is dropped; the run goes
    on as any run of that version (its view is created at its end). A run stopped before the
    append copies again; one stopped after it finds the version's rows and only drops the old
    table. When the version's table has processed intervals already (another environment built
    it), the old table holds nothing it lacks: it is dropped. The view is created over the
    physical table at once (the run's end points it again, and records the pointer). Returns
    the physical table's log rows. -#}
{% macro vulcan_virtual_adopt(old, physical, old_rows, physical_rows, cfg) %}
  {#- the old table's log rows as the physical table's (what the run then plans from) -#}
  {%- set key = dbt_vulcan.vulcan_relation_key(physical) -%}
  {%- set carried = [] -%}
  {%- for row in old_rows -%}
    {%- set copy = {} -%}
    {%- do copy.update(row) -%}
    {%- do copy.update({'relation': key}) -%}
    {%- do carried.append(copy) -%}
  {%- endfor -%}
  {#- the version built (another environment's run processed it): nothing to copy. Rows
      without a processed one (a restatement recorded before this run) are kept after the
      carried ones -#}
  {%- set built = physical_rows | selectattr('row_type', 'equalto', 'processed') | list -%}
  {%- if not built -%}
    {{ log("Model '" ~ cfg.model ~ "': vulcan_virtual: the table " ~ old ~ " becomes the physical table " ~ physical ~ ' of its version (its rows copied, its ' ~ old_rows | length ~ ' state rows carried); ' ~ old ~ ' becomes a view over it', info=True) }}
    {% do adapter.create_schema(api.Relation.create(database=physical.database, schema=physical.schema)) %}
    {%- set columns = adapter.get_columns_in_relation(old) | map(attribute='name') | list -%}
    {%- set select = 'select ' ~ columns | map('string') | map('trim') | join(', ') ~ ' from ' ~ old -%}
    {%- if cfg.file_format not in ('delta', 'iceberg') -%}{% do adapter.drop_relation(physical) %}{%- endif -%}
    {% do dbt_vulcan.vulcan_create_empty_table(physical, select, cfg, replace=true) %}
    {% call statement('vulcan_adopt_copy') -%}
      insert into {{ physical }} {{ select }}
    {%- endcall %}
    {%- if carried -%}
      {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_log_values_sql(carried)) %}
    {%- endif -%}
  {%- endif -%}
  {% do adapter.drop_relation(old) %}
  {#- the view at once, over the adopted rows: the relation is never missing, and a model that
      reads itself reads its rows from here on -#}
  {% call statement('vulcan_adopt_view') -%}
    create view {{ old.incorporate(type='view') }} as select * from {{ physical }}
  {%- endcall %}
  {{ return(physical_rows if built else carried + physical_rows) }}
{% endmacro %}

{#- The virtual layer turned off (`vulcan_virtual: false`, set explicitly: unset, nothing is
    looked for): a model whose view this environment's pointer names gets its table back at
    its own relation, with the physical table's rows and intervals, and the pointer is
    removed. Called when the relation is a view, missing, or a table without log rows (a
    reversal stopped half way is done again). One read of the model's pointer rows, and when
    there is one, of the physical table's rows. Returns the relation's log rows, or none when
    there is nothing to reverse. -#}
{% macro vulcan_virtual_reverse(node, relation, existing, cfg) %}
  {%- set pointer_key = dbt_vulcan.vulcan_pointer_key(node) -%}
  {%- set env = dbt_vulcan.vulcan_environment() -%}
  {%- set theirs = dbt_vulcan.vulcan_pointers(dbt_vulcan.vulcan_log_read([pointer_key]).get(pointer_key, [])).get(env) -%}
  {%- if theirs is none -%}{{ return(none) }}{%- endif -%}
  {%- set parts = theirs.physical.split('.') -%}
  {%- set physical = api.Relation.create(schema=parts[-2], identifier=parts[-1], type='table') -%}
  {%- set rows = dbt_vulcan.vulcan_log_read([theirs.physical]).get(theirs.physical, []) -%}
  {{ log("Model '" ~ cfg.model ~ "': vulcan_virtual is off: " ~ relation ~ ' becomes a table again, from ' ~ physical ~ ' (its rows copied, its ' ~ rows | length ~ ' state rows carried)', info=True) }}
  {%- if existing is not none -%}{% do adapter.drop_relation(existing) %}{%- endif -%}
  {%- set columns = adapter.get_columns_in_relation(physical) | map(attribute='name') | list -%}
  {%- set select = 'select ' ~ columns | map('string') | map('trim') | join(', ') ~ ' from ' ~ physical -%}
  {% do dbt_vulcan.vulcan_create_empty_table(relation, select, cfg, replace=false) %}
  {% call statement('vulcan_reverse_copy') -%}
    insert into {{ relation }} {{ select }}
  {%- endcall %}
  {%- set key = dbt_vulcan.vulcan_relation_key(relation) -%}
  {%- set carried = [] -%}
  {%- for row in rows if row.row_type != 'pointer' -%}
    {%- set copy = {} -%}
    {%- do copy.update(row) -%}
    {%- do copy.update({'relation': key}) -%}
    {%- do carried.append(copy) -%}
  {%- endfor -%}
  {%- set at = dbt_vulcan.vulcan_format_ts(modules.datetime.datetime.utcnow()) -%}
  {%- set values = [dbt_vulcan.vulcan_log_values_sql(carried)] if carried else [] -%}
  {%- do values.append(dbt_vulcan.vulcan_state_values(dbt_vulcan.vulcan_pointer_relation(node), [[at, at]], 'pointer', theirs.version, tojson({'environment': env, 'physical': none}))) -%}
  {% do dbt_vulcan.vulcan_record_intervals(values | join(',\n')) %}
  {{ return(carried) }}
{% endmacro %}
