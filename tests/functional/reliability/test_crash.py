"""A dbt process killed with SIGKILL at seeded random points of a multi-batch backfill, and an
exception raised inside a batch: what is left behind is consistent (recorded => stored; a
Delta batch is all or nothing, a parquet batch may be half replaced but is then unrecorded),
and a plain re-run ends equal to a clean run with a state log that has no gap and no
duplicate.

- thrift: only dbt is killed; the Spark Thrift Server lives on (a client crash).
- parquet / delta (embedded session): dbt and the Spark JVM of its session are killed together
  (a machine crash). The killed processes use a warehouse and metastore of their own (the
  pytest process holds the embedded Derby metastore of the other tests); the test reads what
  they left behind by path.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.spark_targets import server_side_parameters
from tests.support.functional import leave_stage, rows, run, state_rows, table_rows
from tests.support.reliability import (
    BATCH,
    COLUMNS,
    DAYS,
    EXEC,
    create_events,
    day,
    dbt_command,
    dbt_env,
    expected_rows,
    model,
    no_duplicate_rows,
    random_events,
    replay_checked,
    run_and_kill,
    table_exists,
    ts,
)

SEED = 20250101
# VULCAN_CRASH_TRIALS overrides both (more trials, more kill points per run)
TRIALS = int(os.environ.get("VULCAN_CRASH_TRIALS", "6"))
# the embedded trials start a Spark JVM each: fewer, to keep the suite bounded (the trials
# against the Thrift server run in CI too): a kill at a random point, a kill in a swap
EMBEDDED_TRIALS = int(os.environ.get("VULCAN_CRASH_TRIALS", "2"))

# the embedded variant: the events inline (the killed process has its own warehouse); the
# table is partitioned by its time column (the default layout), or not: then each parquet
# batch is a staged rewrite of the whole table whose final swap a kill can interrupt half way
# (the next run replays it from the stage)
EMBEDDED_MODEL = """
{{{{ config(materialized='incremental_by_time_range', time_column='event_date',
          start='2025-01-01', batch_size={batch}, partition_by_time_column={partitioned}) }}}}
