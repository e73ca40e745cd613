"""`vulcan_plan` predicts exactly what `dbt run` does: for a matrix of time-range models
(lookback unset / 1 / 2, `batch_size`, `allow_partials`, hourly / daily / monthly cron, a model
`end`) and a sequence of runs (first backfill, a catch-up of several intervals, a restated
range, an explicit `vulcan_start`/`vulcan_end`, nothing due, a month later), the batches the
plan prints are the intervals the following run records, batch for batch.

Both read the model's config through one macro (`vulcan_settings`, macros/config/), so dbt's
own `lookback: 1` default on every node cannot make the plan show a day more than the run."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from typing import Any

import pytest
from dbt.tests.util import run_dbt

from tests.support.functional import models_state_rows, processed_rows, run

# a row per `step` of each batch's range; the tables keep the default layout, partitioned by
# `ts`: a row per day outside the hourly model keeps that to a partition per day (an hourly row
# in every model wrote thousands of partitions a run, nine tenths of this test's time)
ROWS = (
    "select ts, hour(ts) as h from (select explode(sequence(@start_dt, @end_dt, "
    "interval 1 {step})) as ts)"
)


def model(step: str = "day", **config: Any) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in config.items())
    return (
        "{{ config(materialized='incremental_by_time_range', time_column='ts', "
        + args
        + ") }}\n"
        + ROWS.format(step=step)
        + "\n"
    )


MODELS = {
    # no lookback set: dbt gives the node `lookback: 1`, dbt-vulcan's default is 0
    "daily_default": model(start="2025-02-25"),
    "daily_lb1_b4": model(start="2025-02-25", lookback=1, batch_size=4),
    "daily_lb2": model(start="2025-02-25", lookback=2),
    "daily_partials": model(start="2025-02-25", lookback=1, allow_partials=True),
    "hourly_lb2_b16": model(
        "hour",
        start="2025-03-02 12:00:00",
        end="2025-03-07",
        cron="@hourly",
        lookback=2,
        batch_size=16,
    ),
    "monthly_lb1": model(start="2024-10-01", cron="@monthly", lookback=1),
}

T0 = "2025-03-03 05:30:00"
T1 = "2025-03-06 05:30:00"
T2 = "2025-04-02 05:30:00"


def parse_label(label: str) -> tuple[str, str]:
    """A plan label back to the half-open interval the run records: date-grain labels show
    inclusive days, others timestamps with the exclusive end."""
    low, high = label.split(" - ")
    if len(low) == 10 and len(high) == 10:
        end = datetime.fromisoformat(high) + timedelta(days=1)
        return f"{low} 00:00:00", end.strftime("%Y-%m-%d %H:%M:%S")
    return low, high


def planned(out: str) -> dict[str, list[tuple[str, str]]]:
    """Per model, the batches of the plan's Details section."""
    batches: dict[str, list[tuple[str, str]]] = {}
    current = None
    for line in out.splitlines():
        header = re.match(r"^\s{2}(\w+) \[incremental_by_time_range\]$", line)
        if header:
            current = header.group(1)
            batches[current] = []
            continue
        batch = re.match(r"^\s+\[\d+/\d+\] (.+)$", line)
        if batch and current:
            batches[current].append(parse_label(batch.group(1)))
    return batches


def plan(capsys: Any, **args: Any) -> dict[str, list[tuple[str, str]]]:
    capsys.readouterr()
    run_dbt(["run-operation", "vulcan_plan", "--args", json.dumps(args)])
    out = str(capsys.readouterr().out)
    found = planned(out)
    assert set(found) == set(MODELS), out
    return found


def recorded(project: Any) -> dict[str, list[tuple[str, str]]]:
    """Every model's processed rows, in recording order, in one read of the state log."""
    found = models_state_rows(project, list(MODELS))
    return {name: [(s, e) for s, e, t in found[name] if t == "processed"] for name in MODELS}


def run_and_diff(project: Any, run_vars: dict[str, str]) -> dict[str, list[tuple[str, str]]]:
    """The intervals each model recorded as processed in one `dbt run`, in order."""
    before = recorded(project)
    run("run", vars=run_vars)
    after = recorded(project)
    return {name: after[name][len(before[name]) :] for name in MODELS}


@pytest.mark.profile_only("parquet")  # planning does not depend on the table format
class TestPlanEqualsRun:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {f"{name}.sql": sql for name, sql in MODELS.items()}

    def test_plan_equals_run(self, project: Any, capsys: Any) -> None:
        checked: dict[str, int] = {}

        def step(op_args: dict[str, str], run_vars: dict[str, str]) -> None:
            predicted = plan(capsys, **op_args)
            ran = run_and_diff(project, run_vars)
            assert predicted == ran, (op_args, predicted, ran)
            for name, batches in ran.items():
                checked[name] = checked.get(name, 0) + len(batches)

        # first backfill: every table missing
        step({"execution_time": T0}, {"vulcan_execution_time": T0})
        # a catch-up of several intervals, each with its lookback
        step({"execution_time": T1}, {"vulcan_execution_time": T1})
        caught_up = processed_rows(project, "daily_lb2")[-1]
        # 03-03..03-05 missing, lookback 2 before each: 03-01..03-05 in one batch
        assert caught_up == ("2025-03-01 00:00:00", "2025-03-06 00:00:00")
        assert processed_rows(project, "daily_default")[-1][0] == "2025-03-03 00:00:00"
        # a restated range
        capsys.readouterr()
        run_dbt(
            [
                "run-operation",
                "vulcan_restate",
                "--args",
                json.dumps({"start": "2025-02-27", "end": "2025-02-27"}),
            ]
        )
        step({"execution_time": T1}, {"vulcan_execution_time": T1})
        # an explicit range (recomputed even though processed)
        explicit = {"start": "2025-03-02", "end": "2025-03-03"}
        step(
            {**explicit, "execution_time": T1},
            {
                "vulcan_start": explicit["start"],
                "vulcan_end": explicit["end"],
                "vulcan_execution_time": T1,
            },
        )
        # nothing due
        nothing = {"execution_time": T1}
        predicted = plan(capsys, **nothing)
        assert predicted == {name: [] for name in MODELS}
        assert run_and_diff(project, {"vulcan_execution_time": T1}) == predicted
        # a month later: the monthly model's first new month, long catch-ups in batches
        step({"execution_time": T2}, {"vulcan_execution_time": T2})

        assert processed_rows(project, "monthly_lb1")[-1] == (
            "2025-02-01 00:00:00",
            "2025-04-01 00:00:00",
        )
        # every model ran batches in at least three steps' worth (the matrix is not vacuous)
        assert all(count >= 3 for count in checked.values()), checked
