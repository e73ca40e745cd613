from __future__ import annotations

from typing import Any

import pytest
from dbt_common.exceptions import CompilationError

from dbt.adapters.vulcan.impl import VulcanAdapter
from dbt.adapters.vulcan.safety import (
    OVERRIDABLE,
    REFUSED,
    TS_ON_TIMESTAMP,
    Finding,
    analyze,
    normalize_overrides,
    ts_bounds,
    verdict,
)
from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.oracle.config import validate

FILTER = "WHERE order_date BETWEEN @start_ds AND @end_ds"


def found(sql: str, time_column: str = "order_date", **kwargs: Any) -> list[tuple[str, str]]:
    """(pattern, fragment) of every finding."""
    return [(f.pattern, f.fragment) for f in analyze(sql, time_column, **kwargs)]


def patterns(sql: str, time_column: str = "order_date", **kwargs: Any) -> list[str]:
    return [f.pattern for f in analyze(sql, time_column, **kwargs)]


# ------------------------------------------------------------------ the Vulcan guide

WEEKLY_SALES = """
SELECT
  DATE_TRUNC('week', order_date) AS order_date,
  COUNT(DISTINCT order_id)::INTEGER AS total_orders,
  SUM(total_amount)::FLOAT AS total_revenue,
  AVG(total_amount)::FLOAT AS avg_order_value
FROM sales.daily_sales
WHERE order_date BETWEEN @start_ds AND @end_ds  -- Filter by time range
GROUP BY DATE_TRUNC('week', order_date)
ORDER BY order_date
"""

DAILY_SALES = """
SELECT
  CAST(order_date AS TIMESTAMP)::TIMESTAMP AS order_date,
  COUNT(order_id)::INTEGER AS total_orders,
  SUM(total_amount)::FLOAT AS total_revenue,
  MAX(order_id)::VARCHAR AS last_order_id
FROM raw.raw_orders
WHERE order_date BETWEEN @start_ds AND @end_ds  -- ADD THIS
GROUP BY order_date
ORDER BY order_date
"""


@pytest.mark.parametrize("unit", ["day", "week"])
def test_guide_weekly_sales_is_admitted(unit: str) -> None:
    # the time column is the alias of the GROUP BY expression: aligned whatever the unit
    assert analyze(WEEKLY_SALES, "order_date", interval_unit=unit) == []


def test_guide_daily_sales_is_admitted() -> None:
    assert analyze(DAILY_SALES, "order_date") == []


def test_guide_daily_sales_without_filter_only_warns() -> None:
    sql = DAILY_SALES.replace("WHERE order_date BETWEEN @start_ds AND @end_ds", "")
    findings = analyze(sql, "order_date")
    assert [f.pattern for f in findings] == ["no_time_filter"]
    assert not findings[0].refused


# ------------------------------------------------------------------ limit


def test_limit_at_top_level_is_refused() -> None:
    sql = f"SELECT order_date, id FROM orders {FILTER} ORDER BY id LIMIT 100"
    [finding] = analyze(sql, "order_date")
    assert (finding.pattern, finding.fragment) == ("limit", "LIMIT 100")
    assert finding.location == "the top-level query"
    assert finding.refused


def test_limit_in_cte_names_the_cte() -> None:
    sql = f"""
        WITH recent_orders AS (SELECT * FROM orders {FILTER} ORDER BY ts DESC LIMIT 10)
        SELECT order_date, id FROM recent_orders
    """
    [finding] = analyze(sql, "order_date")
    assert finding.message.startswith("LIMIT 10 in CTE recent_orders: ")
    assert finding.location == "CTE recent_orders"


@pytest.mark.parametrize(
    ("sql", "location"),
    [
        (
            f"SELECT order_date FROM (SELECT * FROM orders {FILTER} LIMIT 5) AS t",
            "subquery t",
        ),
        (
            f"SELECT order_date FROM orders {FILTER} AND id IN (SELECT id FROM vip LIMIT 3)",
            "a subquery",
        ),
        (
            f"WITH x AS (SELECT * FROM (SELECT * FROM orders {FILTER} LIMIT 5) AS t) "
            "SELECT order_date FROM x",
            "subquery t in CTE x",
        ),
    ],
)
def test_limit_in_subqueries_is_refused(sql: str, location: str) -> None:
    [finding] = analyze(sql, "order_date")
    assert finding.pattern == "limit"
    assert finding.location == location


