"""A rebuild (`--full-refresh`) of an existing table: Delta and Iceberg replace theirs
atomically (the table and its history kept), a parquet table is dropped and created (cheaper
than emptying its partitions in place); either way with one `removed` row, and no row of the
old table left behind (a day no longer in the source is gone with its rows). A run stopped
after that row, before or after the table was emptied, leaves every interval to the next run,
which ends with the rows of a clean build."""

from __future__ import annotations

from typing import Any
from uuid import uuid4

import pytest

from tests.support.functional import append_state_row, orders_csv, rows, run, state_rows, table_rows

EXEC = "vulcan_execution_time"
DAILY = "order_date, total_orders"
BODY = """
select order_date, count(order_id) as total_orders
from {{ ref('raw_orders') }}
where order_date between @start_ds and @end_ds
group by order_date
"""
KEYED = """
select order_id, order_date, customer_id from {{ ref('raw_orders') }}
"""


def append_reset(project: Any, table_format: str, name: str) -> None:
    """The `removed` row a rebuild records first, as a run killed right after it leaves it."""
    append_state_row(
        project,
        table_format,
        name,
        "removed",
        {"reset": True},
        "1900-01-01 00:00:00",
        "9999-12-31 00:00:00",
    )


def drop_day(project: Any) -> None:
    """The source loses its orders of 2025-01-03 (through a copy of its own name: a dropped
    Iceberg table leaves its folder behind)."""
    schema = project.test_schema
    keep = f"{schema}.keep_{uuid4().hex[:8]}"
    project.run_sql(
        f"create table {keep} as select * from {schema}.raw_orders "
        "where order_date <> date'2025-01-03'"
    )
    project.run_sql(f"insert overwrite table {schema}.raw_orders select * from {keep}")
    project.run_sql(f"drop table {keep}")


class TestRebuildInPlace:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=5)}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        daily = (
            "{{ config(materialized='incremental_by_time_range', "
            "meta={'time_column': 'order_date', 'start': '2025-01-01'}) }}" + BODY
        )
        keyed = "{{ config(materialized='incremental_by_unique_key', unique_key='order_id') }}"
        return {"daily.sql": daily, "keyed.sql": keyed + KEYED}

    def test_rebuilt_with_one_removed_row(self, project: Any, table_format: str) -> None:
        schema = project.test_schema
        run("seed")
        at = {EXEC: "2025-01-06 00:00:00"}
        run("run", vars=at)
        clean_daily = table_rows(project, "daily", DAILY)
        assert len(clean_daily) == 5
        # the source loses a day: the rebuild leaves neither its day nor its orders
        drop_day(project)
        run("run", "--full-refresh", vars=at)
        daily = table_rows(project, "daily", DAILY)
        assert daily == [r for r in clean_daily if str(r[0]) != "2025-01-03"]
        keyed = table_rows(project, "keyed", "order_id, order_date")
        assert keyed == table_rows(project, "raw_orders", "order_id, order_date")
        for name in ("daily", "keyed"):
            logged = [t for _, _, t in state_rows(project, name)]
            # first run: its processed rows; the rebuild: one removed row, then its own
            assert logged.count("removed") == 1, (name, logged)
            assert logged[-2:] == ["removed", "processed"], (name, logged)
            if table_format == "delta":
                # replaced atomically: the table's history goes on
                history = rows(project, f"describe history {schema}.{name}")
                operations = [str(r[4]) for r in history]
                assert "CREATE OR REPLACE TABLE" in operations, (name, operations)
                assert len(history) > 2, (name, operations)
        stale = f"select count(*) from {schema}.daily where order_date = '2025-01-03'"
        assert rows(project, stale) == [(0,)]

    def test_a_run_stopped_after_the_removed_row_is_finished_by_the_next(
        self, project: Any, table_format: str
    ) -> None:
        schema = project.test_schema
        run("seed")
        at = {EXEC: "2025-01-06 00:00:00"}
        run("run", "--full-refresh", vars=at)
        clean = table_rows(project, "daily", DAILY)
        drop_day(project)
        expected = [r for r in clean if str(r[0]) != "2025-01-03"]
        # stopped after the removed row, the table not yet emptied
        append_reset(project, table_format, "daily")
        run("run", vars=at)
        assert table_rows(project, "daily", DAILY) == expected
        # stopped after the table was emptied, before the first batch
        append_reset(project, table_format, "daily")
        emptied = "truncate table" if table_format == "parquet" else "delete from"
        project.run_sql(f"{emptied} {schema}.daily")
        run("run", vars=at)
        assert table_rows(project, "daily", DAILY) == expected
        # stopped between the DROP and the CREATE: no table, its intervals reset
        append_reset(project, table_format, "daily")
        project.run_sql(f"drop table {schema}.daily{' purge' if table_format == 'iceberg' else ''}")
        run("run", vars=at)
        assert table_rows(project, "daily", DAILY) == expected
        logged = [t for _, _, t in state_rows(project, "daily")]
        assert logged[-1] == "processed", logged
