"""Run-operations against state set up by real runs: plan, status, history, restate, render,
compact, and resuming a failed backfill with `dbt retry` or a plain `dbt run`."""

from __future__ import annotations

import json
from typing import Any

import pytest
from dbt.tests.util import run_dbt, run_dbt_and_capture

from tests.support.functional import STATE, orders_csv, processed_rows, rows, run, state_rows

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