def test_limit_on_union_and_offset_are_refused() -> None:
    sql = f"SELECT order_date FROM a {FILTER} UNION ALL SELECT order_date FROM b {FILTER} LIMIT 7"
    assert found(sql) == [("limit", "LIMIT 7")]
    sql = f"SELECT order_date FROM a {FILTER} ORDER BY order_date LIMIT 5 OFFSET 3"
    assert found(sql) == [("limit", "LIMIT 5"), ("limit", "OFFSET 3")]


def test_order_by_without_limit_is_admitted() -> None:
    assert analyze(f"SELECT order_date, id FROM orders {FILTER} ORDER BY id", "order_date") == []


# ------------------------------------------------------------------ nondeterministic


@pytest.mark.parametrize(
    "call",
    [
        "rand()",
        "random()",
        "randn(7)",
        "uuid()",
        "shuffle(items)",
        "current_timestamp()",
        "current_timestamp",
        "now()",
        "current_date()",
        "current_date",
        "localtimestamp()",
        "monotonically_increasing_id()",
        "spark_partition_id()",
        "input_file_name()",
    ],
)
def test_nondeterministic_functions_are_refused(call: str) -> None:
    sql = f"SELECT order_date, {call} AS x FROM orders {FILTER}"
    findings = analyze(sql, "order_date")
    assert [f.pattern for f in findings] == ["nondeterministic"]
    assert findings[0].refused


def test_clock_functions_point_to_execution_tokens() -> None:
    sql = f"SELECT order_date FROM orders {FILTER} AND ts < current_timestamp()"
    [finding] = analyze(sql, "order_date")
    assert "@execution_dt" in finding.message


def test_nondeterministic_in_where_of_cte_is_refused() -> None:
    sql = f"WITH s AS (SELECT * FROM orders {FILTER} AND rand() < 0.1) SELECT order_date FROM s"
    [finding] = analyze(sql, "order_date")
    assert (finding.pattern, finding.fragment, finding.location) == (
        "nondeterministic",
        "RAND()",
        "CTE s",
    )


def test_tablesample_is_refused() -> None:
    sql = f"SELECT order_date FROM orders TABLESAMPLE (10 PERCENT) {FILTER}"
    assert patterns(sql) == ["nondeterministic"]


def test_time_tokens_are_not_nondeterministic() -> None:
    sql = (
        "SELECT order_date, @execution_dt AS loaded_at, @execution_ds AS load_day, "
        "'now()' AS note, random_value FROM orders "
        "WHERE order_date BETWEEN @start_date AND @end_date AND created < @execution_ts"
    )
    assert analyze(sql, "order_date") == []


# ------------------------------------------------------------------ window


@pytest.mark.parametrize(
    "window",
    [
        "ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts)",
        "SUM(amount) OVER (ORDER BY ts)",
        "COUNT(*) OVER ()",
        "LAG(amount) OVER (PARTITION BY user_id, device ORDER BY order_date)",
    ],
)
def test_unaligned_windows_are_refused(window: str) -> None:
    sql = f"SELECT order_date, {window} AS w FROM orders {FILTER}"
    assert found(sql) == [("window", window)]


@pytest.mark.parametrize(
    "partition",
    [
        "order_date",
        "order_date, device_id",
        "device_id, o.order_date",
        "ORDER_DATE",
        "CAST(order_date AS STRING)",
        "DATE_TRUNC('day', order_date)",
        "TO_DATE(order_date)",
    ],
)
def test_partition_aligned_windows_are_admitted(partition: str) -> None:
    sql = (
        f"SELECT order_date, FIRST_VALUE(user_id) OVER (PARTITION BY {partition} "
        f"ORDER BY ts) AS first_user FROM orders o {FILTER}"
    )
    assert analyze(sql, "order_date") == []


def test_window_partitioned_by_alias_source_expression() -> None:
    sql = (
        "SELECT CAST(ts AS DATE) AS order_date, "
        "ROW_NUMBER() OVER (PARTITION BY CAST(ts AS DATE) ORDER BY ts) AS rn, "
        "ROW_NUMBER() OVER (PARTITION BY ts, user_id ORDER BY id) AS same_ts "
        "FROM events WHERE ts BETWEEN @start_dt AND @end_dt"
    )
    # the output time column is CAST(ts AS DATE): partitions by it, or by the finer ts
    assert analyze(sql, "order_date") == []


