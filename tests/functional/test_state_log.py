"""The interval state log on a real SparkSession: created on first use in the target's table
format, read back identically by a new invocation and by another Spark session, in both modes
(concurrent appends: reliability/test_concurrency.py)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from tests.support.functional import (
    STATE,
    model_message,
    model_statements,
    orders_csv,
    processed_rows,
    run,
)

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

    def test_one_invocation_reads_the_log_once_in_the_adapter(
        self, project: Any, logs_dir: str, request: pytest.FixtureRequest
    ) -> None:
        """The adapter reads the state rows of every selected model in one statement, then
        plans each model from them and this invocation's appends (a second run of the same
        models, by another invocation, sees what the first recorded). The package reads per
        model."""
        package = request.config.getoption("--mode") == "package"
        run("seed")
        names = ["m1", "m3"]
        reads = []
        for day in ("2025-01-05", "2025-01-07", "2025-01-07"):
            run("run", "-s", *names, vars={"vulcan_execution_time": day})
            reads.append(
                sum(
                    1
                    for name in names
                    for s in model_statements(logs_dir, name)
                    if s.lower().startswith("select relation, model_id")
                )
            )
        assert reads == ([2, 2, 2] if package else [1, 1, 1])
        for name in names:
            assert processed_rows(project, name) == [
                ("2025-01-01 00:00:00", "2025-01-03 00:00:00"),
                ("2025-01-03 00:00:00", "2025-01-05 00:00:00"),
                ("2025-01-05 00:00:00", "2025-01-07 00:00:00"),
            ]

    def test_new_invocation_reads_back_what_was_recorded(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "m0", "--full-refresh", vars={"vulcan_execution_time": "2025-01-05"})
        first = processed_rows(project, "m0")
        # a new invocation replays the log: nothing is due, nothing is recorded
        run("run", "-s", "m0", vars={"vulcan_execution_time": "2025-01-05"})
        assert processed_rows(project, "m0") == first
        run("run", "-s", "m0", vars={"vulcan_execution_time": "2025-01-07"})
        assert processed_rows(project, "m0")[-1] == ("2025-01-05 00:00:00", "2025-01-07 00:00:00")

    @pytest.mark.skip_profile(
        "thrift", "databricks", reason="opens a second session of the embedded Spark"
    )
    def test_a_plan_sees_what_another_session_appended(
        self, project: Any, table_format: str
    ) -> None:
        """A Spark server gives each connection its own session. After dbt's session has read
        the state table, another session appends to it (another dbt process); the next plan
        must see that row at once: a stale listing or snapshot would hide it (the interval is
        processed again) or fail the read (FILE_NOT_EXIST)."""
        from pyspark.sql import SparkSession

        other = SparkSession.builder.getOrCreate().newSession()
        relation = f"{project.test_schema.lower()}.m2"
        run("seed")
        run("run", "-s", "m2", "--full-refresh", vars={"vulcan_execution_time": "2025-01-05"})
        before = processed_rows(project, "m2")
        latest = other.sql(
            f"select model_id, fingerprint, details from {STATE} where relation = '{relation}' "
            "and row_type = 'processed' order by recorded_at desc limit 1"
        ).collect()[0]
        # the other session records [01-05, 01-07) the way a dbt run does (its format's append)
        now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
        row = [relation, latest[0], "2025-01-05 00:00:00", "2025-01-07 00:00:00", "processed"]
        row += [latest[1], "other-session", now, 1, latest[2]]
        values = "(" + ", ".join(f"'{v}'" if isinstance(v, str) else str(v) for v in row) + ")"
        if table_format == "parquet":
            other.sql(
                f"insert overwrite table {STATE} partition (relation, append_id) "
                "select model_id, interval_start, interval_end, row_type, fingerprint, "
                "invocation_id, recorded_at, seq, details, relation, 'other-session-1' "
                f"from values {values} as v(relation, model_id, interval_start, interval_end, "
                "row_type, fingerprint, invocation_id, recorded_at, seq, details)"
            )
        else:
            other.sql(f"insert into {STATE} values {values}")
        # dbt's session plans at 01-07: [01-05, 01-07) is done, nothing is due
        result = run("run", "-s", "m2", vars={"vulcan_execution_time": "2025-01-07"})
        assert "0 intervals" in model_message(result)
        after = processed_rows(project, "m2")
        assert after == [*before, ("2025-01-05 00:00:00", "2025-01-07 00:00:00")]
