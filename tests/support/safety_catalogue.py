"""The safety analysis catalogue: time-range model SQL with the verdict both analyses must give,
the adapter's (dbt/adapters/vulcan/safety.py, sqlglot) and the package's (Jinja on tokens,
dbt/include/vulcan/macros/safety/analysis.sql).
tests/unit/macros/safety/test_safety_catalogue.py checks every case against both.

A case: (name, sql, time_column, refused patterns, warned patterns), the model's interval unit
a day. Only cases whose verdict is really right are here (where the two analyses differ, see
the header of safety/analysis.sql and test_known_differences)."""

from __future__ import annotations

from typing import NamedTuple


class Case(NamedTuple):
    name: str
    sql: str
    time_column: str
    refused: frozenset[str]
    warned: frozenset[str] = frozenset()


FILTER = "WHERE order_date BETWEEN @start_ds AND @end_ds"
NONE: frozenset[str] = frozenset()


def _set(*names: str) -> frozenset[str]:
    return frozenset(names)


# jaffle-shop's `orders` converted to a time range: customer_order_number numbers each customer's
# orders over ALL their orders; on a slice it restarts at 1 (24,646 of 71,593 rows wrong)
JAFFLE_ORDERS = """
with orders as (
    select * from stg_orders
    where ordered_at between @start_dt and @end_dt
),
order_items as (select * from stg_order_items),
order_items_summary as (
    select order_id, sum(supply_cost) as order_cost, sum(product_price) as order_items_subtotal,
           count(order_item_id) as count_order_items
    from order_items
    group by 1
),
compute_booleans as (
    select orders.*, order_items_summary.order_cost, order_items_summary.count_order_items
    from orders
    left join order_items_summary on orders.order_id = order_items_summary.order_id
),
customer_order_count as (
    select *,
        row_number() over (
            partition by customer_id
            order by ordered_at asc
        ) as customer_order_number
    from compute_booleans
)
select * from customer_order_count
"""