select count(*) as events, sum(amount) as amount, event_date
from (values {values}) as t(event_id, event_ts, event_date, customer_id, amount)
where event_date between @start_ds and @end_ds
group by event_date
"""


def embedded_model(events: list[tuple], batch: int = BATCH, partitioned: bool = True) -> str:
    values = ", ".join(
        f"({i}, timestamp'{t:%Y-%m-%d %H:%M:%S}', date'{d}', {c}, {a})" for i, t, d, c, a in events
    )
    return EMBEDDED_MODEL.format(batch=batch, values=values, partitioned=partitioned)


def batches(days: int = DAYS, size: int = BATCH) -> list[list[Any]]:
    return [[day(i) for i in range(s, min(s + size, days))] for s in range(0, days, size)]


class Reader:
    """Reads a model's table and state log: through the metastore, or (`warehouse` set) by
    path from the warehouse of another Spark (the embedded killed processes)."""

    def __init__(
        self,
        project: Any,
        fmt: str,
        warehouse: Path | None = None,
        profiles: Path | None = None,
    ) -> None:
        self.project, self.fmt, self.warehouse = project, fmt, warehouse
        self.profiles = profiles
        self._logs: dict[str, list[tuple[str, str, str]]] | None = None

    def changed(self) -> None:
        """A dbt process ran since the last read: read the log again."""
        self._logs = None

    def _path(self, schema: str, name: str) -> Path:
        assert self.warehouse is not None
        return self.warehouse / f"{schema.lower()}.db" / name.lower()

    def exists(self, name: str) -> bool:
        if self.warehouse is None:
            return table_exists(self.project, name)
        path = self._path(self.project.test_schema, name)
        marker = "_delta_log" if self.fmt == "delta" else ""
        return (path / marker).is_dir() if marker else path.is_dir()

    def table(self, name: str) -> list[tuple[Any, ...]]:
        if self.warehouse is None:
            return table_rows(self.project, name, COLUMNS)
        path = self._path(self.project.test_schema, name)
        if self.fmt == "parquet" and not _data_files(path):
            return []  # created, nothing committed yet: Spark cannot infer an empty schema
        source = f"{self.fmt}.`{path}`"
        return rows(
            self.project,
            f"select cast(event_date as date), events, amount from {source} order by 1",
        )

    def log(self, name: str) -> list[tuple[str, str, str]]:
        if self.warehouse is None:
            return state_rows(self.project, name)
        path = self._path("vulcan_state", "vulcan_intervals")
        if not path.is_dir():
            return []
        if self.fmt == "parquet":
            return self._log_through_metastore(name)
        return state_rows(self.project, name, f"{self.fmt}.`{path}`")

    def _log_through_metastore(self, name: str) -> list[tuple[str, str, str]]:
        """The parquet log as a plan reads it: the partitions its metastore lists. A process
        killed between moving an append's files into place and registering the partition
        leaves a directory no reader of the table sees (the interval is processed again);
        a read by path would count it. `dbt show` in the killed process's profile reads it."""
        assert self.profiles is not None
        if self._logs is None:
            self._logs = self._read_logs()
        return self._logs.get(f"{self.project.test_schema}.{name}".lower(), [])

    def _read_logs(self) -> dict[str, list[tuple[str, str, str]]]:
        """Every model's log, in one `dbt show` (a JVM start each)."""
        assert self.profiles is not None
        sql = (
            "select relation, interval_start, interval_end, row_type "
            "from vulcan_state.vulcan_intervals order by recorded_at, seq"
        )
        cmd = dbt_command(
            self.project,
            "--quiet",
            "show",
            "--inline",
            sql,
            "--limit",
            "-1",
            "--output",
            "json",
            profiles_dir=self.profiles,
        )
        done = subprocess.run(
            cmd,
            cwd=self.project.project_root,
            env=dbt_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        logs: dict[str, list[tuple[str, str, str]]] = {}
        for r in json.loads(done.stdout[done.stdout.index("{") :])["show"]:
            logs.setdefault(r["relation"], []).append(
                (r["interval_start"], r["interval_end"], r["row_type"])
            )
        return logs


def _data_files(path: Path) -> list[Path]:
    """The parquet files a reader of `path` sees: none under `_*` or `.*` (staging)."""
    return [
        f
        for f in path.rglob("*.parquet")
        if not any(part.startswith(("_", ".")) for part in f.relative_to(path).parts)
    ]


def assert_consistent_after_crash(
    project: Any, name: str, expected: list[tuple], reader: Reader | None = None
) -> None:
    """What a crash may leave: recorded intervals are stored exactly; no row is duplicated;
    nothing outside the backfill. Delta commits a batch atomically, so there every batch is in
    the table whole or not at all; a parquet batch is replaced partition by partition, so an
    unrecorded batch may be half written (the re-run recomputes it)."""
    reader = reader or Reader(project, "delta")
    covered = replay_checked(reader.log(name))
    if not reader.exists(name):
        assert covered == [], f"{name}: intervals recorded, no table"
        return
    got = reader.table(name)
    by_day = {r[0]: r for r in got}
    want = {r[0]: r for r in expected}
    assert len(by_day) == len(got), f"{name}: duplicate days {got}"
    assert set(by_day) <= set(want), f"{name}: rows outside the backfill {got}"
    for start, end in covered:
        for d, row in want.items():
            if start <= ts(d) < end:
                assert by_day.get(d) == row, f"{name}: recorded {d} not stored: {by_day.get(d)}"
    for days in batches():
        present = [d for d in days if d in by_day]
        if reader.fmt == "delta":
            assert present in ([], days), f"{name}: batch {days} half written: {present}"
        for d in present:
            assert by_day[d] == want[d], f"{name}: {d} holds {by_day[d]}, not {want[d]}"


def assert_complete(
    project: Any,
    name: str,
    expected: list[tuple],
    days: int = DAYS,
    reader: Reader | None = None,
) -> None:
    reader = reader or Reader(project, "delta")
    log = reader.log(name)
    assert replay_checked(log) == [(ts(day(0)), ts(day(days)))], log
    got = reader.table(name)
    assert got == expected, got
    assert len(set(got)) == len(got)
    if reader.warehouse is None:
        assert no_duplicate_rows(project, name)


# kill points: `pattern` (a regex over dbt's --debug output, formatted with the model name and
# the batch number k) and a delay drawn in [0, max_delay) seconds
KILL_POINTS = {
    # still parsing / planning, nothing written yet
    "startup": (r"Concurrency: \d+ threads", 2.0),
    # the k-th batch's data write has been sent (the crash lands before or during it)
    "data_write": (r"^\s*insert (into|overwrite table) \S+\.{name}\b", 1.5),
    # the k-th batch's interval append has been sent (the data is committed)
    # (Delta/Iceberg: `insert into <state> values (...)`; parquet: `... from values (...)`)
    "state_append": (
        r"^\s*(insert into vulcan_state\.vulcan_intervals values|from values) .*\.{name}'",
        0.8,
    ),
    # the k-th batch is done and logged
    "batch_done": (r"\[{k}/\d+\] \S+\.{name} \[insert", 0.5),
}


def trigger(event: str, name: str, k: int) -> Any:
    pattern, _ = KILL_POINTS[event]
    regex = re.compile(pattern.format(name=re.escape(name), k=k))
    seen = [0]

    def fire(line: str) -> bool:
        if not regex.search(line):
            return False
        seen[0] += 1
        # data writes and appends repeat once per batch: fire on the k-th
        return event in ("startup", "batch_done") or seen[0] == k

    return fire


@pytest.mark.profile_only("thrift")
class TestKilledBackfill:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {f"crash_{i}.sql": model() for i in range(TRIALS)}

    def test_sigkill_at_random_points_then_rerun_equals_clean_run(
        self, project: Any, table_format: str
    ) -> None:
        events = random_events(SEED, DAYS + 2, per_day=(1, 6))
        create_events(project, "events", events, table_format)
        expected = expected_rows(events)
        rng = random.Random(SEED)
        trials = []
        for i in range(TRIALS):
            name = f"crash_{i}"
            event = rng.choice(sorted(KILL_POINTS))
            k = rng.randint(1, len(batches()))
            delay = rng.uniform(0, KILL_POINTS[event][1])
            cmd = dbt_command(project, "--debug", "run", "-s", name, vars=EXEC)
            outcome = run_and_kill(
                cmd, str(project.project_root), trigger(event, name, k), delay, timeout=120
            )
            outcome.event = f"{event}#{k}"
            trials.append((name, outcome))
            print(f"{name}: kill after {outcome.event} + {delay:.2f}s: killed={outcome.killed}")
            assert_consistent_after_crash(project, name, expected)
        # the seeded points do kill runs (a trial whose run finished first still counts)
        assert sum(o.killed for _, o in trials) >= TRIALS // 2, [
            (n, o.event, o.killed) for n, o in trials
        ]

        # a plain re-run (4 threads) finishes every killed backfill: each equals a clean run's
        # result, computed from the data
        run("run", "--threads", "4", vars=EXEC)
        for name, outcome in trials:
            assert_complete(project, name, expected), outcome.event


