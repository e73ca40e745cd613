"""docs/guides/migrate-insert-overwrite.md: its time-partitioned example, before (dbt-spark's
insert_overwrite over a window the job passes) and after (incremental_by_time_range with
lookback) as the page writes them, gives the same rows after the first build and after a
late order and a new day."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.functional import rows, run
from tests.support.guides import guide_block

PAGE = "migrate-insert-overwrite.md"
# orders of 2025-01-01 .. 2025-01-04; step 2 adds a late order for 2025-01-03 (inside the
# window) and the orders of 2025-01-05
ORDERS = """{{ config(materialized='view') }}
select * from values
  (1, date'2025-01-01', 1, 10.0D, 1), (2, date'2025-01-01', 2, 5.5D, 1),
  (3, date'2025-01-02', 1, 7.0D, 1), (4, date'2025-01-03', 3, 12.0D, 1),
  (5, date'2025-01-04', 2, 3.0D, 1),
  (6, date'2025-01-03', 3, 100.0D, 2), (7, date'2025-01-05', 1, 8.0D, 2)
  as t(order_id, order_date, customer_id, amount, step)
where step <= {{ var('step', 1) }}
"""
COLUMNS = "order_date, customer_id, orders, revenue"


class TestInsertOverwriteConverted:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "orders.sql": ORDERS,
            "before_customer_daily.sql": guide_block(PAGE, "before: models/customer_daily.sql"),
            "after_customer_daily.sql": guide_block(PAGE, "after: models/customer_daily.sql"),
        }

    def test_the_converted_model_gives_insert_overwrite_s_rows(self, project: Any) -> None:
        schema = project.test_schema

        def table(name: str) -> list[tuple[Any, ...]]:
            return rows(project, f"select {COLUMNS} from {schema}.{name} order by 1, 2")

        # the first build: the whole query, and every day up to 2025-01-04
        run("run", vars={"step": 1, "from": "2025-01-01", "vulcan_execution_time": "2025-01-05"})
        assert len(table("after_customer_daily")) == 5
        assert table("after_customer_daily") == table("before_customer_daily")
        # the next day's job: the old window from 2025-01-02; the new day and its lookback
        run("run", vars={"step": 2, "from": "2025-01-02", "vulcan_execution_time": "2025-01-06"})
        after = table("after_customer_daily")
        assert (after[3][2], after[3][3]) == (2, 112.0)  # the late order of 2025-01-03
        assert after == table("before_customer_daily")