CASES: list[Case] = [
    # ---------------------------------------------------------------- window
    Case("jaffle_shop_orders_row_number", JAFFLE_ORDERS, "ordered_at", _set("window")),
    Case(
        "jaffle_shop_orders_partitioned_by_day",
        JAFFLE_ORDERS.replace("partition by customer_id", "partition by ordered_at, customer_id"),
        "ordered_at",
        NONE,
    ),
    Case(
        "row_number_by_customer",
        "select order_id, customer_id, order_date, row_number() over (partition by customer_id "
        f"order by order_date, order_id) as customer_order_number from orders {FILTER}",
        "order_date",
        _set("window"),
    ),
    Case(
        "window_partitioned_by_time_column",
        "select order_date, customer_id, row_number() over (partition by order_date, customer_id "
        f"order by id) as rn from orders {FILTER}",
        "order_date",
        NONE,
    ),
    Case(
        "window_partitioned_by_qualified_time_column",
        "select o.order_date, rank() over (partition by o.customer_id, o.order_date order by "
        "o.amount desc) as r from orders o where o.order_date between @start_ds and @end_ds",
        "order_date",
        NONE,
    ),
    Case(
        "window_partitioned_by_backquoted_time_column_other_case",
        "select `Order_Date`, sum(amount) over (partition by t.`ORDER_DATE`) as day_total "
        "from orders t where `Order_Date` >= @start_ds and `Order_Date` <= @end_ds",
        "order_date",
        NONE,
    ),
    Case(
        "window_without_partition_by",
        "select order_date, sum(amount) over (order by order_date) as running "
        f"from orders {FILTER}",
        "order_date",
        _set("window"),
    ),
    Case(
        "window_over_everything",
        f"select order_date, count(*) over () as n from orders {FILTER}",
        "order_date",
        _set("window"),
    ),
    Case(
        "window_in_qualify",
        "select order_date, order_id from orders "
        f"{FILTER} qualify row_number() over (partition by order_id order by updated_at desc) = 1",
        "order_date",
        _set("window"),
    ),
    Case(
        "window_with_filter_clause",
        "select order_date, count(*) filter (where status = 'paid') over (partition by "
        f"customer_id) as paid from orders {FILTER}",
        "order_date",
        _set("window"),
    ),
    Case(
        "named_window_partitioned_by_time_column",
        f"select order_date, sum(x) over w as s from orders {FILTER} "
        "window w as (partition by order_date order by ts)",
        "order_date",
        NONE,
    ),
    Case(
        "named_window_partitioned_by_customer",
        f"select order_date, sum(x) over w as s from orders {FILTER} "
        "window w as (partition by customer_id order by ts)",
        "order_date",
        _set("window"),
    ),
    Case(
        "window_in_a_cte_reading_a_relation_in_full",
        "with ranked as (select customer_id, "
        "row_number() over (order by signup_date) as signup_rank "
        "from customers) select o.order_date, o.order_id, r.signup_rank from orders o "
        "join ranked r on o.customer_id = r.customer_id "
        "where o.order_date between @start_ds and @end_ds",
        "order_date",
        NONE,
    ),
    Case(
        "window_in_a_time_filtered_cte",
        f"with ranked as (select *, row_number() over (partition by order_id order by updated_at "
        f"desc) as rn from orders {FILTER}) select order_date, order_id from ranked where rn = 1",
        "order_date",
        _set("window"),
    ),
    Case(
        "window_by_the_column_the_time_column_is_cast_from",
        "select cast(ts as date) as order_date, row_number() over (partition by ts, user_id "
        "order by id) as same_ts from events where ts between @start_dt and @end_dt",
        "order_date",
        NONE,
    ),
    Case(
        "window_by_a_month_on_a_daily_model",
        "select order_date, sum(amount) over (partition by date_trunc('month', order_date) "
        f"order by order_date) as month_to_date from orders {FILTER}",
        "order_date",
        _set("window"),
    ),
    Case(
        "aggregate_window_by_time_column_is_not_an_aggregate",
        f"select order_date, sum(amount) over (partition by order_date) as t from orders {FILTER}",
        "order_date",
        NONE,
    ),
    # ---------------------------------------------------------------- limit
    Case(
        "limit_at_top_level",
        f"select order_date, id from orders {FILTER} order by id limit 100",
        "order_date",
        _set("limit"),
    ),
    Case(
        "limit_in_a_subquery",
        f"select order_date, id from (select * from orders {FILTER} order by id limit 10) as t",
        "order_date",
        _set("limit"),
    ),
    Case(
        "limit_in_a_cte_reading_a_relation_in_full",
        "with top_customers as (select customer_id from customers order by spend desc limit 10) "
        f"select order_date, id from orders {FILTER} "
        "and customer_id in (select customer_id from top_customers)",
        "order_date",
        _set("limit"),
    ),
    Case(
        "offset",
        f"select order_date, id from orders {FILTER} order by id limit 5 offset 3",
        "order_date",
        _set("limit"),
    ),
    Case(
        "limit_and_over_in_strings_and_comments",
        "select order_date, 'limit 5' as note, \"row_number() over ()\" as other, id "
        "/* rank() over (order by id) limit 3 */ from orders "
        f"{FILTER} -- limit 10\n",
        "order_date",
        NONE,
    ),
    Case(
        "backquoted_column_named_limit",
        f"select order_date, `limit`, `over` from orders {FILTER}",
        "order_date",
        NONE,
    ),
    Case(
        "order_by_without_limit",
        f"select order_date, id from orders {FILTER} order by id",
        "order_date",
        NONE,
    ),
    # ---------------------------------------------------------------- distinct
    Case(
        "select_distinct_without_time_column",
        f"select distinct customer_id from orders {FILTER}",
        "order_date",
        _set("distinct"),
    ),
    Case(
        "select_distinct_with_time_column",
        f"select distinct order_date, customer_id from orders {FILTER}",
        "order_date",
        NONE,
    ),
    Case(
        "select_distinct_star",
        f"select distinct o.* from orders o {FILTER}",
        "order_date",
        NONE,
    ),
    Case(
        "select_distinct_in_a_time_filtered_cte",
        f"with buyers as (select distinct customer_id from orders {FILTER}) "
        "select o.order_date, o.customer_id from orders o join buyers b using (customer_id)",
        "order_date",
        _set("distinct"),
        _set(),
    ),
    Case(
        "count_distinct_is_not_select_distinct",
        "select order_date, count(distinct user_id) as users "
        f"from orders {FILTER} group by order_date",
        "order_date",
        NONE,
    ),
    Case(
        "union_without_time_column",
        f"with ids as (select id from a {FILTER} union select id from b {FILTER}) "
        "select o.order_date, o.id from orders o join ids using (id)",
        "order_date",
        _set("distinct"),
    ),
    Case(
        "union_all_without_time_column",
        f"with ids as (select id from a {FILTER} union all select id from b {FILTER}) "
        "select o.order_date, o.id from orders o join ids using (id)",
        "order_date",
        NONE,
        _set(),
    ),
    Case(
        "union_with_time_column",
        f"select order_date, id from a {FILTER} union select order_date, id from b {FILTER}",
        "order_date",
        NONE,
    ),
    Case(
        "except_without_time_column",
        f"with ids as (select id from a {FILTER} except select id from b {FILTER}) "
        "select o.order_date, o.id from orders o join ids using (id)",
        "order_date",
        _set("distinct"),
    ),
    Case(
        "union_distinct_under_union_all",
        f"select id from a {FILTER} union select id from b {FILTER} "
        f"union all select id from c {FILTER}",
        "event_day",
        _set("distinct"),
    ),
    Case(
        "union_branches_time_column_by_position",
        "select cast(ts as date) as order_date, count(*) as n from web "
        "where ts between @start_dt and @end_dt group by cast(ts as date) "
        "union all select event_day, count(*) from shop "
        "where event_day between @start_ds and @end_ds group by event_day",
        "order_date",
        NONE,
    ),
    # ---------------------------------------------------------------- group by / having
    Case(
        "group_by_without_time_column",
        "select customer_id, max(order_date) as order_date, sum(amount) as total "
        f"from orders {FILTER} group by customer_id",
        "order_date",
        _set("group_by"),
    ),
    Case(
        "group_by_time_column",
        "select order_date, customer_id, sum(amount) as total "
        f"from orders o {FILTER} group by customer_id, o.order_date",
        "order_date",
        NONE,
    ),
    Case(
        "group_by_ordinals",
        f"select customer_id, order_date, sum(amount) as total from orders {FILTER} group by 2, 1",
        "order_date",
        NONE,
    ),
    Case(
        "group_by_ordinal_of_another_column",
        "select customer_id, max(order_date) as order_date, sum(amount) as total "
        f"from orders {FILTER} group by 1",
        "order_date",
        _set("group_by"),
    ),
    Case(
        "group_by_alias_of_a_date_cast",
        "select cast(transaction_timestamp as date) as revenue_date, user_id, count(*) as n "
        "from raw.transactions where transaction_timestamp between @start_dt and @end_dt "
        "group by 1, 2",
        "revenue_date",
        NONE,
    ),
    Case(
        "vulcan_guide_weekly_sales",
        "select date_trunc('week', order_date) as order_date, count(distinct order_id) as n, "
        "sum(total_amount) as revenue from sales.daily_sales "
        f"{FILTER} group by date_trunc('week', order_date) order by order_date",
        "order_date",
        NONE,
    ),
    Case(
        "group_by_all_with_time_column",
        f"select order_date, customer_id, sum(amount) as total from orders {FILTER} group by all",
        "order_date",
        NONE,
    ),
    Case(
        "group_by_all_without_time_column",
        f"select customer_id, sum(amount) as total from orders {FILTER} group by all",
        "order_date",
        _set("group_by"),
    ),
    Case(
        "group_by_rollup_of_time_column",
        f"select customer_id, sum(amount) as total from orders {FILTER} "
        "group by rollup (order_date, customer_id)",
        "order_date",
        _set("group_by"),
    ),
    Case(
        "group_by_time_column_and_rollup",
        "select order_date, customer_id, sum(amount) as total "
        f"from orders {FILTER} group by order_date, rollup (customer_id)",
        "order_date",
        NONE,
    ),
    Case(
        "group_by_with_cube",
        "select order_date, customer_id, sum(amount) as total "
        f"from orders {FILTER} group by order_date, customer_id with cube",
        "order_date",
        _set("group_by"),
    ),
    Case(
        "grouping_sets_all_with_time_column",
        "select order_date, customer_id, sum(amount) as total from orders "
        f"{FILTER} group by grouping sets ((order_date, customer_id), (order_date))",
        "order_date",
        NONE,
    ),
    Case(
        "grouping_sets_with_a_grand_total",
        "select order_date, customer_id, sum(amount) as total from orders "
        f"{FILTER} group by grouping sets ((order_date, customer_id), ())",
        "order_date",
        _set("group_by"),
    ),
    Case(
        "group_by_and_having_without_time_column",
        f"with loyal as (select customer_id from orders {FILTER} "
        "group by customer_id having count(*) > 5) "
        f"select order_date, customer_id from orders {FILTER} "
        "and customer_id in (select customer_id from loyal)",
        "order_date",
        _set("group_by", "having"),
    ),
    Case(
        "having_on_time_aligned_grouping",
        "select order_date, customer_id, sum(amount) as total from orders "
        f"{FILTER} group by order_date, customer_id having sum(amount) > 0",
        "order_date",
        NONE,
    ),
    Case(
        "aggregate_over_the_whole_slice_in_a_subquery",
        f"select order_date, amount from orders {FILTER} "
        f"and amount > (select avg(amount) from orders {FILTER})",
        "order_date",
        _set("group_by"),
    ),
    Case(
        "aggregate_without_group_by_at_top_level",
        f"select max(order_date) as order_date, count(*) as n from orders {FILTER}",
        "order_date",
        _set("group_by"),
    ),
    Case(
        "aggregate_of_a_relation_read_in_full",
        "with customer_totals as (select customer_id, count(*) as lifetime_orders from orders "
        "group by customer_id), overall as (select avg(amount) as mean_amount from orders) "
        "select o.order_date, o.order_id, t.lifetime_orders, a.mean_amount "
        "from orders o join customer_totals t on o.customer_id = t.customer_id "
        "cross join overall a "
        "where o.order_date between @start_ds and @end_ds",
        "order_date",
        NONE,
    ),
    Case(
        "grouping_a_cte_that_reads_the_slice",
        f"with sliced as (select * from orders {FILTER}), "
        "per_customer as (select customer_id, sum(amount) as total from sliced "
        "group by customer_id), "
        "dims as (select region, count(*) as shops from shops group by region) "
        "select s.order_date, p.total, d.shops from sliced s "
        "join per_customer p using (customer_id) join dims d using (region)",
        "order_date",
        _set("group_by"),
    ),
    Case(
        "grouping_a_filtered_subquery_in_a_join",
        "select order_date, n from orders join (select customer_id, count(*) as n from orders "
        f"{FILTER} group by customer_id) c using (customer_id) {FILTER}",
        "order_date",
        _set("group_by"),
    ),
    Case(
        "grouping_inside_a_subquery_by_time_column",
        "select d.order_date, d.customer_id, d.total * 2 as doubled from ("
        "select order_date, customer_id, sum(amount) as total "
        f"from orders {FILTER} group by order_date, customer_id) as d",
        "order_date",
        NONE,
    ),
    # ---------------------------------------------------------------- nondeterministic
    Case(
        "rand",
        f"select order_date, rand() as r from orders {FILTER}",
        "order_date",
        _set("nondeterministic"),
    ),
    Case(
        "uuid_in_a_cte",
        f"with s as (select *, uuid() as row_key from orders {FILTER}) "
        "select order_date, row_key from s",
        "order_date",
        _set("nondeterministic"),
    ),
    Case(
        "current_timestamp_without_parentheses",
        f"select order_date, current_timestamp as loaded_at from orders {FILTER}",
        "order_date",
        _set("nondeterministic"),
    ),
    Case(
        "now_and_current_date_in_where",
        f"select order_date from orders {FILTER} and created < now() and d <> current_date()",
        "order_date",
        _set("nondeterministic"),
    ),
    Case(
        "monotonically_increasing_id",
        f"select order_date, monotonically_increasing_id() as id from orders {FILTER}",
        "order_date",
        _set("nondeterministic"),
    ),
    Case(
        "tablesample",
        f"select order_date from orders tablesample (10 percent) {FILTER}",
        "order_date",
        _set("nondeterministic"),
    ),
    Case(
        "clock_in_a_string_and_execution_tokens",
        "select order_date, @execution_dt as loaded_at, 'now()' as note, random_value "
        "from orders where order_date between @start_date and @end_date "
        "and created < @execution_ts",
        "order_date",
        NONE,
    ),
    # ---------------------------------------------------------------- time filter
    Case(
        "no_time_filter",
        "select order_date, id from orders",
        "order_date",
        NONE,
        _set("no_time_filter"),
    ),
    Case(
        "time_token_only_in_a_comment_or_string",
        "select order_date, '@start_ds' as s from orders -- where order_date >= @start_ds",
        "order_date",
        NONE,
        _set("no_time_filter"),
    ),
    Case(
        "no_time_filter_and_group_by",
        "select customer_id, count(*) as n from orders group by customer_id",
        "order_date",
        _set("group_by"),
        _set("no_time_filter"),
    ),
    Case(
        "braced_time_token",
        "select order_date from orders where order_date <= @{end_ds} and order_date >= @{start_ds}",
        "order_date",
        NONE,
    ),
    # ---------------------------------------------------------------- reading the SQL
    Case(
        "is_distinct_from_and_extract_in_the_select_list",
        "select order_date, a is distinct from b as changed, extract(day from order_date) as dd, "
        f"case when x > 0 then 'p' else 'n' end sign from orders {FILTER}",
        "order_date",
        NONE,
    ),
    Case(
        "cte_with_column_list_and_lateral_view",
        "with o (order_date, items) as (select order_date, items from orders "
        f"{FILTER}) select order_date, item from o lateral view explode(items) x as item",
        "order_date",
        NONE,
    ),
    Case(
        "everything_at_once",
        "with r as (select customer_id, rand() as x from orders limit 10) "
        "select distinct customer_id, max(order_date) as last_order, "
        "row_number() over (order by customer_id) as rn "
        "from r group by customer_id having count(*) > 1",
        "order_date",
        _set("limit", "nondeterministic", "window", "distinct", "group_by", "having"),
        _set("no_time_filter"),
    ),
]