def embedded_profile(project: Any, fmt: str, workdir: Path, package_mode: bool = False) -> Path:
    """A profiles dir whose session Spark keeps its warehouse and metastore in `workdir`; in
    package mode on stock `type: spark` (the state format is then the project's var)."""
    # a short-lived JVM: the quick JIT tier and a serial GC start it faster
    params = server_side_parameters(fmt, workdir, "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
    params["spark.driver.memory"] = "1g"
    target = {
        "type": "spark" if package_mode else "vulcan",
        "method": "session",
        "host": "localhost",
        "schema": project.test_schema,
        "threads": 1,
        **({} if package_mode else {"state_file_format": fmt}),
        "server_side_parameters": params,
    }
    profiles = workdir / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    (profiles / "profiles.yml").write_text(
        yaml.safe_dump({"test": {"target": "default", "outputs": {"default": target}}})
    )
    return profiles


@pytest.mark.profile_only("parquet", "delta")
@pytest.mark.skip_profile("thrift", reason="its Delta is on the server: TestKilledBackfill")
class TestKilledEmbeddedBackfill:
    """SIGKILL of dbt together with its embedded Spark at seeded random points."""

    EVENTS = random_events(SEED + 3, DAYS + 2, per_day=(1, 6))

    @staticmethod
    def staged(i: int) -> bool:
        """Odd trials: a table not partitioned by time, killed during a batch's swap."""
        return i % 2 == 1

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            f"crash_{i}.sql": embedded_model(self.EVENTS, partitioned=not self.staged(i))
            for i in range(EMBEDDED_TRIALS)
        }

    def test_sigkill_with_spark_at_random_points_then_rerun_equals_clean_run(
        self, project: Any, table_format: str, tmp_path: Path, request: pytest.FixtureRequest
    ) -> None:
        expected = expected_rows(self.EVENTS)
        package_mode = request.config.getoption("--mode") == "package"
        profiles = embedded_profile(project, table_format, tmp_path, package_mode)
        reader = Reader(project, table_format, tmp_path / "warehouse", profiles)
        rng = random.Random(SEED + 3)
        trials = []
        for i in range(EMBEDDED_TRIALS):
            name = f"crash_{i}"
            event = "data_write" if self.staged(i) else rng.choice(sorted(KILL_POINTS))
            k = rng.randint(1, len(batches()))
            delay = rng.uniform(0, KILL_POINTS[event][1])
            cmd = dbt_command(
                project, "--debug", "run", "-s", name, vars=EXEC, profiles_dir=profiles
            )
            outcome = run_and_kill(
                cmd,
                str(project.project_root),
                trigger(event, name, k),
                delay,
                timeout=180,
                group=True,
            )
            outcome.event = f"{event}#{k}"
            trials.append((name, outcome))
            reader.changed()
            print(f"{name}: kill after {outcome.event} + {delay:.2f}s: killed={outcome.killed}")
            if not outcome.killed:
                assert outcome.returncode == 0, "".join(outcome.output[-40:])
            if not (self.staged(i) and table_format == "parquet"):
                # a staged parquet rewrite killed in its swap may have lost stored rows until
                # the model's next run replays the swap: checked after the re-run below
                assert_consistent_after_crash(project, name, expected, reader)
        assert sum(o.killed for _, o in trials) >= EMBEDDED_TRIALS // 2, [
            (n, o.event, o.killed) for n, o in trials
        ]

        # a plain re-run finishes every killed backfill: each equals a clean run's result
        cmd = dbt_command(project, "run", "--threads", "4", vars=EXEC, profiles_dir=profiles)
        done = run_and_kill(cmd, str(project.project_root), lambda _: False, 0, timeout=300)
        assert not done.killed and done.returncode == 0, "".join(done.output[-60:])
        reader.changed()
        for name, outcome in trials:
            assert_complete(project, name, expected, reader=reader), outcome.event