def test_window_partitioned_by_unrelated_column_with_alias_is_refused() -> None:
    sql = (
        "SELECT CAST(ts AS DATE) AS order_date, "
        "ROW_NUMBER() OVER (PARTITION BY CAST(created AS DATE) ORDER BY ts) AS rn "
        "FROM events WHERE ts BETWEEN @start_dt AND @end_dt"
    )
    assert patterns(sql) == ["window"]


def test_window_coarser_than_the_interval_is_refused() -> None:
    sql = (
        "SELECT order_date, SUM(amount) OVER (PARTITION BY DATE_TRUNC('month', order_date) "
        f"ORDER BY order_date) AS month_to_date FROM orders {FILTER}"
    )
    assert patterns(sql) == ["window"]
    assert patterns(sql, interval_unit="hour") == ["window"]
    assert patterns(sql, interval_unit="month") == []
    assert patterns(sql, interval_unit="year") == []


def test_week_truncation_needs_monday_weeks() -> None:
    sql = (
        "SELECT order_date, RANK() OVER (PARTITION BY DATE_TRUNC('week', order_date) "
        f"ORDER BY amount) AS r FROM orders {FILTER}"
    )
    assert patterns(sql, interval_unit="week") == []
    assert patterns(sql, interval_unit="week", week_start=6) == ["window"]
    assert patterns(sql, interval_unit="month") == ["window"]


def test_date_cast_window_needs_daily_or_coarser_intervals() -> None:
    sql = (
        "SELECT ts AS order_date, ROW_NUMBER() OVER (PARTITION BY CAST(ts AS DATE) "
        "ORDER BY ts) AS rn FROM events WHERE ts BETWEEN @start_dt AND @end_dt"
    )
    assert patterns(sql, interval_unit="day") == []
    assert patterns(sql, interval_unit="hour") == ["window"]


def test_named_window_is_resolved() -> None:
    ok = (
        f"SELECT order_date, SUM(x) OVER w AS s FROM orders {FILTER} "
        "WINDOW w AS (PARTITION BY order_date ORDER BY ts)"
    )
    bad = ok.replace("PARTITION BY order_date", "PARTITION BY user_id")
    assert analyze(ok, "order_date") == []
    assert patterns(bad) == ["window"]


def test_window_in_cte_is_refused_with_location() -> None:
    sql = f"""
        WITH ranked AS (
          SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY updated_at DESC) AS rn
          FROM orders {FILTER}
        )
        SELECT order_date, order_id FROM ranked WHERE rn = 1
    """
    [finding] = analyze(sql, "order_date")
    assert finding.pattern == "window"
    assert finding.location == "CTE ranked"
    assert "order_date" in finding.message


# ------------------------------------------------------------------ distinct


def test_select_distinct_without_time_column_is_refused() -> None:
    sql = f"SELECT DISTINCT customer_id FROM orders {FILTER}"
    assert found(sql) == [("distinct", "SELECT DISTINCT customer_id")]


@pytest.mark.parametrize(
    "select",
    [
        "SELECT DISTINCT order_date, customer_id FROM orders",
        "SELECT DISTINCT customer_id, o.order_date FROM orders o",
        "SELECT DISTINCT * FROM orders",
        "SELECT DISTINCT o.* FROM orders o",
        "SELECT DISTINCT CAST(ts AS DATE) AS order_date, customer_id FROM orders",
    ],
)
def test_select_distinct_with_time_column_is_admitted(select: str) -> None:
    assert analyze(f"{select} {FILTER}", "order_date") == []


def test_distinct_in_cte_is_refused() -> None:
    sql = f"""
        WITH buyers AS (SELECT DISTINCT customer_id FROM orders {FILTER})
        SELECT o.order_date, o.customer_id FROM orders o JOIN buyers b USING (customer_id)
    """
    [finding] = analyze(sql, "order_date")
    assert (finding.pattern, finding.location) == ("distinct", "CTE buyers")