# ---------------------------------------------------------------- ts_on_timestamp


class TsCase(NamedTuple):
    """SQL of a model whose time column (`click_ts`) is a TIMESTAMP, and the `_ts` tokens that
    bound it (safety.py's ts_bounds, macros/safety/ts_bounds.sql)."""

    name: str
    sql: str
    tokens: tuple[str, ...]
    time_column: str = "click_ts"


BOTH = ("@start_ts", "@end_ts")
CLICKS = "select click_id, click_ts from clicks where "

TS_CASES: list[TsCase] = [
    # the bounds of the issue: a TIMESTAMP column between two zoneless strings
    TsCase("between", CLICKS + "click_ts between @start_ts and @end_ts", BOTH),
    TsCase("not_between", CLICKS + "click_ts not between @start_ts and @end_ts", BOTH),
    TsCase("braced_tokens", CLICKS + "click_ts >= @{start_ts} and click_ts <= @{end_ts}", BOTH),
    TsCase("token_first", CLICKS + "@start_ts <= click_ts and @end_ts >= click_ts", BOTH),
    TsCase("qualified", CLICKS + "c.click_ts > @start_ts", ("@start_ts",)),
    TsCase("backquoted", CLICKS + "`click_ts` < @end_ts", ("@end_ts",)),
    TsCase("equality", CLICKS + "click_ts == @start_ts or click_ts <=> @end_ts", BOTH),
    TsCase("not_equal", CLICKS + "click_ts != @start_ts and click_ts <> @end_ts", BOTH),
    TsCase("negated", CLICKS + "not @start_ts > click_ts", ("@start_ts",)),
    TsCase(
        "config_names_it_in_capitals", CLICKS + "click_ts >= @start_ts", ("@start_ts",), "CLICK_TS"
    ),
    TsCase(
        "in_a_cte",
        "with c as (select * from clicks where click_ts >= @start_ts) "
        "select * from c where click_ts <= @end_ts",
        BOTH,
    ),
    TsCase(
        "in_the_select_list",
        "select click_ts, case when click_ts >= @start_ts then 1 end as late from clicks "
        "where d between @start_ds and @end_ds",
        ("@start_ts",),
    ),
    TsCase("comparison_in_an_equality", CLICKS + "x = click_ts >= @start_ts", ("@start_ts",)),
    TsCase("between_in_a_comparison", CLICKS + "x < click_ts between @start_ts and @end_ts", BOTH),
    TsCase("then_is_null", CLICKS + "click_ts >= @start_ts is not null", ("@start_ts",)),
    TsCase(
        "one_bound_computed",
        CLICKS + "click_ts between @start_ts - interval 1 hour and @end_ts",
        ("@end_ts",),
    ),
    TsCase(
        "the_other_bound_computed",
        CLICKS + "click_ts between @start_ts and @end_ts + interval 1 hour",
        ("@start_ts",),
    ),
    TsCase(
        "bound_after_a_case",
        CLICKS + "click_ts between case when a and b then @start_ts end and @end_ts",
        ("@end_ts",),
    ),
    # no bound: another column, other tokens, a computed token or column, strings, comments
    TsCase("another_column", CLICKS + "other_ts between @start_ts and @end_ts", ()),
    TsCase("dt_tokens", CLICKS + "click_ts between @start_dt and @end_dt", ()),
    TsCase("upper_case_token", CLICKS + "click_ts >= @START_TS", ()),
    TsCase("cast_token", CLICKS + "click_ts >= cast(@start_ts as timestamp)", ()),
    TsCase("typed_token", CLICKS + "click_ts >= timestamp @start_ts", ()),
    TsCase("double_colon", CLICKS + "click_ts >= @start_ts::timestamp", ()),
    TsCase("token_plus", CLICKS + "click_ts < @end_ts + interval 1 day", ()),
    TsCase("token_concat", CLICKS + "click_ts != @end_ts || 'x'", ()),
    TsCase("token_div", CLICKS + "click_ts >= @start_ts div 2", ()),
    TsCase("token_in_list", CLICKS + "click_ts >= @start_ts not in ('a')", ()),
    TsCase("column_plus", CLICKS + "click_ts + interval 1 hour >= @start_ts", ()),
    TsCase("plus_column", CLICKS + "x + click_ts >= @start_ts", ()),
    TsCase("negative_column", CLICKS + "-click_ts >= @start_ts", ()),
    TsCase("function_of_column", CLICKS + "to_date(click_ts) >= @start_ts", ()),
    TsCase("a_function_named_so", CLICKS + "click_ts(1) >= @start_ts", ()),
    TsCase("struct_field", CLICKS + "@start_ts <= click_ts.f", ()),
    TsCase("chained_comparison", CLICKS + "a < click_ts >= @start_ts", ()),
    TsCase("token_compared_further", CLICKS + "click_ts = @start_ts < x", ()),
    TsCase("between_of_a_sum", CLICKS + "x + click_ts between @start_ts and @end_ts", ()),
    TsCase("in_list", CLICKS + "click_ts in (@start_ts)", ()),
    TsCase("in_a_string", CLICKS + "'@start_ts' = click_ts", ()),
    TsCase("in_a_comment", CLICKS + "d = @start_ds -- and click_ts >= @start_ts", ()),
    TsCase("unbalanced", CLICKS + "(click_ts >= @start_ts", ()),
]
