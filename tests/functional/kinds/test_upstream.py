"""Upstream-aware planning (planning/upstream.sql): a daily model downstream of an hourly one,
run as two jobs (two dbt invocations with their own selection and execution time). The hourly
job fails for its last hours; the daily job then holds the incomplete day back, neither
writing nor recording it, says why, and fills it once the hourly job has caught up: the table
equals a clean run's. A signal (`ready_when`, naming its table with `ref()`) holds back a day
its source has not delivered; a per-interval one (`ready_intervals`, with `source()`) the day
its source has no rows for. The planning is the same Jinja on every format: parquet in both modes
and `type: databricks` (its relations and catalog)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture

from tests.support.functional import (
    model_statements,
    processed_rows,
    rows,
    run,
    state_rows,
    table_rows,
)

pytestmark = pytest.mark.profile_only("parquet", "databricks")

EXEC = "vulcan_execution_time"

# an event every 30 minutes, 2025-04-01 00:00 .. 2025-04-03 23:30 UTC
SRC_EVENTS = """
{{ config(materialized='table') }}
select cast(n as int) as ev_id,
  timestamp_seconds(unix_timestamp('2025-04-01 00:00:00', 'yyyy-MM-dd HH:mm:ss') + n * 1800) as ts
from (select explode(sequence(0, 143)) as n)
"""

# the hourly job fails from 2025-04-02 23:00 when told to (its batch from 18:00)
HOURLY = """
{{ config(materialized='incremental_by_time_range', time_column='ts', cron='@hourly',
          start='2025-04-01', batch_size=6, partition_by_time_column=false) }}
select ev_id, ts from {{ ref('src_events') }}
where ts >= @start_dt and ts < @end_dt
  and (case when ts >= to_timestamp('2025-04-02 23:00:00') and '{{ var("fail", "no") }}' = 'yes'
       then cast(raise_error('the hourly job failed') as boolean) else true end)