def test_count_distinct_is_not_select_distinct() -> None:
    sql = f"SELECT order_date, COUNT(DISTINCT user_id) AS users FROM orders {FILTER} GROUP BY 1"
    assert analyze(sql, "order_date") == []


# ------------------------------------------------------------------ unions


def test_union_all_is_admitted() -> None:
    sql = f"SELECT order_date, id FROM a {FILTER} UNION ALL SELECT order_date, id FROM b {FILTER}"
    assert analyze(sql, "order_date") == []


def test_union_distinct_is_admitted_with_time_column() -> None:
    sql = f"SELECT order_date, id FROM a {FILTER} UNION SELECT order_date, id FROM b {FILTER}"
    assert analyze(sql, "order_date") == []


@pytest.mark.parametrize("operation", ["UNION", "INTERSECT", "EXCEPT"])
def test_distinct_set_operation_without_time_column_is_refused(operation: str) -> None:
    sql = f"""
        WITH ids AS (SELECT id FROM a {FILTER} {operation} SELECT id FROM b {FILTER})
        SELECT o.order_date, o.id FROM orders o JOIN ids USING (id)
    """
    [finding] = analyze(sql, "order_date")
    assert (finding.pattern, finding.fragment) == ("distinct", f"{operation} (without ALL)")
    assert finding.location == "CTE ids"


def test_union_distinct_nested_under_union_all_is_found() -> None:
    sql = (
        f"SELECT id FROM a {FILTER} UNION SELECT id FROM b {FILTER} "
        f"UNION ALL SELECT id FROM c {FILTER}"
    )
    assert patterns(sql, "event_day") == ["distinct"]


def test_union_branch_time_columns_are_matched_by_position() -> None:
    sql = f"""
        SELECT CAST(ts AS DATE) AS order_date, COUNT(*) AS n FROM web
        WHERE ts BETWEEN @start_dt AND @end_dt GROUP BY CAST(ts AS DATE)
        UNION ALL
        SELECT event_day, COUNT(*) FROM shop {FILTER.replace("order_date", "event_day")}
        GROUP BY event_day
    """
    assert analyze(sql, "order_date") == []
    assert patterns(sql.replace("GROUP BY event_day", "GROUP BY shop_id")) == ["group_by"]


# ------------------------------------------------------------------ group by / having


def test_group_by_without_time_column_is_refused() -> None:
    sql = f"SELECT customer_id, MAX(order_date) AS order_date FROM orders {FILTER} GROUP BY 1"
    [finding] = analyze(sql, "order_date")
    assert (finding.pattern, finding.fragment) == ("group_by", "GROUP BY 1")


@pytest.mark.parametrize(
    "group_by",
    [
        "GROUP BY order_date, customer_id",
        "GROUP BY customer_id, o.order_date",
        "GROUP BY 2, 1",
        "GROUP BY ALL",
        "GROUP BY order_date, ROLLUP (customer_id)",
        "GROUP BY GROUPING SETS ((order_date, customer_id), (order_date))",
    ],
)
def test_time_aligned_group_by_is_admitted(group_by: str) -> None:
    sql = (
        "SELECT customer_id, order_date, SUM(amount) AS total "
        f"FROM orders o {FILTER} {group_by} HAVING SUM(amount) > 0"
    )
    assert analyze(sql, "order_date") == []


@pytest.mark.parametrize(
    "group_by",
    [
        "GROUP BY customer_id",
        "GROUP BY 1",
        "GROUP BY ROLLUP (order_date, customer_id)",
        "GROUP BY CUBE (order_date, customer_id)",
        "GROUP BY order_date, customer_id WITH ROLLUP",
        "GROUP BY GROUPING SETS ((order_date, customer_id), ())",
        "GROUP BY DATE_TRUNC('month', order_date), customer_id",
    ],
)
def test_unaligned_group_by_is_refused(group_by: str) -> None:
    sql = f"SELECT customer_id, SUM(amount) AS total FROM orders {FILTER} {group_by}"
    assert patterns(sql) == ["group_by"]


def test_group_by_all_without_time_column_is_refused() -> None:
    sql = f"SELECT customer_id, SUM(amount) AS total FROM orders {FILTER} GROUP BY ALL"
    assert patterns(sql) == ["group_by"]


