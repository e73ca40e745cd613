{#- equal_rowsets(compare_model): fails unless `model` and `compare_model` hold the same rows,
    duplicates included. The failing rows are the symmetric difference: rows of
    compare_model that model lacks ('missing') and rows of model that compare_model lacks
    ('unexpected'), each side computed with EXCEPT ALL.

    Columns are matched by name (a partitioned parquet table stores its partition columns
    last) and must be the same set on both sides, but for `exclude_columns` of model (a column
    the expected seed cannot state, such as a tracked table's content hash); model's values are
    cast to compare_model's column types, so an int that the expected CSV declares bigint still
    compares equal. -#}
{% test equal_rowsets(model, compare_model, exclude_columns=[]) %}
  {%- set expected_columns = adapter.get_columns_in_relation(compare_model) if execute else [] -%}
  {%- set actual_columns = adapter.get_columns_in_relation(model) if execute else [] -%}
  {%- if execute -%}
    {%- set expected_names = expected_columns | map(attribute='name') | map('lower') | list -%}
    {%- set excluded = exclude_columns | map('lower') | list -%}
    {%- set actual_names = actual_columns | map(attribute='name') | map('lower') | reject('in', excluded) | list -%}
    {%- set only_expected = expected_names | reject('in', actual_names) | list -%}
    {%- set only_actual = actual_names | reject('in', expected_names) | list -%}
    {%- if only_expected or only_actual -%}
      {{ exceptions.raise_compiler_error('equal_rowsets: ' ~ model ~ ' and ' ~ compare_model ~ ' have different columns; only in ' ~ model ~ ': [' ~ only_actual | join(', ') ~ ']; only in ' ~ compare_model ~ ': [' ~ only_expected | join(', ') ~ ']') }}
    {%- endif -%}
  {%- endif -%}

  with actual as (
    select
      {%- for column in expected_columns %}
      cast({{ adapter.quote(column.name) }} as {{ column.data_type }}) as {{ adapter.quote(column.name) }}{{ ',' if not loop.last }}
      {%- endfor %}
    from {{ model }}
  ),

  expected as (
    select
      {%- for column in expected_columns %}
      {{ adapter.quote(column.name) }}{{ ',' if not loop.last }}
      {%- endfor %}
    from {{ compare_model }}
  ),

  missing as (
    select * from expected
    except all
    select * from actual
  ),

  unexpected as (
    select * from actual
    except all
    select * from expected
  )

  select 'missing' as vulcan_difference, * from missing
  union all
  select 'unexpected' as vulcan_difference, * from unexpected
{% endtest %}