"""

EVENTS_VIEW = """
{{ config(materialized='view') }}
select * from {{ ref('hourly_events') }}
"""


def daily(**config: Any) -> str:
    args = "".join(f", {k}={v!r}" for k, v in config.items())
    return (
        "{{ config(materialized='incremental_by_time_range', time_column='d', "
        "start='2025-04-01'" + args + ") }}\n"
        "select to_date(ts) as d, count(*) as n from {{ ref('events_view') }}\n"
        "where ts >= @start_dt and ts < @end_dt group by to_date(ts)\n"
    )


class TestDailyWaitsForHourly:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "src_events.sql": SRC_EVENTS,
            "hourly_events.sql": HOURLY,
            "events_view.sql": EVENTS_VIEW,
            "daily_counts.sql": daily(),
            "daily_eager.sql": daily(wait_for_upstream=False),
            "daily_misnamed.sql": daily(ignore_upstream=["hourly_evnts"]),
        }

    def test_a_day_waits_until_its_hours_are_processed(
        self, project: Any, capsys: Any, logs_dir: str, request: pytest.FixtureRequest
    ) -> None:
        run("run", "-s", "src_events")
        # the hourly job at midnight: its batch from 18:00 fails
        run(
            "run",
            "-s",
            "hourly_events",
            vars={EXEC: "2025-04-03 00:00:00", "fail": "yes"},
            expect_pass=False,
        )
        assert processed_rows(project, "hourly_events")[-1][1] == "2025-04-02 18:00:00"
        run("run", "-s", "events_view")

        # the daily job: 2025-04-02 waits; a model that does not wait records a partial day
        _, out = run_dbt_and_capture(
            [
                "run",
                "-s",
                "daily_counts",
                "daily_eager",
                "--vars",
                f'{{"{EXEC}": "2025-04-03 00:05:00"}}',
            ]
        )
        assert (
            "Model 'daily_counts': 1 interval held back (2025-04-02 - 2025-04-02), waiting for "
            "`hourly_events` (not processed from 2025-04-02 18:00:00); a later run picks "
            "them up" in out
        ), out
        assert table_rows(project, "daily_counts", "d, n") == [(date(2025, 4, 1), 48)]
        assert processed_rows(project, "daily_counts") == [
            ("2025-04-01 00:00:00", "2025-04-02 00:00:00")
        ]
        assert table_rows(project, "daily_eager", "d, n") == [
            (date(2025, 4, 1), 48),
            (date(2025, 4, 2), 36),
        ]
        # waiting costs no statement: the parents' rows come in the one state read (the
        # package's read per model; the adapter's one read of the invocation, by one of them),
        # and one append records each model's run (the adapter's, when the two models append
        # together, in one statement)
        statements = {
            name: model_statements(logs_dir, name) for name in ("daily_counts", "daily_eager")
        }
        reads = {
            name: sum(1 for s in found if s.lower().startswith("select relation, model_id"))
            for name, found in statements.items()
        }
        appends = {
            name: sum(1 for s in found if s.startswith("insert") and "vulcan_intervals" in s)
            for name, found in statements.items()
        }
        others = {
            name: len(found) - reads[name] - appends[name] for name, found in statements.items()
        }
        assert others["daily_counts"] == others["daily_eager"] > 0, statements
        package = request.config.getoption("--mode") == "package"
        assert sum(reads.values()) == (2 if package else 1), reads
        assert sum(appends.values()) in ((2,) if package else (1, 2)), appends

        # vulcan_plan and vulcan_status say the same
        capsys.readouterr()
        run(
            "run-operation",
            "vulcan_plan",
            "--args",
            '{"select": "daily_counts", "execution_time": "2025-04-03 00:05:00"}',
        )
        out = str(capsys.readouterr().out)
        assert (
            "held back: 2025-04-02 - 2025-04-02, waiting for `hourly_events` (not processed from "
            "2025-04-02 18:00:00)" in out
        ), out

        run("run-operation", "vulcan_status", "--args", '{"select": "daily_counts"}')
        out = str(capsys.readouterr().out)
        assert "waiting for `hourly_events` (not processed from 2025-04-02 18:00:00)" in out, out

        # the hourly job catches up, then the daily job fills the day: a clean run's table
        run("run", "-s", "hourly_events", vars={EXEC: "2025-04-03 00:05:00"})
        run("run", "-s", "daily_counts", vars={EXEC: "2025-04-03 00:10:00"})
        assert table_rows(project, "daily_counts", "d, n") == [
            (date(2025, 4, 1), 48),
            (date(2025, 4, 2), 48),
        ]
        assert processed_rows(project, "daily_counts")[-1] == (
            "2025-04-02 00:00:00",
            "2025-04-03 00:00:00",
        )

        # a restatement along the DAG: the child, run in its own job first, waits for the
        # parent to recompute its hours, then recomputes its day
        args = (
            '{"select": "hourly_events+", "start": "2025-04-02 10:00", "end": "2025-04-02 12:00"}'
        )
        run("run-operation", "vulcan_restate", "--args", args)
        _, out = run_dbt_and_capture(
            ["run", "-s", "daily_counts", "--vars", f'{{"{EXEC}": "2025-04-03 00:10:00"}}']
        )
        assert "waiting for `hourly_events` (not processed from 2025-04-02 10:00:00)" in out, out
        # nothing recorded since the restatement removed the day
        assert state_rows(project, "daily_counts")[-1] == (
            "2025-04-02 00:00:00",
            "2025-04-03 00:00:00",
            "removed",
        )
        run("run", "-s", "hourly_events", "daily_counts", vars={EXEC: "2025-04-03 00:10:00"})
        assert table_rows(project, "daily_counts", "d, n") == [
            (date(2025, 4, 1), 48),
            (date(2025, 4, 2), 48),
        ]
        assert processed_rows(project, "hourly_events")[-1] == (
            "2025-04-02 10:00:00",
            "2025-04-02 12:00:00",
        )

    def test_ignore_upstream_must_name_a_parent(self, project: Any) -> None:
        _, out = run_dbt_and_capture(
            ["run", "-s", "daily_misnamed", "--vars", f'{{"{EXEC}": "2025-04-03 00:05:00"}}'],
            expect_pass=False,
        )
        assert (
            "Invalid config for model 'daily_misnamed': ignore_upstream: 'hourly_evnts' is "
            "not a dbt-vulcan model with intervals that it reads; it reads: hourly_events"
        ) in out, out
        assert not rows(project, f"show tables in {project.test_schema} like 'daily_misnamed'")


# what the loader has delivered: events up to `loaded_until`
SRC_LOADS = """
{{ config(materialized='table') }}
select to_timestamp('{{ var("loaded_until", "2025-04-02 12:00:00") }}') as loaded_until
"""

LATE_DAILY = """
-- depends_on: {{ ref('src_loads') }}
{{ config(materialized='incremental_by_time_range', time_column='d', start='2025-04-01',
          ready_when="select max(loaded_until) from {{ ref('src_loads') }}") }}