def test_group_by_the_aliased_expression() -> None:
    sql = (
        "SELECT cast(ts as date) AS order_date, user_id, COUNT(*) AS n FROM events "
        "WHERE ts BETWEEN @start_dt AND @end_dt GROUP BY cast(ts as date), user_id"
    )
    assert analyze(sql, "order_date") == []


def test_group_by_ordinal_of_the_aliased_expression() -> None:
    # smelt's daily_revenue example, with revenue_date as the time column
    sql = """
        SELECT CAST(transaction_timestamp AS DATE) as revenue_date, user_id,
               COUNT(*) as transaction_count, SUM(amount) as total_revenue
        FROM raw.transactions
        WHERE transaction_timestamp BETWEEN @start_dt AND @end_dt
        GROUP BY 1, 2
        ORDER BY 1, 2
    """
    assert analyze(sql, "revenue_date") == []


def test_group_by_select_alias_resolves_to_its_expression() -> None:
    sql = (
        "SELECT CAST(ts AS DATE) AS day, user_id, COUNT(*) AS n FROM events "
        "WHERE ts BETWEEN @start_dt AND @end_dt GROUP BY day, user_id"
    )
    # output time column is `ts`; `day` is CAST(ts AS DATE), which nests in daily intervals
    assert analyze(sql, "ts") == []
    assert patterns(sql, "ts", interval_unit="hour") == ["group_by"]


def test_grouping_inside_subquery_by_time_column_is_admitted() -> None:
    sql = f"""
        SELECT d.order_date, d.customer_id, d.total * 2 AS doubled
        FROM (
          SELECT order_date, customer_id, SUM(amount) AS total
          FROM orders {FILTER} GROUP BY order_date, customer_id
        ) AS d
    """
    assert analyze(sql, "order_date") == []


def test_regrouping_a_subquery_without_time_is_refused() -> None:
    sql = f"""
        SELECT customer_id, MAX(order_date) AS order_date, SUM(total) AS total
        FROM (
          SELECT order_date, customer_id, SUM(amount) AS total
          FROM orders {FILTER} GROUP BY order_date, customer_id
        ) AS d
        GROUP BY customer_id
    """
    [finding] = analyze(sql, "order_date")
    assert (finding.pattern, finding.location) == ("group_by", "the top-level query")


def test_aggregate_without_group_by_is_refused() -> None:
    sql = f"""
        SELECT order_date, amount FROM orders {FILTER}
        AND amount > (SELECT AVG(amount) FROM orders {FILTER})
    """
    [finding] = analyze(sql, "order_date")
    assert (finding.pattern, finding.fragment, finding.location) == (
        "group_by",
        "AVG(amount)",
        "a subquery",
    )


def test_aggregate_window_is_not_a_plain_aggregate() -> None:
    sql = f"SELECT order_date, SUM(amount) OVER (PARTITION BY order_date) AS t FROM o {FILTER}"
    assert analyze(sql, "order_date") == []


def test_having_on_unaligned_grouping_is_refused_separately() -> None:
    sql = f"""
        WITH loyal AS (
          SELECT customer_id FROM orders {FILTER}
          GROUP BY customer_id HAVING COUNT(*) > 5
        )
        SELECT order_date, customer_id FROM orders {FILTER}
        AND customer_id IN (SELECT customer_id FROM loyal)
    """
    assert found(sql) == [
        ("group_by", "GROUP BY customer_id"),
        ("having", "HAVING COUNT(*) > 5"),
    ]
    assert found(sql, overrides=["group_by"]) == [("having", "HAVING COUNT(*) > 5")]
    assert found(sql, overrides=["group_by", "having"]) == []


def test_having_without_group_by_is_refused() -> None:
    # the subquery reads the batch's slice: its HAVING sees one slice
    subquery = f"SELECT 1 FROM orders {FILTER} HAVING COUNT(*) > 0"
    sql = f"SELECT order_date FROM orders {FILTER} AND 1 = ({subquery})"
    assert patterns(sql) == ["having"]
    # a subquery that reads nothing (or all of a relation) answers alike on every batch
    sql = f"SELECT order_date FROM orders {FILTER} AND 1 = (SELECT 1 HAVING COUNT(*) > 0)"
    assert patterns(sql) == []


