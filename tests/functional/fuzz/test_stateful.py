"""The stateful fuzzer (issue #47): Hypothesis drives a model through a random sequence of real
`dbt` commands on the test's SparkSession, and after every step compares the model's table
with the expected table and the state log with the oracle's.

What it does
    Each example draws one model from a declared space (world.py, `specs`): the kind
    (incremental_by_time_range, incremental_by_unique_key, tracked: grouped by the key, with
    or without a window of its time column), the time column's type (timestamp,
    date, a 'yyyy-MM-dd' / 'yyyy-MM-dd HH:mm:ss' string), `cron` (@daily, @hourly where the type
    allows), `lookback` 0..2, `batch_size` none / 1 / 3, `start` (a unit boundary or a time
    inside a unit), `forward_only`, a query with or without its own time filter, and
    `vulcan_state_fold_rows` (the default, or 4: the log folded often), and `location_root`
    (the table external under the test's folder, unpartitioned; its location checked after
    every step, through rebuilds and restatements). Its source is a table
    the test writes (id, key, value, event time). A time-range model may have a child: a
    time-range model of the same cron (or hourly under a daily model of timestamps) that
    reads its table through ref(), whose intervals wait for the parent's (upstream-aware
    planning: world.run_job, the oracle's `Upstream`). Then up to FUZZ_STEPS steps, each one
    of:

    - `run`: `dbt run` at a later (or the same) execution time (var vulcan_execution_time);
      with a child, of both models, of the parent alone (its own job) or of the child alone;
    - `add_rows`: rows added to the source, late ones (for intervals already processed: seen
      only through lookback, an explicit range, a restatement or a rebuild) or early ones;
    - `explicit_range`: a run with vulcan_start / vulcan_end, or dbt's --event-time-* flags;
    - `restate`: `dbt run-operation vulcan_restate` of a range (with a child: `parent+`);
    - `compact`: `dbt run-operation vulcan_compact`;
    - `full_refresh`: `dbt run --full-refresh`;
    - `rerun`: the previous `dbt run` again, with the same vars and flags;
    - `written_not_recorded`: a crash after the last batch's write, before its interval was
      recorded: the processed row the last run appended last is deleted from the state log
      (with a child: the parent's own job crashes; the child must wait for that interval);
    - `failing_run`: a run in which any batch that reads a source row of a drawn window fails
      (raise_error), after the batches before it were written and recorded.

    After each step, for the model and its child: the table's rows equal the expected rows
    (as multisets; a child skipped by dbt when its parent failed), the log's
    replayed processed intervals equal the oracle's, and the log's rows (interval, row type)
    equal the expected log's as multisets. The expected world (world.py) is plain Python over
    the oracle: tests/oracle/planning.py plans each run, tests/oracle/state.py replays and
    compacts the log, tests/oracle/operations.py gives a restatement's range.

Budget, seed and shrinking
    The default budget is FUZZ_EXAMPLES=6 examples of up to FUZZ_STEPS=10 steps with a
    fixed seed (FUZZ_SEED=47): about 4-5 minutes on parquet. CI runs 4 of them on parquet and
    3 on Delta (FUZZ_SEED=4444: about 2 minutes). `make fuzz` runs longer
    (FUZZ_EXAMPLES=60 by default, a random seed unless FUZZ_SEED is given; the seed is printed
    at the start). A failure is shrunk to a minimal sequence of steps, for at most
    FUZZ_SHRINK_SECONDS (300) after it was found; Hypothesis then prints it as Python
    (`state = FuzzMachine()`, `state.setup(...)`, ...): paste it into a regression test
    below (`replay`).

Known bugs being fixed elsewhere are left out of the drawn space (world.PENDING);
FUZZ_PENDING=<name>,... (or `all`) switches them on.

Run it: `make fuzz` (FUZZ_PROFILE=parquet|delta|iceberg, FUZZ_EXAMPLES, FUZZ_SEED,
FUZZ_MODE=adapter|package, FUZZ_KINDS=time_range,unique_key,tracked: the kinds drawn), or
`.venv/bin/python -m pytest tests/functional/fuzz -q`.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from dbt.tests.util import run_dbt, write_file
from hypothesis import HealthCheck, Phase, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.internal.conjecture import engine
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    rule,
    run_state_machine_as_test,
)

from dbt.adapters.vulcan.timeutil import format_ts
from tests.functional.fuzz.world import (
    HORIZON,
    PENDING,
    ROW,
    SKIPPED,
    STEPS,
    T0,
    TRACKED,
    AddRows,
    Compact,
    ExplicitRange,
    FailingRun,
    FullRefresh,
    Outcome,
    Rerun,
    Restate,
    Row,
    Run,
    Spec,
    Step,
    World,
    WrittenNotRecorded,
    enabled_kinds,
    enabled_pending,
    event_time_flags,
    fmt_ts,
    job_names,
    offset,
    place,
    run_job,
    span,
    specs,
)
from tests.oracle.state import PROCESSED, StateRow, replay
from tests.support.functional import SESSION_TZ_VAR, rows
from tests.support.reliability import table_exists

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "6"))
STEP_COUNT = int(os.environ.get("FUZZ_STEPS", "10"))
# unset: CI's fixed seed; `random` (or empty): a new one, printed
SEED_TEXT = os.environ.get("FUZZ_SEED", "47")
SHRINK_SECONDS = int(os.environ.get("FUZZ_SHRINK_SECONDS", "300"))
PENDING_ON = enabled_pending(os.environ.get("FUZZ_PENDING", ""))
# the kinds drawn: time_range, unique_key, tracked (comma-separated; empty: all)
KINDS_ON = enabled_kinds(os.environ.get("FUZZ_KINDS", ""))
# print every example's steps at the end
VERBOSE = os.environ.get("FUZZ_VERBOSE", "") not in ("", "0")

# the fuzzer's own state log: `vulcan_compact` rewrites a whole log, so not the other tests'
STATE_SCHEMA = "fz_state"
STATE = f"{STATE_SCHEMA}.vulcan_intervals"


def fuzz_seed() -> int:
    if SEED_TEXT.strip() in ("", "random"):
        return random.SystemRandom().randrange(2**32)
    return int(SEED_TEXT)


class Stats:
    """What the fuzzer ran (printed at the end): steps and seconds by step, dbt runs by
    expected outcome, batches run."""

    steps: Counter[str] = Counter()
    seconds: Counter[str] = Counter()
    runs: Counter[str] = Counter()
    batches = 0
    examples: list[list[str]] = []
    models: Counter[str] = Counter()

    @classmethod
    def summary(cls) -> str:
        steps = ", ".join(
            f"{name} {count} ({cls.seconds[name] / count:.1f}s)"
            for name, count in cls.steps.most_common()
        )
        runs = ", ".join(f"{k} {v}" for k, v in sorted(cls.runs.items()))
        models = ", ".join(f"{k} {v}" for k, v in sorted(cls.models.items()))
        out = f"models: {models}\nsteps: {steps}\ndbt runs: {runs}; batches run: {cls.batches}"
        if VERBOSE:
            out += "".join(f"\n  {' | '.join(example)}" for example in cls.examples)
        return out


class FuzzMachine(RuleBasedStateMachine):
    """One model (and its child), its source and the dbt commands on it (the module's
    docstring)."""

    project: Any = None
    file_format = "parquet"
    pending: frozenset[str] = PENDING_ON
    names = iter(range(1, 10**9))

    def __init__(self) -> None:
        super().__init__()
        self.world: World | None = None
        # the model's child, when the spec draws one (world.Spec.child)
        self.child: World | None = None
        self.position = 0
        self.at = "0"
        self.last_run: tuple[dict[str, Any], bool, datetime | None, str] | None = None
        self.zone_set = False
        self.clock = time.monotonic()

    # ------------------------------------------------------------------ set-up

    @initialize(
        spec=specs(PENDING_ON, KINDS_ON),
        source=st.lists(ROW, max_size=8),
        position=st.sampled_from([2, 0, 1, 3]),
    )
    def setup(self, spec: Spec, source: list[tuple[int, str, int, int]], position: int) -> None:
        project = self.project
        name = f"fz{next(self.names)}"
        self.world = World(spec, name, project.test_schema, self.file_format)
        Stats.models.update(spec.features())
        self.source = f"{project.test_schema}.{name}_src"
        self.position = position
        if spec.time_zone != "UTC":
            # dbt's statements run in the zone (the profile reads it); the source's rows are
            # written here, in UTC
            os.environ[SESSION_TZ_VAR] = spec.time_zone
            self.zone_set = True
        project.run_sql(
            f"create table {self.source} (id int, k int, v int, event_ts timestamp) using parquet"
        )
        write_file(spec.sql(self.source), project.project_root, "models", f"{name}.sql")
        if spec.child:
            child = spec.child_spec()
            schema = project.test_schema
            self.child = World(child, f"{name}_c", schema, self.file_format, self.world)
            ref = "{{ ref('" + name + "') }}"
            write_file(child.sql(ref), project.project_root, "models", f"{name}_c.sql")
        self._insert(source)
        self.check("setup")

    def teardown(self) -> None:
        world = self.world
        if world is None:
            return
        project = self.project
        if self.zone_set:
            os.environ.pop(SESSION_TZ_VAR, None)
            self.zone_set = False
        for model in self._worlds():
            Path(project.project_root, "models", f"{model.name}.sql").unlink(missing_ok=True)
            project.run_sql(f"drop table if exists {model.relation}")
            # an external table's files outlive it
            shutil.rmtree(Path(os.environ["FZ_LOCATION"], model.name), ignore_errors=True)
        project.run_sql(f"drop table if exists {self.source}")

    # ------------------------------------------------------------------ the steps

    @rule(action=STEPS)
    def step(self, action: Step) -> None:
        """One step (world.py's step classes), then the check."""
        world = self._world()
        unit = world.spec.unit
        if isinstance(action, Run):
            self._advance(action.advance, action.at)
            self._dbt_run(self._vars(), select=action.select)
            jobs = f" ({action.select})" if self.child is not None else ""
            self.check(f"run at {self._vars()['vulcan_execution_time']}{jobs}")
        elif isinstance(action, AddRows):
            self._insert(list(action.rows))
            self.check("add_rows")
        elif isinstance(action, ExplicitRange):
            low, high = span(action.first, action.length, action.style, unit)
            flags = event_time_flags(low, high) if action.by_flags else []
            self._dbt_run(self._vars(vulcan_start=low, vulcan_end=high), flags=flags)
            self.check(f"explicit_range{'_by_flags' if flags else ''} {low} - {high}")
        elif isinstance(action, Restate):
            low, high = span(action.first, action.length, action.style, unit)
            refused = world.restate(low, high)
            if self.child is not None and not refused:
                # along the DAG: the child's range widened to its own intervals
                self.child.restate(low, high)
            select = world.name + ("+" if self.child is not None else "")
            args = {"select": select, "start": low, "end": high}
            # refused (a unique key with forward_only: its restatement would rebuild it)
            operation("vulcan_restate", args, ok=not refused)
            self.check(f"restate {low} - {high}" + (" (refused)" if refused else ""))
        elif isinstance(action, Compact):
            for model in self._worlds():
                model.compact()
            operation("vulcan_compact")
            self.check("compact")
        elif isinstance(action, FullRefresh):
            self._advance(action.advance, action.at)
            self._dbt_run(self._vars(), full_refresh=True)
            self.check(f"full_refresh at {self._vars()['vulcan_execution_time']}")
        elif isinstance(action, Rerun):
            if self.last_run is None:
                return self.skipped("rerun")
            run_vars, full_refresh, fail_at, select = self.last_run
            self._dbt_run(run_vars, full_refresh, fail_at, select=select)
            self.check("rerun")
        elif isinstance(action, WrittenNotRecorded):
            self._advance(action.advance, action.at)
            # the parent's own job: the crash stops it after the parent's last write
            self._dbt_run(self._vars(), select="parent")
            at = self._vars()["vulcan_execution_time"]
            if not self._may_unrecord():
                return self.check(f"written_not_recorded at {at}: a plain run")
            self._unrecord(at)
        elif isinstance(action, FailingRun):
            self._advance(action.advance, action.at)
            done = self._dbt_run(self._vars(), fail_batch=action.batch)
            failed = f"batch at {fmt_ts(done.fail_at)}" if done.fail_at else "no batch"
            self.check(f"failing_run at {self._vars()['vulcan_execution_time']}, {failed}")
        else:
            raise AssertionError(f"unknown step {action!r}")
        return None

    def _unrecord(self, at: str) -> None:
        world = self._world()
        expected = world.last_appended
        assert expected is not None
        # (a tracked run records an empty range, its execution time)
        untracked = world.spec.kind == TRACKED
        processed = [
            r for r in self.read_log() if r.kind == PROCESSED and (r.start < r.end or untracked)
        ]
        last = max(processed, key=lambda r: (r.recorded_at, r.seq))
        assert (last.start, last.end) == (expected.start, expected.end), (
            f"the last processed row is {last}, expected {expected}"
        )
        self._delete_state_row(last)
        if world.file_format == "parquet" and self._spec().when_matched:
            self._leave_stage(last)
        world.unrecord_last()
        self.check(f"written_not_recorded at {at}: {fmt_ts(last.start)} - {fmt_ts(last.end)}")

    def _leave_stage(self, last: StateRow) -> None:
        """Parquet, a bracketed batch (engine/write_check.sql): what the crash also leaves is
        the stage the batch was swapped in from, holding what the table now holds."""
        found = rows(
            self.project,
            f"select details from {STATE} where relation = '{last.relation}' "
            f"and row_type = 'writing' and interval_start = '{format_ts(last.start)}' "
            f"and interval_end = '{format_ts(last.end)}' order by recorded_at desc limit 1",
        )
        if not found:  # the first batch into a table its run created: not bracketed
            return
        stage = json.loads(found[0][0])["write_mark"]["stage"]
        schema = last.relation.split(".")[0]
        self.project.run_sql(
            f"create table {schema}.{stage} using parquet "
            f"tblproperties ('vulcan.replay' = 'overwrite') as select * from {last.relation}"
        )

    def skipped(self, what: str) -> None:
        """A step that does not apply here (nothing to repeat, nothing just recorded)."""
        Stats.steps[f"{what} (skipped)"] += 1
        Stats.seconds[f"{what} (skipped)"] += 0.0

    # ------------------------------------------------------------------ helpers

    def _world(self) -> World:
        assert self.world is not None
        return self.world

    def _worlds(self) -> list[World]:
        """The model, and its child when it has one (dbt's order)."""
        return [w for w in (self.world, self.child) if w is not None]

    def _spec(self) -> Spec:
        return self._world().spec

    def _may_unrecord(self) -> bool:
        world = self.world
        if world is None or world.last_appended is None:
            return False
        # a forward_only model whose log this would empty is refused from then on (its table
        # holds history the log no longer vouches for): by design, and a dead end for the fuzzer
        return not (world.spec.forward_only and len(world.log) == 1)

    def _advance(self, advance: int, at: str) -> None:
        self.position = min(self.position + advance, HORIZON + 2)
        self.at = at

    def _now(self) -> datetime:
        unit = self._spec().unit
        return T0 + unit * self.position + offset(self.at, unit)

    def _state_vars(self) -> dict[str, Any]:
        return {"vulcan_state_schema": STATE_SCHEMA}

    def _vars(self, **extra: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "vulcan_execution_time": fmt_ts(self._now()),
            **self._state_vars(),
        }
        if self._spec().fold_rows is not None:
            out["vulcan_state_fold_rows"] = self._spec().fold_rows
        return {**out, **extra}

    def _insert(self, drawn: list[tuple[int, str, int, int]]) -> None:
        world = self._world()
        unit = world.spec.unit
        new = [
            Row(len(world.source) + i + 1, k, v, place(u, where, unit))
            for i, (u, where, k, v) in enumerate(drawn)
        ]
        if not new:
            return
        # in UTC whatever zone the session is left in (a dbt run of an earlier example in
        # another zone set it)
        zone = "+00:00"
        values = ", ".join(f"({r.id}, {r.k}, {r.v}, timestamp'{fmt_ts(r.ts)}{zone}')" for r in new)
        self.project.run_sql(f"insert into {self.source} values {values}")
        world.add(new)

    def _dbt_run(
        self,
        run_vars: dict[str, Any],
        full_refresh: bool = False,
        fail_at: datetime | None = None,
        fail_batch: int | None = None,
        select: str = "all",
        flags: list[str] | None = None,
    ) -> Outcome:
        """One `dbt run` of the selected models (world.run_job) against the expected world;
        the model's expected outcome (its child's when the job runs the child alone). `flags`:
        dbt's --event-time-start / --event-time-end given instead of run_vars' range."""
        world = self._world()
        names = job_names(world, self.child, select)
        expected = run_job(world, self.child, select, run_vars, full_refresh, fail_at, fail_batch)
        main = expected.get(world.name) or expected[names[0]]
        self.last_run = (run_vars, full_refresh, main.fail_at, select)
        for outcome in expected.values():
            Stats.runs[outcome.error or ("rebuild" if outcome.rebuild else "ok")] += 1
            Stats.batches += len(outcome.batches)
        args = ["run", "-s", *names] + (["--full-refresh"] if full_refresh else [])
        if main.fail_at is not None:
            run_vars = {**run_vars, "fz_fail_at": fmt_ts(main.fail_at) + "+00:00"}
        if flags:
            run_vars = {
                k: v for k, v in run_vars.items() if k not in ("vulcan_start", "vulcan_end")
            }
            args += flags
        result = run_dbt([*args, "--vars", json.dumps(run_vars)], expect_pass=None)
        for name, want in expected.items():
            [done] = [r for r in result.results if r.node.name == name]
            status = str(getattr(done.status, "value", done.status))
            planned = [f"{fmt_ts(b.start)} - {fmt_ts(b.end)}" for b in want.batches]
            if want.error == SKIPPED:
                assert status == "skipped", f"{name}: {status}, expected skipped ({done.message})"
                continue
            assert (status == "success") == want.ok, (
                f"dbt run of {name} {'succeeded' if status == 'success' else 'failed'}, "
                f"expected {'success' if want.ok else 'failure: ' + want.error}; "
                f"expected batches {planned}; dbt: {done.message}"
            )
            if not want.ok:
                assert want.error in str(done.message), done.message
        return main

    def read_log(self, world: World | None = None) -> list[StateRow]:
        world = world or self._world()
        parquet = self.file_format == "parquet"
        found = rows(
            self.project,
            "select interval_start, interval_end, row_type, recorded_at, seq, invocation_id, "
            f"{'append_id' if parquet else 'null'} from {STATE} "
            f"where relation = '{world.relation}' order by recorded_at, seq",
        )
        return [
            StateRow(
                relation=world.relation,
                start=datetime.fromisoformat(str(start)),
                end=datetime.fromisoformat(str(end)),
                kind=str(kind),
                fingerprint="",
                invocation_id=str(invocation),
                recorded_at=datetime.fromisoformat(str(recorded)),
                seq=int(seq),
                details=str(append_id or ""),  # parquet: the append the row belongs to
            )
            for start, end, kind, recorded, seq, invocation, append_id in found
        ]

    def _delete_state_row(self, row: StateRow) -> None:
        relation = f"'{row.relation}'"
        if self.file_format == "parquet":
            append = f"'{row.details}'"
            [(count,)] = rows(
                self.project,
                f"select count(*) from {STATE} where relation = {relation} "
                f"and append_id = {append}",
            )
            assert count == 1, f"the append of {row} holds {count} rows"
            self.project.run_sql(
                f"alter table {STATE} drop if exists partition "
                f"(relation = {relation}, append_id = {append})"
            )
            return
        # a run appends one processed row per batch: its invocation, seq and range name it
        self.project.run_sql(
            f"delete from {STATE} where relation = {relation} and row_type = 'processed' "
            f"and invocation_id = '{row.invocation_id}' and seq = {row.seq} "
            f"and interval_start = '{format_ts(row.start)}' "
            f"and interval_end = '{format_ts(row.end)}'"
        )

    def check(self, what: str) -> None:
        """The table and the log against the expected world, after step `what`."""
        name = what.split(" ")[0]
        Stats.steps[name] += 1
        if name == "setup":
            Stats.examples.append([])
        Stats.examples[-1].append(what)
        Stats.seconds[name] += time.monotonic() - self.clock
        self.clock = time.monotonic()
        for world in self._worlds():
            self._check_model(world, what)

    def _check_model(self, world: World, what: str) -> None:
        project = self.project
        spec = world.spec
        expected = world.rows()
        exists = table_exists(project, world.name)
        if expected is None:
            assert not exists, f"after {what}: {world.relation} exists, expected no table"
        else:
            assert exists, f"after {what}: no table {world.relation}"
            if spec.location:
                found = project.run_sql(f"describe table extended {world.relation}", fetch="all")
                location = next(str(r[1]) for r in found if r[0] == "Location")
                assert location.rstrip("/").endswith(f"/external/{world.name}"), (
                    f"after {what}: {world.relation} is at {location}, expected its location_root"
                )
            got = Counter(rows(project, f"select {spec.columns()} from {world.relation}"))
            assert got == expected, (
                f"after {what}: {world.name} differs from the expected rows ({spec.columns()}):\n"
                f"  missing: {sorted((expected - got).elements(), key=repr)}\n"
                f"  extra:   {sorted((got - expected).elements(), key=repr)}"
            )
        log = self.read_log(world)
        got_processed = replay(log)
        want_processed = world.processed()
        assert got_processed == want_processed, (
            f"after {what}: the log of {world.name} replays to {show(got_processed)}, "
            f"expected {show(want_processed)}\n  log: {show_log(log)}"
            f"\n  expected log: {show_log(world.log)}"
        )
        got_rows = Counter((r.start, r.end, r.kind) for r in log)
        assert got_rows == world.log_rows(), (
            f"after {what}: the log rows of {world.name} differ (they replay alike)\n"
            f"  log: {show_log(log)}\n  expected log: {show_log(world.log)}"
        )


def operation(name: str, args: dict[str, Any] | None = None, ok: bool = True) -> None:
    """`dbt run-operation <name>` on the fuzzer's state log; it must succeed (`ok`) or fail."""
    command = ["run-operation", name, "--vars", json.dumps({"vulcan_state_schema": STATE_SCHEMA})]
    run_dbt(command + (["--args", json.dumps(args)] if args else []), expect_pass=ok)


def show(intervals: list[tuple[datetime, datetime]]) -> str:
    return "[" + ", ".join(f"{fmt_ts(s)} - {fmt_ts(e)}" for s, e in intervals) + "]"


def show_log(log: list[StateRow]) -> str:
    return "; ".join(f"{r.kind} {fmt_ts(r.start)} - {fmt_ts(r.end)}" for r in log)


def prepare(project: Any, table_format: str) -> None:
    """The machine's project, and the fuzzer's state table created (a read finds it)."""
    FuzzMachine.project = project
    FuzzMachine.file_format = table_format
    # a drawn `location_root` (world.Spec.location): the project's own folder
    os.environ["FZ_LOCATION"] = str(Path(project.project_root, "external"))
    operation("vulcan_compact")


def say(request: pytest.FixtureRequest, text: str) -> None:
    """A line on the terminal, past pytest's capture."""
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(f"\n{text}", flush=True)


@pytest.mark.skip_profile(
    "thrift", "databricks", reason="in-process dbt on the embedded session; the kinds' SQL is one"
)
class TestStatefulFuzz:
    def test_model_and_log_follow_the_oracle_step_by_step(
        self,
        project: Any,
        table_format: str,
        request: pytest.FixtureRequest,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        prepare(project, table_format)
        seed = fuzz_seed()
        pending = ", ".join(sorted(PENDING_ON)) or "none"
        say(
            request,
            f"stateful fuzzer: FUZZ_SEED={seed} FUZZ_EXAMPLES={EXAMPLES} FUZZ_STEPS={STEP_COUNT} "
            f"FUZZ_PENDING={pending} (known: {', '.join(PENDING)})",
        )
        machine = hypothesis_seed(seed)(type("FuzzRun", (FuzzMachine,), {}))
        started = time.monotonic()
        # Hypothesis stops shrinking after this long (its own bound, 300 s by default)
        monkeypatch.setattr(engine, "MAX_SHRINKING_SECONDS", SHRINK_SECONDS)
        run_state_machine_as_test(
            machine,
            settings=settings(
                max_examples=EXAMPLES,
                stateful_step_count=STEP_COUNT,
                deadline=None,
                database=None,
                print_blob=True,
                suppress_health_check=list(HealthCheck),
                phases=[Phase.explicit, Phase.generate, Phase.shrink],
            ),
        )
        took = time.monotonic() - started
        say(request, f"stateful fuzzer: {EXAMPLES} examples in {took:.0f}s\n{Stats.summary()}")


def replay_steps(
    project: Any,
    table_format: str,
    setup: dict[str, Any],
    steps: list[Step],
    pending: frozenset[str] = frozenset(),
) -> None:
    """A sequence as Hypothesis prints a failing one (`state.setup(...)`, then
    `state.step(action=...)`), replayed with the same checks: a regression test."""
    prepare(project, table_format)
    machine = FuzzMachine()
    machine.pending = pending
    try:
        machine.setup(**setup)
        for action in steps:
            machine.step(action=action)
    finally:
        machine.teardown()
