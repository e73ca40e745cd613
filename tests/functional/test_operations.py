"""Run-operations against state set up by real runs: plan, status, history, restate, render,
compact, resuming a failed backfill with `dbt retry` or a plain `dbt run`, and restating along
the DAG (`model+`) through models of three interval units."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta
from typing import Any

import pytest
from dbt.tests.util import run_dbt, run_dbt_and_capture

from tests.support.functional import (
    STATE,
    models_state_rows,
    orders_csv,
    processed_rows,
    rows,
    run,
    state_rows,
    table_rows,
)

DAILY = """
{{ config(materialized='incremental_by_time_range', time_column='order_date',
          start='2025-01-01', batch_size=3, tags=['sales']) }}
select order_date, count(order_id) as total_orders
from {{ ref('raw_orders') }}
where order_date between @start_ds and @end_ds
  and (case when order_date = date'2025-01-05' and '{{ var("fail", "no") }}' = 'yes'
       then cast(raise_error('injected failure') as boolean) else true end)
group by order_date
"""

KEYED = """
{{ config(materialized='incremental_unmanaged') }}
select order_id, order_date from {{ ref('raw_orders') }}
"""


# The operations read and write the state table: on parquet, on Iceberg (whose compaction
# purges its stage) and on the Thrift server's Delta (`make thrift` runs this whole module);
# the embedded Delta session would repeat the last. And on `type: databricks` (its relations).
pytestmark = pytest.mark.profile_only("parquet", "iceberg", "thrift", "databricks")


def op(capsys: Any, name: str, expect_pass: bool = True, **args: Any) -> str:
    capsys.readouterr()
    run_dbt(["run-operation", name, "--args", json.dumps(args)], expect_pass=expect_pass)
    out = str(capsys.readouterr().out)
    # what the operation printed, without the deprecation summary dbt may print after it
    # (dbt-databricks' keys of dbt 1.11)
    summary = out.find("[DeprecationsSummary]")
    return out if summary < 0 else out[: out.rfind("\n", 0, summary) + 1]


class TestOperations:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv()}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"daily.sql": DAILY}

    def test_plan_predicts_the_next_run(self, project: Any, capsys: Any) -> None:
        run("seed")
        run("run", "-s", "daily", vars={"vulcan_execution_time": "2025-01-04"})
        out = op(capsys, "vulcan_plan", select="daily", execution_time="2025-01-11")
        assert "Models needing backfill (missing dates):" in out
        assert "└── daily: 2025-01-04 - 2025-01-10" in out
        assert "processed: 2025-01-01 - 2025-01-03" in out
        assert "next run: 3 batches" in out
        predicted = [
            "2025-01-04 - 2025-01-06",
            "2025-01-07 - 2025-01-09",
            "2025-01-10 - 2025-01-10",
        ]
        for i, label in enumerate(predicted, start=1):
            assert f"[{i}/3] {label}" in out
        run("run", "-s", "daily", vars={"vulcan_execution_time": "2025-01-11"})
        assert processed_rows(project, "daily")[1:] == [
            ("2025-01-04 00:00:00", "2025-01-07 00:00:00"),
            ("2025-01-07 00:00:00", "2025-01-10 00:00:00"),
            ("2025-01-10 00:00:00", "2025-01-11 00:00:00"),
        ]
        out = op(capsys, "vulcan_plan", select="tag:sales", execution_time="2025-01-11")
        assert "No missing intervals" in out

        # status and history over the same state
        out = op(capsys, "vulcan_status", select="daily")
        assert "coverage: 2025-01-01 - 2025-01-10" in out
        assert "gaps:     none" in out
        out = op(capsys, "vulcan_history", select="daily")
        assert "processed 2025-01-04 - 2025-01-10 (3 batches)" in out
        assert "processed 2025-01-01 - 2025-01-03 (1 batches)" in out

        # restate a range: recorded as removed, shown as pending, recomputed by the next run
        out = op(capsys, "vulcan_restate", select="daily", start="2025-01-02", end="2025-01-03")
        assert "Restated daily: 2025-01-02 00:00:00 - 2025-01-04 00:00:00" in out
        assert state_rows(project, "daily")[-1] == (
            "2025-01-02 00:00:00",
            "2025-01-04 00:00:00",
            "removed",
        )
        out = op(capsys, "vulcan_plan", select="daily", execution_time="2025-01-11")
        assert "└── daily: 2025-01-02 - 2025-01-03" in out
        assert "restated, pending: 2025-01-02 - 2025-01-03" in out
        assert "status" not in out
        out = op(capsys, "vulcan_status", select="daily", since="2025-01-01", until="2025-01-10")
        assert "gaps:     2025-01-02 - 2025-01-03" in out
        run("run", "-s", "daily", vars={"vulcan_execution_time": "2025-01-11"})
        assert processed_rows(project, "daily")[-1] == (
            "2025-01-02 00:00:00",
            "2025-01-04 00:00:00",
        )
        assert rows(project, f"select count(*) from {project.test_schema}.daily") == [(10,)]

        # compaction keeps the meaning and shrinks the log
        before = len(state_rows(project, "daily"))
        out = op(capsys, "vulcan_compact")
        assert "Compacted the state log" in out
        assert state_rows(project, "daily") == [
            ("2025-01-01 00:00:00", "2025-01-11 00:00:00", "processed")
        ]
        assert before > 1
        out = op(capsys, "vulcan_plan", select="daily", execution_time="2025-01-11")
        assert "No missing intervals" in out

    def test_render_prints_each_batch_sql(self, project: Any, capsys: Any) -> None:
        run("seed")
        # the table and its first days, also when this test runs alone (type: databricks);
        # after the test above nothing is due at this time
        run("run", "-s", "daily", vars={"vulcan_execution_time": "2025-01-04"})
        run_dbt(["compile", "-s", "daily"])
        out = op(
            capsys,
            "vulcan_render",
            select="daily",
            start="2025-01-01",
            end="2025-01-04",
            execution_time="2025-01-20",
        )
        assert "-- [1/1] 2025-01-01 - 2025-01-03" in out or "-- [1/2]" in out
        assert "where order_date between '2025-01-01' and '2025-01-03'" in out
        assert "`order_date` >= CAST('2025-01-01' AS DATE)" in out
        assert "@start_ds" not in out

    def test_bad_arguments_fail_clearly(self, project: Any) -> None:
        run("seed")
        before = state_rows(project, "daily")
        cases = [
            ("vulcan_plan", {"select": "nosuchmodel"}, "no dbt-vulcan model matches nosuchmodel"),
            ("vulcan_restate", {"start": "2025-13-01", "end": "2025-01-02"}, "'2025-13-01'"),
            ("vulcan_restate", {"start": "2025-01-05", "end": "2025-01-02"}, "is not before end"),
            ("vulcan_plan", {"execution_time": "soon"}, "vulcan_execution_time: 'soon'"),
        ]
        for name, args, message in cases:
            _, log = run_dbt_and_capture(
                ["run-operation", name, "--args", json.dumps(args)], expect_pass=False
            )
            assert message in log, (name, args)
        assert state_rows(project, "daily") == before  # nothing recorded by a refused operation

    def test_failed_backfill_resumes_with_retry_and_run(
        self, project: Any, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("DBT_WRITE_JSON", "true")  # dbt retry reads run_results.json
        run("seed")
        # reset: rebuild the table with nothing due yet
        run("run", "-s", "daily", "--full-refresh", vars={"vulcan_execution_time": "2025-01-01"})
        pinned = {"vulcan_execution_time": "2025-01-11", "fail": "yes"}
        run("run", "-s", "daily", vars=pinned, expect_pass=False)
        done = processed_rows(project, "daily")
        assert done[-1] == ("2025-01-01 00:00:00", "2025-01-04 00:00:00")
        # dbt retry repeats the failed node with the same vars: it resumes at the failed batch
        # (batch 1 is not redone) and fails there again, recording nothing new
        run_dbt(["retry"], expect_pass=False)
        assert processed_rows(project, "daily") == done
        # the cause fixed, a plain run finishes only the remaining intervals
        run("run", "-s", "daily", vars={"vulcan_execution_time": "2025-01-11"})
        assert processed_rows(project, "daily")[len(done) :] == [
            ("2025-01-04 00:00:00", "2025-01-07 00:00:00"),
            ("2025-01-07 00:00:00", "2025-01-10 00:00:00"),
            ("2025-01-10 00:00:00", "2025-01-11 00:00:00"),
        ]
        assert rows(project, f"select count(*) from {project.test_schema}.daily") == [(10,)]


# the kinds without intervals (no `start`): each run is recorded as a run
UNTRACKED = {
    "by_partition": "{{ config(materialized='incremental_by_partition', partitioned_by='d') }}\n"
    "select order_id, order_date as d from {{ ref('raw_orders') }}",
    "appended": "{{ config(materialized='incremental_unmanaged') }}\n"
    "select order_id, order_date from {{ ref('raw_orders') }} where order_id <= 3",
    "keyed": "{{ config(materialized='incremental_by_unique_key', unique_key='order_id') }}\n"
    "select order_id, order_date from {{ ref('raw_orders') }}",
    "versions": "{{ config(materialized='scd_type_2_by_column', unique_key='order_id', "
    "columns=['customer_id']) }}\n"
    "select order_id, customer_id from {{ ref('raw_orders') }}",
    "grouped": "{{ config(materialized='tracked', group_key='customer_id') }}\n"
    "select customer_id, order_id from {{ ref('raw_orders') }}",
}


class TestUntrackedKindsReportTheirRuns:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=3)}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {f"{name}.sql": sql for name, sql in UNTRACKED.items()}

    def test_status_history_and_compact_show_the_last_run(self, project: Any, capsys: Any) -> None:
        run("seed")
        # three runs: history's limit of 2 then leaves one out, compaction two
        days = ["2025-01-02", "2025-01-03", "2025-01-04"]
        for day in days:
            run("run", "-s", *UNTRACKED, vars={"vulcan_execution_time": day})
        for name in UNTRACKED:
            # one row per run: an empty range at its execution time, no interval
            assert state_rows(project, name) == [
                (f"{day} 00:00:00", f"{day} 00:00:00", "processed") for day in days
            ]
        relations = ", ".join(f"'{project.test_schema}.{n}'" for n in UNTRACKED).lower()
        last = rows(
            project,
            "select relation, max_by(invocation_id, recorded_at), max(recorded_at) "
            f"from {STATE} where relation in ({relations}) group by relation",
        )
        assert len(last) == len(UNTRACKED)

        def report(out: str, name: str) -> str:
            return out.split(f"\n{name} [")[1].split("\n\n")[0]

        status = op(capsys, "vulcan_status")
        for relation, invocation, at in last:
            name = relation.split(".")[1]
            text = report(status, name)
            assert "intervals: not tracked (each run computes the whole query; no start)" in text
            assert f"last run: {str(at)[:19]} (invocation {invocation})" in text
            assert "never" not in text and "coverage" not in text
        history = op(capsys, "vulcan_history", limit=2)
        for name in UNTRACKED:
            text = history.split(f"\n{name}\n")[1].split("\n\n")[0]
            assert [line.split("  ")[-1] for line in text.splitlines()] == [
                "ran the whole query (execution time 2025-01-04 00:00:00)",
                "ran the whole query (execution time 2025-01-03 00:00:00)",
            ]
        # compaction keeps each model's last run (it adds no interval)
        op(capsys, "vulcan_compact")
        for name in UNTRACKED:
            assert state_rows(project, name) == [
                ("2025-01-04 00:00:00", "2025-01-04 00:00:00", "processed")
            ]
        after = op(capsys, "vulcan_status")
        assert after[after.index("vulcan status") :] == status[status.index("vulcan status") :]


# Restatement along the DAG: raw_events (a seed) -> hourly_events (hourly) -> hourly_view (a
# plain view) -> daily_events (daily) -> monthly_events (monthly), and daily_locked
# (disable_restatement) on daily_events
CASCADE = {
    "hourly_events.sql": """
{{ config(materialized='incremental_by_time_range', time_column='event_hour', cron='@hourly',
          start='2025-01-29', end='2025-02-02', partition_by_time_column=false) }}