# ------------------------------------------------------------------ overrides


def test_overrides_silence_each_pattern() -> None:
    sql = """
        WITH r AS (SELECT customer_id, rand() AS x FROM orders LIMIT 10)
        SELECT DISTINCT customer_id, MAX(order_date) AS last_order,
               ROW_NUMBER() OVER (ORDER BY customer_id) AS rn
        FROM r GROUP BY customer_id HAVING COUNT(*) > 1
    """
    everything = set(patterns(sql))
    # ts_on_timestamp is read apart (ts_bounds), only for a TIMESTAMP time column
    assert everything == set(OVERRIDABLE) - {TS_ON_TIMESTAMP}
    for name in everything:
        remaining = set(patterns(sql, overrides=[name]))
        assert remaining == everything - {name}
    assert analyze(sql, "order_date", list(OVERRIDABLE)) == []


def test_override_names_are_case_insensitive() -> None:
    sql = f"SELECT order_date FROM orders {FILTER} LIMIT 1"
    assert analyze(sql, "order_date", ["LIMIT "]) == []
    assert normalize_overrides(None) == frozenset()


def test_unknown_override_is_a_config_error() -> None:
    with pytest.raises(VulcanConfigError) as err:
        analyze("SELECT 1", "order_date", ["windows", "bogus"])
    text = str(err.value)
    assert "safety_overrides" in text
    assert "'windows' (did you mean 'window'?)" in text
    assert "'bogus'" in text
    assert "limit, nondeterministic, window, distinct, group_by, having, no_time_filter" in text


# ------------------------------------------------------------------ time filter / parsing


@pytest.mark.parametrize(
    "where",
    [
        "WHERE order_date >= @start_ds",
        "WHERE order_date <= @{end_ds}",
        "WHERE ts BETWEEN @start_epoch AND @end_epoch",
        "WHERE ms < @end_millis",
    ],
)
def test_time_tokens_count_as_filter(where: str) -> None:
    assert analyze(f"SELECT order_date FROM orders {where}", "order_date") == []


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT order_date FROM orders",
        "SELECT order_date FROM orders -- WHERE order_date >= @start_ds",
        "SELECT order_date, '@start_ds' AS s FROM orders",
        "SELECT order_date FROM orders WHERE loaded <= @execution_ds",
    ],
)
def test_missing_time_filter_warns(sql: str) -> None:
    [finding] = analyze(sql, "order_date")
    assert finding.pattern == "no_time_filter"
    assert finding.severity == "warn"
    assert "@start_ds" in finding.message
    assert analyze(sql, "order_date", ["no_time_filter"]) == []


def test_unparseable_sql_warns_with_parser_message() -> None:
    findings = analyze(f"SELECT order_date FROM {FILTER} (", "order_date", ["limit"])
    [finding] = findings
    assert finding.pattern == "unparseable"
    assert not finding.refused
    assert "Expected table name but got 'WHERE'" in finding.message
    assert "\x1b" not in finding.message
    assert verdict("m", findings)[0] is None


def test_a_statement_that_is_not_a_query_warns() -> None:
    [finding] = analyze(f"DELETE FROM orders {FILTER}", "order_date")
    assert finding.pattern == "unparseable"
    assert "not a query" in finding.message


def test_bad_interval_unit_is_a_config_error() -> None:
    with pytest.raises(VulcanConfigError, match="interval_unit"):
        analyze("SELECT 1", "d", interval_unit="fortnight")


# ------------------------------------------------------------------ findings and verdict


def test_findings_are_ordered_by_pattern_and_deterministic() -> None:
    sql = f"""
        SELECT DISTINCT customer_id, now() AS n FROM orders {FILTER} LIMIT 3
    """
    first = analyze(sql, "order_date")
    assert [f.pattern for f in first] == ["limit", "nondeterministic", "distinct"]
    assert analyze(sql, "order_date") == first


def test_identical_findings_in_one_place_are_reported_once() -> None:
    sql = f"SELECT order_date, rand() AS a, rand() AS b FROM orders {FILTER}"
    assert patterns(sql) == ["nondeterministic"]


def test_classification() -> None:
    assert set(OVERRIDABLE) - REFUSED == {"no_time_filter", "ts_on_timestamp"}
    assert Finding("window", "m", "f").refused
    assert Finding("window", "m", "f").severity == "refuse"
    assert not Finding("unparseable", "m", "").refused


