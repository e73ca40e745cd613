"""Concurrency: `--threads 8` over eight multi-batch time-range models, three runs (every
target, both modes, the state in the target's format), and two dbt processes at once, each
with `--threads 4`, over different models that share one state table which neither has
created yet (adapter mode: Delta; package mode: parquet, the default; thrift: processes of
the embedded session cannot share its Derby metastore). No state row is lost, every table is
correct."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from tests.support.functional import (
    models_state_rows,
    models_table_rows,
    rows,
    run,
    state_rows,
    table_rows,
)
from tests.support.reliability import (
    COLUMNS,
    DAYS,
    EXEC,
    create_events,
    day,
    dbt_command,
    dbt_env,
    expected_rows,
    merged,
    model,
    random_events,
    replay_checked,
    run_at_once,
    ts,
)

SEED = 4242
PER_PROCESS = 3


@pytest.mark.profile_only("thrift")
class TestTwoProcessesFourThreads:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {f"{p}_{i}.sql": model() for p in "ab" for i in range(PER_PROCESS)}

    def test_no_state_row_lost_and_every_table_correct(
        self, project: Any, table_format: str, request: pytest.FixtureRequest
    ) -> None:
        events = random_events(SEED, DAYS, per_day=(0, 6))
        create_events(project, "events", events, table_format)
        expected = expected_rows(events)
        # a state schema of this test only: both processes find no state table and create it
        state_schema = f"{project.test_schema}_state"
        run_vars = {**EXEC, "vulcan_state_schema": state_schema}
        if request.config.getoption("--mode") == "package":
            # package mode cannot retry a Delta CREATE that lost a race with another process
            # (README): it runs on the default state of `type: spark`, parquet, whose
            # create-if-not-exists the metastore does atomically
            run_vars["vulcan_state_file_format"] = "parquet"
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
                # its models, and the package's on-run-start hook
                assert f"PASS={PER_PROCESS + 1} WARN=0 ERROR=0" in outputs[p]
            state = f"{state_schema}.vulcan_intervals"
            batches = DAYS // 2
            names = [f"{p}_{i}" for p in "ab" for i in range(PER_PROCESS)]
            logs = models_state_rows(project, names, state)
            tables = models_table_rows(project, names, COLUMNS)
            for name in names:
                assert len(logs[name]) == batches, logs[name]
                assert replay_checked(logs[name]) == [(ts(day(0)), ts(day(DAYS)))]
                assert tables[name] == expected, name
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
class TestEightThreadsSeveralRuns:
    """Eight models, `--threads 8`, three runs, on the default state settings of the target
    (the state table is the profile's format: parquet, Delta or Iceberg), in both modes. The
    state table is new: the package's own on-run-start hook creates it before the threads
    start (a Delta CREATE that lost a race to another thread would fail; the project adds no
    hook); creates racing from two processes: TestTwoProcessesFourThreads. Every processed
    interval is recorded exactly once."""

    MODELS = 8
    RUNS = 3

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        # the first run backfills in one batch: every run is eight appends at once
        return {f"t_{i}.sql": model(batch=DAYS) for i in range(self.MODELS)}

    def test_every_interval_recorded_once(self, project: Any, table_format: str) -> None:
        days = DAYS + self.RUNS
        events = random_events(SEED + 1, days, per_day=(0, 6))
        create_events(project, "events", events, table_format)
        state_schema = f"{project.test_schema}_state"
        state = f"{state_schema}.vulcan_intervals"
        schema = project.test_schema.lower()
        models = [f"t_{i}" for i in range(self.MODELS)]
        names = ", ".join(f"'{schema}.{m}'" for m in models)
        try:
            for k in range(self.RUNS):
                # the first run backfills DAYS days, each later one a day
                run_vars = {
                    "vulcan_execution_time": day(DAYS + k).isoformat(),
                    "vulcan_state_schema": state_schema,
                }
                result = run("run", "--threads", "8", vars=run_vars)
                statuses = [r.status for r in result.results if r.node.resource_type == "model"]
                assert statuses == ["success"] * self.MODELS
                per_model = 1 + k
                logs = models_state_rows(project, models, state)
                tables = models_table_rows(project, models, COLUMNS)
                for m in models:
                    assert len(logs[m]) == per_model, logs[m]
                    assert replay_checked(logs[m]) == [(ts(day(0)), ts(day(DAYS + k)))]
                    assert tables[m] == expected_rows(events, DAYS + k), m
                # a state row is identified by its model, invocation, statement time and
                # position in the statement: none lost, none doubled
                counted = rows(
                    project,
                    "select count(*), count(distinct relation, invocation_id, recorded_at, seq) "
                    f"from {state} where relation in ({names})",
                )
                assert counted == [(self.MODELS * per_model, self.MODELS * per_model)]
            # a run at the same execution time has nothing to do and records nothing
            run("run", "--threads", "8", vars=run_vars)
            total = self.MODELS * self.RUNS
            assert rows(project, f"select count(*) from {state}") == [(total,)]
            # one more run folds every model's log at once (state/fold.sql: eight threads
            # removing their relation's rows from the state table together), then runs its day
            run_vars = {
                "vulcan_execution_time": day(DAYS + self.RUNS).isoformat(),
                "vulcan_state_schema": state_schema,
                "vulcan_state_fold_rows": self.RUNS,
            }
            result = run("run", "--threads", "8", vars=run_vars)
            statuses = [r.status for r in result.results if r.node.resource_type == "model"]
            assert statuses == ["success"] * self.MODELS
            logs = models_state_rows(project, models, state)
            tables = models_table_rows(project, models, COLUMNS)
            for m in models:
                # the folded range, then the day this run processed
                assert logs[m] == [
                    (ts(day(0)), ts(day(DAYS + self.RUNS - 1)), "processed"),
                    (ts(day(DAYS + self.RUNS - 1)), ts(day(DAYS + self.RUNS)), "processed"),
                ]
                assert tables[m] == expected_rows(events, days), m
            assert rows(project, f"select count(*) from {state}") == [(self.MODELS * 2,)]
            # the log's table format follows the target's
            props = rows(project, f"describe extended {state}")
            found = {str(r[0]).strip().lower(): str(r[1]) for r in props}
            if table_format == "parquet":  # declared in Hive's DDL, read by Spark's parquet
                assert (found["provider"], found["serde library"]) == (
                    "hive",
                    "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
                )
            else:
                assert found["provider"] == table_format
        finally:
            project.run_sql(f"drop schema if exists {state_schema} cascade")


@pytest.mark.profile_only("thrift")
class TestTwoProcessesOneModel:
    """Two dbt processes build the SAME Delta model at once (#47's decision: no lock per model,
    as neither SQLMesh nor dbt has one). Both plan the same batches; their overlapping writes
    meet at Delta's commit: one may fail with the format's conflict. After one plain rerun the
    table equals a clean build and the log replays to the whole range, each day once."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"shared.sql": model(batch=1)}

    def test_a_plain_rerun_leaves_a_clean_build(self, project: Any) -> None:
        events = random_events(SEED + 2, DAYS, per_day=(0, 6))
        create_events(project, "events", events, "delta")
        # one may fail loudly (LOUD), never with a wrong or partial success, which the rerun's
        # table and log below would show
        run_at_once(project, {tag: ["run", "-s", "shared"] for tag in ("a", "b")}, vars=EXEC)
        run("run", "-s", "shared", vars=EXEC)
        assert table_rows(project, "shared", COLUMNS) == expected_rows(events)
        # both may have recorded a day (each wrote it whole): the log replays alike
        log = state_rows(project, "shared")
        assert {kind for _, _, kind in log} == {"processed"}, log
        assert merged([(s, e) for s, e, _ in log]) == [(ts(day(0)), ts(day(DAYS)))]