select date_trunc('hour', event_time) as event_hour, count(*) as events, sum(amount) as amount
from {{ ref('raw_events') }}
where event_time >= @start_ts and event_time <= @end_ts
group by 1
""",
    "hourly_view.sql": "{{ config(materialized='view') }}\n"
    "select * from {{ ref('hourly_events') }}\n",
    "daily_events.sql": """
{{ config(materialized='incremental_by_time_range', time_column='event_date',
          start='2025-01-29', end='2025-02-02') }}
select to_date(event_hour) as event_date, sum(events) as events, sum(amount) as amount
from {{ ref('hourly_view') }}
where event_hour >= @start_ts and event_hour <= @end_ts
group by 1
""",
    "monthly_events.sql": """
{{ config(materialized='incremental_by_time_range', time_column='month_start', cron='@monthly',
          start='2025-01-01', end='2025-02-28') }}
select trunc(event_date, 'MM') as month_start, sum(events) as events, sum(amount) as amount
from {{ ref('daily_events') }}
where event_date between @start_ds and @end_ds
group by 1
""",
    "daily_locked.sql": """
{{ config(materialized='incremental_by_time_range', time_column='event_date',
          start='2025-01-29', end='2025-02-02', disable_restatement=true) }}
select event_date, amount from {{ ref('daily_events') }}
where event_date between @start_ds and @end_ds
""",
}
# five days of events at 01:20, 10:20, 11:20 and 17:20
EVENTS = [
    (datetime(2025, 1, 29, h, 20) + timedelta(days=d), 10 * d + h)
    for d in range(5)
    for h in (1, 10, 11, 17)
]
# the source changed later: two events in the restated hours, one outside them (not restated)
LATE = [
    (datetime(2025, 1, 31, 10, 15), 100),
    (datetime(2025, 1, 31, 11, 45), 1000),
    (datetime(2025, 2, 1, 5, 30), 7),
]


def _sums(pairs: Any) -> dict[Any, tuple[int, int]]:
    out: dict[Any, tuple[int, int]] = {}
    for key, (events, amount) in pairs:
        old = out.get(key, (0, 0))
        out[key] = (old[0] + events, old[1] + amount)
    return out


def _hourly(events: list[tuple[datetime, int]]) -> dict[datetime, tuple[int, int]]:
    return _sums((t.replace(minute=0), (1, a)) for t, a in events)


def _daily(hourly: dict[datetime, tuple[int, int]]) -> dict[date, tuple[int, int]]:
    return _sums((t.date(), v) for t, v in hourly.items())


def _monthly(daily: dict[date, tuple[int, int]]) -> dict[date, tuple[int, int]]:
    return _sums((d.replace(day=1), v) for d, v in daily.items())


class TestRestateAlongTheDag:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        lines = ["event_time,amount"] + [f"{t:%Y-%m-%d %H:%M:%S},{a}" for t, a in EVENTS]
        return {"raw_events.csv": "\n".join(lines) + "\n"}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return CASCADE

    def test_restate_with_descendants_recomputes_each_model_on_its_own_unit(
        self, project: Any, capsys: Any
    ) -> None:
        """One `vulcan_restate` of `hourly_events+` over two hours of changed source data
        removes those hours from hourly_events, their day from daily_events (through a plain
        view) and their month from monthly_events; daily_locked (disable_restatement) is
        skipped and named. The plan shows the whole cascade; the next run recomputes exactly
        those ranges, in DAG order."""
        names = ["hourly_events", "daily_events", "monthly_events", "daily_locked"]
        pinned = {"vulcan_execution_time": "2025-03-01"}
        run("seed")
        run("run", vars=pinned)
        before = models_state_rows(project, names)
        schema = project.test_schema
        values = ", ".join(f"(timestamp'{t}', {a})" for t, a in LATE)
        project.run_sql(f"insert into {schema}.raw_events select * from values {values}")

        out = op(
            capsys,
            "vulcan_restate",
            select="hourly_events+",
            start="2025-01-31 10:00",
            end="2025-01-31 12:00",
        )
        restated = [
            ("hourly_events", "2025-01-31 10:00:00", "2025-01-31 12:00:00"),
            ("daily_events", "2025-01-31 00:00:00", "2025-02-01 00:00:00"),
            ("monthly_events", "2025-01-01 00:00:00", "2025-02-01 00:00:00"),
        ]
        printed = [line for line in out.splitlines() if line.startswith(("Restated", "Skipped"))]
        assert printed == [
            f"Restated {name}: {low} - {high}; the next dbt run recomputes it"
            for name, low, high in restated[:2]
        ] + [
            "Skipped daily_locked: disable_restatement: true (reached through a graph "
            "operator, not named in select)",
            "Restated monthly_events: 2025-01-01 00:00:00 - 2025-02-01 00:00:00; the next dbt "
            "run recomputes it",
        ]
        removed = models_state_rows(project, names)
        for name, low, high in restated:
            assert removed[name] == [*before[name], (low, high, "removed")]
        assert removed["daily_locked"] == before["daily_locked"]

        # the plan shows every model's pending restatement before anything runs
        out = op(capsys, "vulcan_plan", select="hourly_events+", execution_time="2025-03-01")
        assert (
            "├── hourly_events: 2025-01-31 10:00:00 - 2025-01-31 12:00:00\n"
            "├── daily_events: 2025-01-31 - 2025-01-31\n"
            "└── monthly_events: 2025-01-01 - 2025-01-31\n"
        ) in out
        details = out.split("Details:\n")[1]
        assert [line.strip() for line in details.splitlines() if line.endswith("]")] == [
            "hourly_events [incremental_by_time_range]",
            "daily_events [incremental_by_time_range]",
            "daily_locked [incremental_by_time_range]",
            "monthly_events [incremental_by_time_range]",
        ]
        pending = [line.strip() for line in details.splitlines() if "restated, pending" in line]
        assert pending == [
            "restated, pending: 2025-01-31 10:00:00 - 2025-01-31 12:00:00",
            "restated, pending: 2025-01-31 - 2025-01-31",
            "restated, pending: 2025-01-01 - 2025-01-31",
        ]

        # the next run recomputes exactly those ranges: one batch per model, its rows
        # (processed, and the re-processed batch's marker) on that range only
        run("run", vars=pinned)
        after = models_state_rows(project, names)
        for name, low, high in restated:
            added = after[name][len(removed[name]) :]
            assert after[name][: len(removed[name])] == removed[name]
            assert {(s, e) for s, e, _ in added} == {(low, high)}
            assert [kind for _, _, kind in added].count("processed") == 1
        assert after["daily_locked"] == before["daily_locked"]

        # the tables: the restated ranges from the changed source, the rest as first computed
        old = _hourly(EVENTS)
        new = _hourly(EVENTS + LATE)
        hourly = {**old, **{t: v for t, v in new.items() if restated_hour(t)}}
        daily = {**_daily(old), **{d: v for d, v in _daily(hourly).items() if d == JAN_31}}
        monthly = {
            **_monthly(_daily(old)),
            **{m: v for m, v in _monthly(daily).items() if m.month == 1},
        }
        assert dict_rows(project, "hourly_events", "event_hour") == hourly
        assert dict_rows(project, "daily_events", "event_date") == daily
        assert dict_rows(project, "monthly_events", "month_start") == monthly
        assert table_rows(project, "daily_locked", "event_date, amount") == [
            (d, v[1]) for d, v in sorted(_daily(old).items())
        ]
        # the late event outside the restated hours is in no table
        assert datetime(2025, 2, 1, 5) not in hourly
        assert daily[JAN_31] == (6, 21 + 30 + 31 + 37 + 100 + 1000)


JAN_31 = date(2025, 1, 31)


def restated_hour(t: datetime) -> bool:
    return datetime(2025, 1, 31, 10) <= t < datetime(2025, 1, 31, 12)


def dict_rows(project: Any, name: str, key: str) -> dict[Any, tuple[int, int]]:
    """{key: (events, amount)} of a model's table."""
    return {
        k: (int(events), int(amount))
        for k, events, amount in table_rows(project, name, f"{key}, events, amount")
    }


