"""Concurrency: `--threads 4` over several multi-batch time-range models in one invocation
(every target), and two dbt processes at once, each with `--threads 4`, over different
models that share one state table which neither has created yet (thrift: processes of the
embedded session cannot share its Derby metastore). No state row is lost, every table is
correct."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from tests.functional.reliability.helpers import (
    create_events,
    day,
    dbt_command,
    dbt_env,
    random_events,
    replay_checked,
    ts,
)
from tests.functional.reliability.test_crash import COLUMNS, DAYS, EXEC, expected_rows, model
from tests.functional.util import STATE, rows, run, state_rows, table_rows

SEED = 4242
PER_PROCESS = 3


@pytest.mark.profile_only("thrift")
class TestTwoProcessesFourThreads:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {f"{p}_{i}.sql": model() for p in "ab" for i in range(PER_PROCESS)}

    def test_no_state_row_lost_and_every_table_correct(
        self, project: Any, table_format: str
    ) -> None:
        events = random_events(SEED, DAYS, per_day=(0, 6))
        create_events(project, "events", events, table_format)
        expected = expected_rows(events)
        # a state schema of this test only: both processes find no state table and create it
        state_schema = f"{project.test_schema}_state"
        run_vars = {**EXEC, "vulcan_state_schema": state_schema}
        procs = {
            p: subprocess.Popen(
                dbt_command(project, "run", "--threads", "4", "-s", f"{p}_*", vars=run_vars, tag=p),
                cwd=project.project_root,
                env=dbt_env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for p in "ab"
        }
        outputs = {p: proc.communicate(timeout=600)[0] for p, proc in procs.items()}
        try:
            for p, proc in procs.items():
                errors = [line for line in outputs[p].splitlines() if "rror" in line]
                assert proc.returncode == 0, "\n".join(errors[:30]) or outputs[p][-3000:]
                assert f"PASS={PER_PROCESS} " in outputs[p]
            state = f"{state_schema}.vulcan_intervals"
            batches = DAYS // 2
            for p in "ab":
                for i in range(PER_PROCESS):
                    name = f"{p}_{i}"
                    log = state_rows(project, name, state)
                    assert len(log) == batches, log
                    assert replay_checked(log) == [(ts(day(0)), ts(day(DAYS)))]
                    assert table_rows(project, name, COLUMNS) == expected
            # a state row is identified by its model, invocation, statement time and position
            # in the statement (seq orders the rows of one INSERT): none lost, none doubled
            counted = rows(
                project,
                "select count(*), count(distinct relation, invocation_id, recorded_at, seq) "
                f"from {state}",
            )
            assert counted == [(2 * PER_PROCESS * batches, 2 * PER_PROCESS * batches)]
        finally:
            project.run_sql(f"drop schema if exists {state_schema} cascade")


@pytest.mark.skip_profile("thrift", reason="two processes of 4 threads run there instead")
class TestFourThreadsOneInvocation:
    MODELS = 6

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {f"t_{i}.sql": model() for i in range(self.MODELS)}

    def test_four_threads_lose_no_state_row(self, project: Any, table_format: str) -> None:
        events = random_events(SEED + 1, DAYS, per_day=(0, 6))
        create_events(project, "events", events, table_format)
        expected = expected_rows(events)
        batches = DAYS // 2
        result = run("run", "--threads", "4", vars=EXEC)
        assert len(result.results) == self.MODELS
        schema = project.test_schema.lower()
        for i in range(self.MODELS):
            log = state_rows(project, f"t_{i}")
            assert len(log) == batches, log
            assert replay_checked(log) == [(ts(day(0)), ts(day(DAYS)))]
            assert table_rows(project, f"t_{i}", COLUMNS) == expected
        names = ", ".join(f"'{schema}.t_{i}'" for i in range(self.MODELS))
        where = f"where relation in ({names})"
        counted = rows(
            project,
            f"select count(*), count(distinct relation, interval_start) from {STATE} {where}",
        )
        assert counted == [(self.MODELS * batches, self.MODELS * batches)]
        # a second run at the same execution time has nothing to do and records nothing
        run("run", "--threads", "4", vars=EXEC)
        assert rows(project, f"select count(*) from {STATE} {where}") == [(self.MODELS * batches,)]