select to_date(ts) as d, count(*) as n from {{ ref('src_events') }}
where ts >= @start_dt and ts < @end_dt group by to_date(ts)
"""

# a drop that lands by day: 2025-04-02 is missing until the loader delivers it
LANDED_EVENTS = """
{{ config(materialized='table') }}
select * from {{ ref('src_events') }}
where to_date(ts) <> date'2025-04-02' or '{{ var("landed", "no") }}' = 'yes'
"""

SOURCES = """
sources:
  - name: landing
    schema: "{{ target.schema }}"
    tables:
      - name: landed_events
"""

# a per-interval signal: the days the source has rows for
SPARSE_DAILY = """
{{ config(materialized='incremental_by_time_range', time_column='d', start='2025-04-01',
          ready_intervals="select distinct to_date(ts) from {{ source('landing', 'landed_events') }}
                           where ts >= @start_dt and ts < @end_dt") }}
select to_date(ts) as d, count(*) as n from {{ source('landing', 'landed_events') }}
where ts >= @start_dt and ts < @end_dt group by to_date(ts)
"""


class TestSignalOnALateSource:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "src_events.sql": SRC_EVENTS,
            "src_loads.sql": SRC_LOADS,
            "landed_events.sql": LANDED_EVENTS,
            "sources.yml": SOURCES,
            "late_daily.sql": LATE_DAILY,
            "sparse_daily.sql": SPARSE_DAILY,
        }

    def test_a_day_waits_for_its_source_to_land(
        self, project: Any, capsys: pytest.CaptureFixture[str]
    ) -> None:
        run("run", "-s", "src_events", "src_loads", "landed_events")
        _, out = run_dbt_and_capture(
            [
                "run",
                "-s",
                "late_daily",
                "sparse_daily",
                "--vars",
                f'{{"{EXEC}": "2025-04-03 00:05:00"}}',
            ]
        )
        assert (
            "Model 'late_daily': 1 interval held back (2025-04-02 - 2025-04-02), waiting for "
            "the signal `ready_when` (not ready from 2025-04-02 12:00:00); a later run picks "
            "them up" in out
        ), out
        assert (
            "Model 'sparse_daily': 1 interval held back (2025-04-02 - 2025-04-02), waiting for "
            "the signal `ready_intervals` (not ready from 2025-04-02 00:00:00); a later run "
            "picks them up" in out
        ), out
        for name in ("late_daily", "sparse_daily"):
            assert table_rows(project, name, "d, n") == [(date(2025, 4, 1), 48)], name

        # vulcan_plan asks the signals the same way (ref() and source() in a run-operation)
        capsys.readouterr()
        run(
            "run-operation",
            "vulcan_plan",
            "--args",
            '{"select": "late_daily sparse_daily", "execution_time": "2025-04-03 00:05:00"}',
        )
        out = str(capsys.readouterr().out)
        for reason in (
            "the signal `ready_when` (not ready from 2025-04-02 12:00:00)",
            "the signal `ready_intervals` (not ready from 2025-04-02 00:00:00)",
        ):
            assert f"held back: 2025-04-02 - 2025-04-02, waiting for {reason}" in out, out
        # vulcan_status asks them over each model's missing intervals (up to now)
        run("run-operation", "vulcan_status", "--args", '{"select": "late_daily sparse_daily"}')
        out = str(capsys.readouterr().out)
        for reason in (
            "the signal `ready_when` (not ready from 2025-04-02 12:00:00)",
            "the signal `ready_intervals` (not ready from 2025-04-02 00:00:00)",
        ):
            assert f"waiting for {reason}" in out, out

        # the loader catches up
        run(
            "run",
            "-s",
            "src_loads",
            "landed_events",
            vars={"loaded_until": "2025-04-03 00:00:00", "landed": "yes"},
        )
        run("run", "-s", "late_daily", "sparse_daily", vars={EXEC: "2025-04-03 00:05:00"})
        for name in ("late_daily", "sparse_daily"):
            assert table_rows(project, name, "d, n") == [
                (date(2025, 4, 1), 48),
                (date(2025, 4, 2), 48),
            ], name
            assert processed_rows(project, name) == [
                ("2025-04-01 00:00:00", "2025-04-02 00:00:00"),
                ("2025-04-02 00:00:00", "2025-04-03 00:00:00"),
            ], name