def test_verdict_lists_every_refusal_and_the_override_names() -> None:
    sql = "SELECT customer_id, rand() AS r FROM orders LIMIT 10"
    refusal, warnings = verdict("recent", analyze(sql, "order_date"))
    assert refusal is not None
    assert refusal.startswith("Model 'recent': the incremental safety analysis refused")
    assert "  - [limit] LIMIT 10 in the top-level query: " in refusal
    assert "  - [nondeterministic] RAND() in the top-level query: " in refusal
    assert "safety_overrides config (here: ['limit', 'nondeterministic'])" in refusal
    assert warnings == [
        "Model 'recent': safety analysis [no_time_filter]: the SQL uses none of the "
        "@start_*/@end_* tokens, so every batch reads all input data (the output filter "
        "still keeps only the batch's rows); filter the input, e.g. WHERE order_date "
        "BETWEEN @start_ds AND @end_ds"
    ]


def test_verdict_without_refusals() -> None:
    assert verdict("m", []) == (None, [])


# ------------------------------------------------------------------ adapter method


def _adapter() -> VulcanAdapter:
    return VulcanAdapter.__new__(VulcanAdapter)  # the method needs no connection


KIND = "incremental_by_time_range"


def _model(**config: Any) -> dict[str, Any]:
    """The settings the run validated (in Jinja; the oracle gives the same dict), as the
    materialization hands them to the adapter."""
    base = {"time_column": "order_date", "start": "2025-01-01"}
    return validate("orders_daily", KIND, {**base, **config}).as_dict()


def test_check_safety_returns_warnings() -> None:
    warnings = _adapter().vulcan_check_safety(_model(), "SELECT order_date FROM o")
    assert len(warnings) == 1
    assert warnings[0].startswith("Model 'orders_daily': safety analysis [no_time_filter]")
    assert _adapter().vulcan_check_safety(_model(), DAILY_SALES) == []


def test_check_safety_refuses() -> None:
    sql = f"WITH recent_orders AS (SELECT * FROM o {FILTER} LIMIT 10) SELECT * FROM recent_orders"
    with pytest.raises(CompilationError) as err:
        _adapter().vulcan_check_safety(_model(), sql)
    assert "Model 'orders_daily'" in str(err.value)
    assert "LIMIT 10 in CTE recent_orders" in str(err.value)
    assert _adapter().vulcan_check_safety(_model(safety_overrides=["limit"]), sql) == []


def test_check_safety_uses_the_models_interval_unit() -> None:
    sql = (
        "SELECT order_date, SUM(x) OVER (PARTITION BY DATE_TRUNC('month', order_date)) AS m "
        f"FROM o {FILTER}"
    )
    with pytest.raises(CompilationError, match=r"\[window\]"):
        _adapter().vulcan_check_safety(_model(), sql)
    assert _adapter().vulcan_check_safety(_model(interval_unit="month"), sql) == []


def test_ts_tokens_bounding_the_time_column() -> None:
    sql = "SELECT click_id, click_ts FROM clicks WHERE click_ts BETWEEN @start_ts AND @end_ts"
    assert ts_bounds(sql, "click_ts") == ["@start_ts", "@end_ts"]
    assert ts_bounds(sql, "`CLICK_TS`") == ["@start_ts", "@end_ts"]  # as the config names it
    assert ts_bounds(sql, "other_ts") == []
    # either side of a comparison, qualified or backquoted, in any query of the statement
    sql = (
        "WITH c AS (SELECT * FROM clicks WHERE @{start_ts} <= c.`click_ts`) "
        "SELECT * FROM c WHERE click_ts < @end_ts"
    )
    assert ts_bounds(sql, "click_ts") == ["@start_ts", "@end_ts"]
    # a bound is the token itself: computed from it, or another token, it is none
    sql = (
        "SELECT * FROM clicks WHERE click_ts >= CAST(@start_ts AS TIMESTAMP) "
        "AND click_ts < @end_ts + INTERVAL 1 HOUR AND click_ts <= @end_dt AND d = @start_ds"
    )
    assert ts_bounds(sql, "click_ts") == []
    # a token in a string or a comment, or SQL that cannot be parsed, bounds nothing
    assert ts_bounds("SELECT * FROM c WHERE click_ts = '@start_ts' -- @end_ts", "click_ts") == []
    assert ts_bounds("SELECT * FROM c WHERE (click_ts >= @start_ts", "click_ts") == []