# forward_only along a restatement (issue #47): daily (a time range) -> appended
# (incremental_unmanaged, forward_only: its rows are the history of what each run appended,
# which no rebuild can recompute) and daily_fwd (a time range with forward_only: restated by
# range, which rebuilds nothing). `fwd` flips the config of both to restate it as a model
# that allowed it (a restatement recorded before forward_only was set).
FORWARD_ONLY = {
    "daily.sql": """
{{ config(materialized='incremental_by_time_range', time_column='order_date',
          start='2025-01-01') }}
select order_date, count(*) as orders from {{ ref('raw_orders') }}
where order_date between @start_ds and @end_ds
group by 1
""",
    "appended.sql": """
{{ config(materialized='incremental_unmanaged', forward_only=var('fwd', true)) }}
select order_date, orders from {{ ref('daily') }}
""",
    "daily_fwd.sql": """
{{ config(materialized='incremental_by_time_range', time_column='order_date',
          start='2025-01-01', forward_only=var('fwd', true)) }}
select order_date, orders * {{ var('factor', 1) }} as orders from {{ ref('daily') }}
where order_date between @start_ds and @end_ds
""",
}


class TestRestateKeepsForwardOnlyHistory:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=4)}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return FORWARD_ONLY

    def test_restate_skips_or_refuses_a_forward_only_rebuild(
        self, project: Any, capsys: Any
    ) -> None:
        """`daily+` restates daily and daily_fwd by range and skips appended (its restatement
        would rebuild the history forward_only keeps), naming it; the next run appends to that
        history. Named, appended is refused, nothing recorded."""
        names = ["daily", "appended", "daily_fwd"]
        run("seed")
        run("run", vars={"vulcan_execution_time": "2025-01-03"})
        run("run", vars={"vulcan_execution_time": "2025-01-04"})
        history = [(date(2025, 1, d), 3) for d in (1, 2, 1, 2, 3)]
        assert table_rows(project, "appended", "order_date, orders", "1, 2") == sorted(history)
        before = models_state_rows(project, names)

        out = op(capsys, "vulcan_restate", select="daily+", start="2025-01-02", end="2025-01-02")
        printed = [line for line in out.splitlines() if line.startswith(("Restated", "Skipped"))]
        assert printed == [
            "Restated daily: 2025-01-02 00:00:00 - 2025-01-03 00:00:00; the next dbt run "
            "recomputes it",
            "Skipped appended: forward_only: true (its restatement would rebuild its whole "
            "history; reached through a graph operator, not named in select)",
            "Restated daily_fwd: 2025-01-02 00:00:00 - 2025-01-03 00:00:00; the next dbt run "
            "recomputes it",
        ]
        restated = models_state_rows(project, names)
        assert restated["appended"] == before["appended"]
        for name in ("daily", "daily_fwd"):
            assert restated[name] == [
                *before[name],
                ("2025-01-02 00:00:00", "2025-01-03 00:00:00", "removed"),
            ]

        # the next run appends to the history it keeps (no rebuild) and recomputes the range
        # of daily_fwd only
        run("run", vars={"vulcan_execution_time": "2025-01-04", "factor": 10})
        history += [(date(2025, 1, d), 3) for d in (1, 2, 3)]
        assert table_rows(project, "appended", "order_date, orders", "1, 2") == sorted(history)
        assert table_rows(project, "daily_fwd", "order_date, orders") == [
            (date(2025, 1, 1), 3),
            (date(2025, 1, 2), 30),
            (date(2025, 1, 3), 3),
        ]

        # named: refused (alone, or beside a graph operator), nothing recorded
        kept = models_state_rows(project, names)
        refusal = (
            "vulcan_restate refused:\n  - forward_only: true does not allow restating model "
            "'appended' (incremental_unmanaged): it only supports full-history restatement, "
            "which rebuilds the table and would erase the history forward_only keeps; set "
            "forward_only false to allow it"
        )
        for select in ("appended", "daily+ appended"):
            _, log = run_dbt_and_capture(
                [
                    "run-operation",
                    "vulcan_restate",
                    "--args",
                    json.dumps({"select": select, "start": "2025-01-01", "end": "2025-01-02"}),
                ],
                expect_pass=False,
            )
            # (dbt indents the error's lines)
            assert " ".join(refusal.split()) in " ".join(log.split()), select
        assert models_state_rows(project, names) == kept

    def test_a_pending_rebuild_does_not_erase_forward_only_history(
        self, project: Any, capsys: Any
    ) -> None:
        """A whole-history restatement recorded while the model allowed it (forward_only was
        false then) does not rebuild it once forward_only is true: the run appends, one line
        says why; set false again, the next run rebuilds it."""
        run("seed")
        run("run", "--full-refresh", vars={"fwd": False, "vulcan_execution_time": "2025-01-03"})
        run("run", vars={"vulcan_execution_time": "2025-01-03"})
        history = sorted([(date(2025, 1, d), 3) for d in (1, 2, 1, 2)])
        assert table_rows(project, "appended", "order_date, orders", "1, 2") == history
        capsys.readouterr()
        run_dbt(
            [
                "run-operation",
                "vulcan_restate",
                "--args",
                json.dumps({"select": "appended", "start": "2025-01-01", "end": "2025-01-02"}),
                "--vars",
                json.dumps({"fwd": False}),
            ]
        )
        assert "Restated appended: whole history" in capsys.readouterr().out

        _, log = run_dbt_and_capture(
            ["run", "-s", "appended", "--vars", json.dumps({"vulcan_execution_time": "2025-01-03"})]
        )
        assert (
            "Model 'appended': a whole-history restatement is pending, but forward_only: true "
            "keeps its history: it runs incrementally (set forward_only: false to rebuild it)"
        ) in log
        history = sorted([*history, (date(2025, 1, 1), 3), (date(2025, 1, 2), 3)])
        assert table_rows(project, "appended", "order_date, orders", "1, 2") == history

        run("run", "-s", "appended", vars={"fwd": False, "vulcan_execution_time": "2025-01-03"})
        assert table_rows(project, "appended", "order_date, orders", "1, 2") == [
            (date(2025, 1, 1), 3),
            (date(2025, 1, 2), 3),
        ]