class TestExceptionInBatch:
    FAILS = 3

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        rng = random.Random(SEED + 1)
        out = {}
        for i in range(self.FAILS):
            bad_day = day(rng.randrange(DAYS))
            extra = (
                f"  and (case when event_date = date'{bad_day}' and "
                "'{{ var(\"fail\", \"no\") }}' = 'yes' "
                f"then cast(raise_error('injected failure on {bad_day}') as boolean) "
                "else true end)\n"
            )
            out[f"fail_{i}.sql"] = model(extra=extra)
        return out

    def test_failed_batch_leaves_nothing_and_rerun_completes(
        self, project: Any, table_format: str
    ) -> None:
        events = random_events(SEED + 2, DAYS, per_day=(1, 6))
        create_events(project, "events", events, table_format)
        expected = expected_rows(events)
        result = run("run", "--threads", "2", vars={**EXEC, "fail": "yes"}, expect_pass=False)
        for res in result.results:
            if res.node.resource_type != "model":
                continue  # the package's on-run-start hook
            assert res.status == "error"
            assert "injected failure on" in str(res.message)
            name = res.node.name
            bad_day = re.search(r"injected failure on (\S+)", str(res.message)).group(1)
            failed = next(b for b in batches() if str(b[0]) <= bad_day <= str(b[-1]))
            # batches before the failing one: stored and recorded; from it on: nothing
            assert replay_checked(state_rows(project, name)) == (
                [(ts(day(0)), ts(failed[0]))] if failed[0] != day(0) else []
            )
            assert table_rows(project, name, COLUMNS) == [r for r in expected if r[0] < failed[0]]
        run("run", "--threads", "2", vars={**EXEC, "fail": "no"})
        for i in range(self.FAILS):
            assert_complete(project, f"fail_{i}", expected)


SWAP_MODEL = """
{{ config(materialized='incremental_by_unique_key', unique_key='id') }}
select * from values (1, 'a'), (2, 'b') as t(id, name)
"""


class TestInterruptedSwap:
    """The state a run killed inside a staged rewrite's final INSERT OVERWRITE leaves behind
    (the table's old files deleted, its new content complete in a stage marked for replay),
    built by hand: the model's next run replays the swap first, then runs as usual."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"swap.sql": SWAP_MODEL}

    def test_next_run_replays_a_marked_stage_and_drops_an_unmarked_one(
        self, project: Any, table_format: str
    ) -> None:
        schema = project.test_schema
        run("run", "-s", "swap")
        # (a unique key on Delta or Iceberg MERGEs without a stage: its stages are rare, and
        # the run that makes one records a `staging` row first, engine/stage.sql)
        intent = table_format != "parquet"
        leave_stage(
            project,
            table_format,
            "swap",
            "swap__vulcan_stage_deadbeef0001",
            f"select * from {schema}.swap union all select 3, 'c'",
            intent=intent,
        )
        leave_stage(
            project,
            table_format,
            "swap",
            "swap__vulcan_changes_deadbeef0002",
            "select 9 as id",
            replay=None,
            intent=False,
        )
        # the old rows gone (parquet: the overwrite deleted the files)
        wipe = "truncate table" if table_format == "parquet" else "delete from"
        project.run_sql(f"{wipe} {schema}.swap")
        assert table_rows(project, "swap") == []

        run("run", "-s", "swap")
        # row 3 exists only in the stage: the swap was replayed, then the batch upserted
        assert table_rows(project, "swap", "id, name") == [(1, "a"), (2, "b"), (3, "c")]
        left = rows(project, f"show tables in {schema} like 'swap__vulcan*'")
        assert left == []