def test_adapter_method_gives_the_ts_bounds() -> None:
    sql = "SELECT click_ts FROM clicks WHERE click_ts > @start_ts"
    assert _adapter().vulcan_ts_bounds(sql, "click_ts") == ["@start_ts"]
    # the override name is a pattern of the analysis: accepted, and it silences nothing else
    assert _adapter().vulcan_check_safety(_model(safety_overrides=["ts_on_timestamp"]), sql) == []


def test_check_safety_reports_bad_overrides_and_skips_a_model_without_time_column() -> None:
    # the validator refuses an unknown override first; the analysis names it too
    settings = {**_model(), "safety_overrides": ["limits"]}
    with pytest.raises(CompilationError, match="Model 'orders_daily': safety_overrides"):
        _adapter().vulcan_check_safety(settings, "SELECT 1")
    assert _adapter().vulcan_check_safety({**_model(), "time_column": None}, "SELECT 1") == []


# ------------------------------------------------------------------ which queries see one slice

ORDERS_WITH_TOTALS = """
WITH customer_totals AS (
  SELECT customer_id, COUNT(*) AS lifetime_orders, SUM(amount) AS lifetime_amount
  FROM orders
  GROUP BY customer_id
)
SELECT o.order_date, o.order_id, t.lifetime_orders
FROM orders o JOIN customer_totals t ON o.customer_id = t.customer_id
WHERE o.order_date BETWEEN @start_ds AND @end_ds
"""


def test_grouping_a_relation_read_in_full_is_admitted() -> None:
    # the CTE reads every order on every batch: the same answer on a slice as on the full data
    assert patterns(ORDERS_WITH_TOTALS) == []
    windowed = ORDERS_WITH_TOTALS.replace(
        "COUNT(*) AS lifetime_orders",
        "COUNT(*) AS lifetime_orders, ROW_NUMBER() OVER (ORDER BY customer_id) AS r",
    ).replace("SELECT customer_id,", "SELECT DISTINCT customer_id,")
    assert patterns(windowed) == []


def test_grouping_a_time_filtered_cte_is_refused() -> None:
    # the filter moves into the CTE: it now aggregates one slice of the orders
    sql = ORDERS_WITH_TOTALS.replace(
        "FROM orders\n  GROUP BY", f"FROM orders {FILTER}\n  GROUP BY"
    ).replace("WHERE o.order_date BETWEEN @start_ds AND @end_ds", "")
    assert found(sql) == [("group_by", "GROUP BY customer_id")]


def test_a_cte_reading_a_filtered_cte_sees_one_slice() -> None:
    sql = f"""
    WITH sliced AS (SELECT * FROM orders {FILTER}),
         per_customer AS (
           SELECT customer_id, SUM(amount) AS total FROM sliced GROUP BY customer_id
         ),
         dims AS (SELECT region, COUNT(*) AS shops FROM shops GROUP BY region)
    SELECT s.order_date, p.total, d.shops
    FROM sliced s JOIN per_customer p USING (customer_id) JOIN dims d USING (region)
    """
    # per_customer reads the slice through `sliced`; dims reads shops in full
    assert found(sql) == [("group_by", "GROUP BY customer_id")]


def test_a_filtered_subquery_sees_one_slice() -> None:
    sql = f"""
    SELECT order_date, n FROM orders
    JOIN (SELECT customer_id, COUNT(*) AS n FROM orders {FILTER} GROUP BY customer_id) c
      USING (customer_id)
    {FILTER}
    """
    assert found(sql) == [("group_by", "GROUP BY customer_id")]
    unfiltered = sql.replace(f"FROM orders {FILTER} GROUP BY", "FROM orders GROUP BY")
    assert found(unfiltered) == []


def test_the_outermost_query_is_always_one_slice() -> None:
    # the output filter keeps one batch of its rows, whatever it reads
    sql = "SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id"
    assert patterns(sql) == ["no_time_filter", "group_by"]