# vulcan_compact and a pending restatement (issue #47): keyed (a unique key, no start) is
# restated, so its whole history is rebuilt by the next run; `gone` removes orders from its
# source meanwhile
COMPACT_PENDING = {
    "daily.sql": FORWARD_ONLY["daily.sql"],
    "keyed.sql": """
{{ config(materialized='incremental_by_unique_key', unique_key='order_id') }}
select order_id, order_date from {{ ref('raw_orders') }}
where order_id > {{ var('gone', 0) }}
""",
}


class TestCompactKeepsAPendingRestatement:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=2, per_day=2)}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return COMPACT_PENDING

    def test_compact_leaves_a_pending_restatement_for_the_next_run(
        self, project: Any, capsys: Any
    ) -> None:
        """Restated, then compacted: keyed's rows are kept as they are (the others are
        compacted), so the next run still rebuilds it (the order removed from its source is
        gone); after that run, compaction compacts it too."""
        names = ["daily", "keyed"]
        run("seed")
        run("run", vars={"vulcan_execution_time": "2025-01-02"})
        run("run", vars={"vulcan_execution_time": "2025-01-03"})
        assert [r[0] for r in table_rows(project, "keyed")] == [1, 2, 3, 4]
        out = op(capsys, "vulcan_restate", select="keyed", start="2025-01-01", end="2025-01-01")
        assert "Restated keyed: whole history; the next dbt run recomputes it" in out
        restated = models_state_rows(project, names)
        assert restated["keyed"][-1] == ("1900-01-01 00:00:00", "9999-12-31 00:00:00", "removed")

        out = op(capsys, "vulcan_compact")
        # (the state table is the session's: other tests' relations are in it too)
        [left] = re.findall(
            r"Compacted the state log: \d+ rows -> \d+ rows \(\d+ relations? left as "
            r"(?:it is|they are) while a restatement is pending: ([^)]*)\)",
            out,
        )
        assert f"{project.test_schema}.keyed".lower() in left.split(", ")
        compacted = models_state_rows(project, names)
        assert compacted["keyed"] == restated["keyed"]
        assert compacted["daily"] == [("2025-01-01 00:00:00", "2025-01-03 00:00:00", "processed")]

        # the next run rebuilds keyed: order 1, gone from its source, is gone from the table
        run("run", vars={"vulcan_execution_time": "2025-01-03", "gone": 1})
        assert [r[0] for r in table_rows(project, "keyed")] == [2, 3, 4]
        # recomputed: nothing pending, compacted like the rest
        out = op(capsys, "vulcan_compact")
        assert "left as it is" not in out
        assert models_state_rows(project, names) == {
            "daily": [("2025-01-01 00:00:00", "2025-01-03 00:00:00", "processed")],
            "keyed": [("2025-01-03 00:00:00", "2025-01-03 00:00:00", "processed")],
        }
