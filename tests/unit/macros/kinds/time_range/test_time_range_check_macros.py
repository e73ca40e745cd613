"""The time range kind's check of the query's columns (kinds/time_range/
incremental_by_time_range.sql): the time column's type it reads becomes the plan's, which the
safety analysis that follows reads (a `_ts` token bounding a TIMESTAMP column:
safety/ts_bounds.sql); a plan that knows the type reads nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.macro_harness import FakeResult, stock_harness

SQL = "select click_id, click_ts from src_clicks"
CFG = {
    "kind": "incremental_by_time_range",
    "model": "clicks",
    "time_column": "click_ts",
    "time_data_type": None,
    "time_format": None,
    "interval_unit": "day",
    "cron": "@daily",
    "file_format": "parquet",
    "partition_cols": [],
    "partition_by_time_column": False,
}


def check(plan: dict[str, Any], dtype: str = "timestamp") -> tuple[Any, list[str]]:
    h = stock_harness("spark", SQL)
    h.query_results[f"describe query {SQL}"] = FakeResult(
        [("click_id", "bigint", None), ("click_ts", dtype, None)]
    )
    checked = h.call("_vulcan_time_range_check", CFG, {}, plan, SQL)
    return checked, h.statements


@pytest.mark.parametrize("dtype", ["timestamp", "date", "timestamp_ntz"])
def test_the_type_read_becomes_the_plans(dtype: str) -> None:
    plan = {"time_type": None, "rebuild": False, "fingerprint_changed": False, "has_state": False}
    checked, statements = check(plan, dtype)
    assert checked["time_type"] == plan["time_type"] == dtype
    assert statements == [f"describe query {SQL}"]


def test_a_known_type_is_not_read_again() -> None:
    plan = {"time_type": "timestamp", "rebuild": False, "fingerprint_changed": False}
    plan["has_state"] = True
    checked, statements = check(plan)
    assert checked["time_type"] == plan["time_type"] == "timestamp"
    assert statements == []
