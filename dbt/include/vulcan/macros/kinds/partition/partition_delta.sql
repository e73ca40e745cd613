{#- incremental_by_partition on Delta: one atomic `INSERT INTO ... REPLACE WHERE <keys>`,
    where <keys> matches exactly the partition keys the query returns. The key set comes from
    one query over the batch (distinct keys only), rendered by Spark itself as a predicate:
    each value is cast back from its hex-encoded text to its own type, so no value is ever
    pasted as an unescaped literal, and a NULL key matches with IS NULL. Delta checks every
    inserted row against the predicate, so a query that returns other keys the second time
    fails instead of writing. No rows: nothing is written. The statement matches columns by
    position: the rows are selected in the table's order. -#}

{% macro vulcan_partition_delta(args) %}
  {%- set predicate = dbt_vulcan._vulcan_partition_predicate(args.sql, args.cfg.partition_cols) -%}
  {%- if not predicate -%}
    {{ log('No rows: ' ~ args.relation ~ ' is unchanged.', info=True) }}
    {{ return(none) }}
  {%- endif -%}
  {% call statement('main') -%}
    insert into {{ args.relation }} replace where {{ predicate }}
    {{ dbt_vulcan.vulcan_in_table_order(args) }}
  {%- endcall %}
{% endmacro %}

{% macro _vulcan_partition_predicate(sql, columns) %}
  {%- set terms = [] -%}
  {%- for column in columns -%}
    {%- set quoted = adapter.quote(column) -%}
    {%- do terms.append("case when " ~ quoted ~ " is null then '" ~ quoted ~ " is null' else concat('" ~ quoted ~ " = cast(cast(X', char(39), hex(cast(" ~ quoted ~ " as string)), char(39), ' as string) as ', typeof(" ~ quoted ~ "), ')') end") -%}
  {%- endfor -%}
  {% set predicate_sql %}
    select concat_ws(' or ', collect_list(vulcan_key)) as vulcan_predicate
    from (
      select concat('(', concat_ws(' and ', {{ terms | join(', ') }}), ')') as vulcan_key
      from (
        select distinct {% for column in columns %}{{ adapter.quote(column) }}{% if not loop.last %}, {% endif %}{% endfor %}
        from (
          {{ sql }}
        ) as vulcan_rows
      ) as vulcan_keys
    ) as vulcan_predicates
  {% endset %}
  {%- set result = run_query(predicate_sql) -%}
  {%- set value = result.columns[0].values()[0] if result.rows else none -%}
  {{ return(value if value else none) }}
{% endmacro %}
