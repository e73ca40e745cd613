"""docs/guides/migrate-microbatch.md: its example, before (dbt's microbatch) and after
(incremental_by_time_range) as the page writes them, built side by side over the same input
with the same window, gives the same rows; also after late rows arrive for a built day."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.functional import rows, run
from tests.support.guides import guide_block

PAGE = "migrate-microbatch.md"
# the models' input: orders of 2025-01-01 .. 2025-01-04; step 2 adds a late order for
# 2025-01-02 and the orders of 2025-01-05. `event_time` lets microbatch filter it per batch.
ORDERS = """{{ config(materialized='view', event_time='order_date') }}
select * from values
  (1, date'2025-01-01', 10.0D, 1), (2, date'2025-01-01', 5.5D, 1), (3, date'2025-01-02', 7.0D, 1),
  (4, date'2025-01-03', 12.0D, 1), (5, date'2025-01-04', 3.0D, 1),
  (6, date'2025-01-02', 100.0D, 2), (7, date'2025-01-05', 8.0D, 2)
  as t(order_id, order_date, amount, step)
where step <= {{ var('step', 1) }}
"""
COLUMNS = "order_date, orders, revenue"


def _step(number: int, start: str, end: str) -> None:
    # the same window for both: dbt's flags, which microbatch and dbt-vulcan both read
    run("run", "--event-time-start", start, "--event-time-end", end, vars={"step": number})


class TestMicrobatchConverted:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "orders.sql": ORDERS,
            "before_daily_sales.sql": guide_block(PAGE, "before: models/daily_sales.sql"),
            "after_daily_sales.sql": guide_block(PAGE, "after: models/daily_sales.sql"),
        }

    def test_the_converted_model_gives_microbatch_s_rows(self, project: Any) -> None:
        schema = project.test_schema

        def table(name: str) -> list[tuple[Any, ...]]:
            return rows(project, f"select {COLUMNS} from {schema}.{name} order by 1")

        _step(1, "2025-01-01", "2025-01-05")
        assert len(table("after_daily_sales")) == 4
        assert table("after_daily_sales") == table("before_daily_sales")
        # late rows for 2025-01-02 and a new day: both recompute the window
        _step(2, "2025-01-02", "2025-01-06")
        after = table("after_daily_sales")
        assert [r[1] for r in after] == [2, 2, 1, 1, 1]
        assert after == table("before_daily_sales")
