"""The interval state log on a real SparkSession: created on first use in the target's table
format, read back identically by a new invocation, and safe under concurrent appends."""

from __future__ import annotations

from typing import Any

import pytest

from tests.functional.util import STATE, orders_csv, processed_rows, rows, run

MODEL = """
{{ config(materialized='incremental_by_time_range', time_column='order_date',
          start='2025-01-01', batch_size=2) }}
select order_date, count(*) as n from {{ ref('raw_orders') }}
where order_date between @start_ds and @end_ds group by order_date
"""


class TestStateLog:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv()}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {f"m{i}.sql": MODEL for i in range(4)}

    @pytest.mark.adapter_only(
        reason="the vulcan adapter serializes the state appends of dbt's threads; with the "
        "package alone, threads > 1 need a delta or iceberg state table (README, Install)"
    )
    def test_four_threads_append_without_losing_rows(self, project: Any, table_format: str) -> None:
        run("seed")
        run("run", "--threads", "4", vars={"vulcan_execution_time": "2025-01-13"})
        expected = [
            (f"2025-01-{d:02d} 00:00:00", f"2025-01-{d + 2:02d} 00:00:00")
            for d in (1, 3, 5, 7, 9, 11)
        ]
        for i in range(4):
            assert sorted(processed_rows(project, f"m{i}")) == expected
            assert rows(project, f"select count(*) from {project.test_schema}.m{i}") == [(12,)]
        # every row of this schema's models, each batch exactly once
        schema = project.test_schema.lower()
        counted = rows(
            project,
            f"select count(*), count(distinct relation, interval_start) from {STATE} "
            f"where relation like '{schema}.m%' and row_type = 'processed'",
        )
        assert counted == [(24, 24)]
        # the log's table format follows the target's
        props = rows(project, f"describe extended {STATE}")
        provider = [r[1] for r in props if str(r[0]).strip().lower() == "provider"]
        assert provider == [table_format]

    def test_new_invocation_reads_back_what_was_recorded(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "m0", "--full-refresh", vars={"vulcan_execution_time": "2025-01-05"})
        first = processed_rows(project, "m0")
        # a new invocation replays the log: nothing is due, nothing is recorded
        run("run", "-s", "m0", vars={"vulcan_execution_time": "2025-01-05"})
        assert processed_rows(project, "m0") == first
        run("run", "-s", "m0", vars={"vulcan_execution_time": "2025-01-07"})
        assert processed_rows(project, "m0")[-1] == ("2025-01-05 00:00:00", "2025-01-07 00:00:00")
