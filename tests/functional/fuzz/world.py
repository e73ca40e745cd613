"""The stateful fuzzer's expected world (test_stateful.py drives the real one): a model's
declared config space, its SQL, its source, and what its table and its state log must hold
after each step, computed from the oracle (tests/oracle: the planner `plan_model`, the log's
`RelationState` / `replay` / `compact`, the restatement ranges of `restatements`, the tracked
kind's `sync`).

Plain Python, no Spark: test_stateful.py writes the same model and source into a dbt project
and compares. To widen the space, add a field to `Spec` (its config and SQL in `Spec.config` /
`Spec.sql`), a value to the strategy in `specs()`, and, where the kind writes differently, a
branch in `World._write`.

What the model encodes beyond the oracle's planner (each documented in README.md):
- a run (re)builds the table when none exists or on `--full-refresh` (unless `forward_only`,
  then it runs incrementally), or when the log holds a full-history restatement; a table the
  log knows nothing of is rebuilt, unless the model keeps history (`forward_only`) and the
  table holds rows: then the run is refused (engine/begin.sql, vulcan_adopt_existing);
- a rebuild of a model with log rows first records a `removed` row over all time (`reset`),
  and, when its write is not idempotent (an accumulating `when_matched`), a second
  (`rebuilt`) once the table is empty;
- a run whose read returned at least `vulcan_state_fold_rows` rows folds them to their
  compaction (state/fold.sql): not on a rebuild, not with a restatement pending, not when the
  compaction would not halve them;
- a time-range batch over a range that already held rows (`dirty`) on parquet and Iceberg
  records that range `removed` and drops/deletes its rows before it writes (so a failure after
  that leaves the range missing and empty); Delta replaces it in one commit;
- a batch writes, then records its interval; a failing batch stops the run: earlier batches
  stay written and recorded;
- a tracked run (no `start`) is one batch, all time or its window, recorded as an empty range
  at its execution time; it syncs the query's groups (tests/oracle/tracked.py), the window's
  only with a time column, every group when the run builds the table;
- a child (Spec.child) reads its parent's table as it is when the child runs, after the
  parent in the same `dbt run`; its intervals the parent has not made ready wait
  (plan_model's `upstream`); dbt skips it when the parent failed (run_job).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from dbt.adapters.vulcan.timemacros import to_python_format
from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.oracle import tracked
from tests.oracle.config import OWN_KEYS, ModelConfig, node_config, validate
from tests.oracle.operations import restatements
from tests.oracle.planning import FAR_FUTURE, FAR_PAST, Batch, RunVars, Upstream, plan_model
from tests.oracle.schedule import Interval
from tests.oracle.state import (
    ABANDONED,
    PROCESSED,
    REMOVED,
    WRITING,
    RelationState,
    StateRow,
    compact,
    replay,
)

TIME_RANGE = "incremental_by_time_range"
UNIQUE_KEY = "incremental_by_unique_key"
TRACKED = "tracked"
KIND_NAMES = {TIME_RANGE: "time_range", UNIQUE_KEY: "unique_key", TRACKED: "tracked"}

T0 = datetime(2025, 1, 1)
UNITS = {"@daily": timedelta(days=1), "@hourly": timedelta(hours=1)}
# source rows lie in [T0 - 1 unit, T0 + HORIZON units); execution times go a little further
HORIZON = 9

# Known bugs being fixed elsewhere: each is left out of the drawn space until switched on with
# FUZZ_PENDING=<name>[,<name>...] (or `all`); each name is what it adds to the space.
PENDING: dict[str, str] = {
    # none open: the parts once left out here (a text format that does not sort as text, a
    # date column under an hourly cron, a non-UTC session, written-but-not-recorded on
    # Iceberg, an accumulating when_matched) are fixed and always drawn
}

FAIL_MESSAGE = "fz injected failure"
# a drawn `location_root` as the oracle sees it; the model reads the test's folder from the
# env var FZ_LOCATION instead
LOCATION = "/fz-location"
# the refusals a run may end with (before anything is written)
REFUSED_MESSAGE = "has no dbt-vulcan state"
DAYS_REFUSED = "holds days (type date) but the interval unit is hour"
LOOKBACK_REFUSED = "re-applies processed intervals"
AGAIN_REFUSED = "would apply processed intervals again"
# a Delta table partitioned by a TIMESTAMP column in a session not in the JVM's zone (UTC),
# before Spark 4.1 (engine/delta_time_zone.sql)
ZONE_REFUSED = "is not the JVM's 'Etc/UTC': the Delta Lake of Spark"
ACCUMULATE = "WHEN MATCHED THEN UPDATE SET target.v = target.v + source.v"
# the Spark formats of a string time column, per cron; 'dd/MM/yyyy': PENDING text_format
STRING_FORMATS = {"@daily": "yyyy-MM-dd", "@hourly": "yyyy-MM-dd HH:mm:ss"}


@dataclass(frozen=True)
class Spec:
    """One model of the declared space (every field a literal: a failing example printed by
    Hypothesis is Python that replays it)."""

    kind: str
    cron: str = "@daily"
    # time range: the time column's type, `timestamp`, `date` or `string` (in `time_format`)
    time_type: str = "timestamp"
    time_format: str = ""
    # the model's `start`, as written in its config (a date, or a time inside a unit)
    start: str = "2025-01-01"
    lookback: int = 0
    batch_size: int | None = None
    forward_only: bool = False
    # the query reads the whole source (no time filter): the output filter alone (time range)
    # or every batch upserts the latest row of every key (unique key)
    leaky: bool = False
    # vulcan_state_fold_rows for every run (None: the default, 100)
    fold_rows: int | None = None
    time_zone: str = "UTC"
    when_matched: str = ""
    # a child: a time-range model (this cron, or hourly over timestamps) that reads this
    # one's table through ref(); its intervals wait for this model's (upstream-aware
    # planning). "": none
    child: str = ""
    # this is a child: its query reads its parent's table (column t), not the source
    reads_parent: bool = False
    # the table is external, under `location_root` (env var FZ_LOCATION, the test's own
    # folder); a time range table then unpartitioned (parquet refuses a partitioned one)
    location: bool = False
    # tracked: the time column `t` limits an incremental run to the groups of its window
    windowed: bool = False
    # dbt-vulcan's own keys given under `meta` (as dbt 1.10+ asks), beside the `unique_key:
    # None` dbt-core gives every node; the run and the run-operations read them alike
    under_meta: bool = False

    def features(self) -> list[str]:
        """What the model exercises, for the fuzzer's summary."""
        out = [KIND_NAMES[self.kind], self.cron]
        if self.kind == TIME_RANGE:
            out.append(f"{self.time_type} {self.time_format}".strip())
        if self.windowed:
            out.append("window")
        out += [f"lookback {self.lookback}", f"batch_size {self.batch_size}"]
        flags = {
            "forward_only": self.forward_only,
            "leaky": self.leaky,
            f"fold_rows {self.fold_rows}": self.fold_rows is not None,
            self.time_zone: self.time_zone != "UTC",
            "when_matched": bool(self.when_matched),
            f"child {self.child}": bool(self.child),
            "location_root": self.location,
            "keys under meta": self.under_meta,
        }
        return out + [name for name, on in flags.items() if on]

    def child_spec(self) -> Spec:
        """The child's own spec: a time-range model of `child`'s cron from the first day, its
        time column the parent's, in the same session zone and with the same fold setting (a
        run var)."""
        assert self.child
        return Spec(
            kind=TIME_RANGE,
            cron=self.child,
            time_type=self.time_type,
            time_format=self.time_format,
            time_zone=self.time_zone,
            fold_rows=self.fold_rows,
            reads_parent=True,
            location=self.location,
            under_meta=self.under_meta,
        )

    @property
    def unit(self) -> timedelta:
        return UNITS[self.cron]

    def config(self) -> dict[str, Any]:
        """The model's config() keys."""
        out: dict[str, Any] = {"materialized": self.kind, "cron": self.cron}
        if self.kind != TRACKED:
            out["start"] = self.start
        if self.kind != TRACKED or self.windowed:
            out["lookback"] = self.lookback
        if self.batch_size is not None:
            out["batch_size"] = self.batch_size
        if self.forward_only:
            out["forward_only"] = True
        if self.kind == TIME_RANGE:
            out["time_column"] = ["t", self.time_format] if self.time_type == "string" else "t"
        elif self.kind == TRACKED:
            out["group_key"] = "k"
            if self.windowed:
                out["time_column"] = "t"
        else:
            out["unique_key"] = "k"
            if self.when_matched:
                out["when_matched"] = self.when_matched
        if self.location:
            out["location_root"] = LOCATION
            if self.kind == TIME_RANGE:
                out["partition_by_time_column"] = False
        if self.under_meta:
            meta = {k: out.pop(k) for k in list(out) if k in OWN_KEYS}
            out["meta"] = meta
        return out

    def sql(self, source: str) -> str:
        """The model: every source row in the batch's range (time range: with its time column
        `t`; tracked: grouped by its key, its time `t`), or the latest row of each key in it
        (unique key). The batch whose range holds the var fz_fail_at fails, rows or not: one
        more row, computed with raise_error."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.config().items())
        args = args.replace(repr(LOCATION), "env_var('FZ_LOCATION')")
        head = "{{ config(" + args + ") }}\n"
        if self.reads_parent:
            # `source`: the parent's ref(); the whole table, the output filter alone keeps the
            # batch's rows (of any time column type); no injected failure (a failing parent
            # skips it)
            return f"{head}select t, id, k, v\nfrom {source}\n"
        where = "" if self.leaky else "\nwhere event_ts between @start_dt and @end_dt"
        failing = 'timestamp\'{{ var("fz_fail_at", "1900-01-01") }}\''
        raised = f"cast(raise_error('{FAIL_MESSAGE}') as int)"
        fail = f"\nunion all\nselect ROW where {failing} between @start_dt and @end_dt\n"
        if self.kind == TIME_RANGE:
            column = {
                "timestamp": "event_ts",
                "date": "to_date(event_ts)",
                "string": f"date_format(event_ts, '{self.time_format}')",
            }[self.time_type]
            fail_row = f"{column.replace('event_ts', failing)}, {raised}, 0, 0"
            return f"{head}select {column} as t, id, k, v\nfrom {source}{where}" + fail.replace(
                "ROW", fail_row
            )
        if self.kind == TRACKED:
            fail_row = f"0, {raised}, 0, {failing}"
            return f"{head}select k, id, v, event_ts as t\nfrom {source}{where}" + fail.replace(
                "ROW", fail_row
            )
        return (
            f"{head}select k, id, v, event_ts from (\n"
            "  select *, row_number() over (partition by k order by event_ts desc, id desc) as rn\n"
            f"  from {source}{where}\n) where rn = 1"
            + fail.replace("ROW", f"0, {raised}, 0, {failing}")
        )

    def columns(self) -> str:
        """The table's columns, in the order `World.rows` gives them."""
        return {TIME_RANGE: "t, id, k, v", TRACKED: "k, id, v, t"}.get(
            self.kind, "k, id, v, event_ts"
        )

    def time_value(self, ts: datetime) -> Any:
        """The time column's value of a source row (time range)."""
        if self.time_type == "date":
            return ts.date()
        if self.time_type == "string":
            return ts.strftime(to_python_format(self.time_format))
        return ts


@dataclass(frozen=True)
class Row:
    """A source row; the source only ever grows (late rows are added, none is changed)."""

    id: int
    k: int
    v: int
    ts: datetime


@dataclass
class Outcome:
    """What a run does: whether dbt reports success, why not, and the batches it ran."""

    ok: bool
    error: str = ""
    batches: list[Batch] = field(default_factory=list)
    rebuild: bool = False
    # the instant whose batch fails (FailingRun), none when the run has no batch to fail
    fail_at: datetime | None = None


def fmt_ts(value: datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S")


class World:
    """The expected table and state log of one model, step by step."""

    def __init__(
        self, spec: Spec, name: str, schema: str, file_format: str, parent: World | None = None
    ) -> None:
        self.spec = spec
        # a child's parent: what its query reads (its table) and what its intervals wait for
        self.parent = parent
        self.name = name
        self.relation = f"{schema}.{name}".lower()
        self.file_format = file_format
        self.cfg: ModelConfig = validate(name, spec.kind, node_config(self.node()))
        self.source: list[Row] = []
        # None: no table; time range and tracked: the rows written, each with its time;
        # unique key: key -> row
        self.table: list[tuple[datetime, tuple[Any, ...]]] | dict[int, tuple[Any, ...]] | None
        self.table = None
        self.log: list[StateRow] = []
        self._clock = 0
        self._runs = 0
        # the processed row the last step appended last (what a crash before it leaves out)
        self.last_appended: StateRow | None = None
        # the `writing` rows whose write committed (engine/write_check.sql)
        self._committed: set[StateRow] = set()

    def _shifts_partitions(self) -> bool:
        """The table is partitioned by its TIMESTAMP time column, on Delta, in a session not in
        UTC (the JVM's zone here), on a Spark before 4.1: its Delta Lake would store the
        partition values shifted, so every run with a batch is refused."""
        spark = tuple(int(p) for p in _spark_version().split(".")[:2])
        spec = self.spec
        return (
            self.file_format == "delta"
            and spec.kind == TIME_RANGE
            and spec.time_type == "timestamp"
            and not spec.location
            and spec.time_zone != "UTC"
            and spark < (4, 1)
        )

    # ------------------------------------------------------------------ the source

    def add(self, rows: Iterable[Row]) -> None:
        self.source.extend(rows)

    def _in(self, start: datetime, end: datetime) -> list[Row]:
        if self.parent is not None:
            # the parent's table as it is now (a time range of timestamps: t is its time)
            table = self.parent.table
            assert isinstance(table, list)
            return [Row(i, k, v, ts) for ts, (_, i, k, v) in table if start <= ts < end]
        return [r for r in self.source if start <= r.ts < end]

    def upstream(self) -> list[Upstream]:
        """What a child's run waits for: its parent's settings and log, as they are now."""
        parent = self.parent
        if parent is None:
            return []
        return [Upstream(parent.name, parent.cfg, RelationState(tuple(parent.log)))]

    # ------------------------------------------------------------------ the log

    def _append(self, start: datetime, end: datetime, kind: str, details: str = "") -> StateRow:
        self._clock += 1
        row = StateRow(
            relation=self.relation,
            start=start,
            end=end,
            kind=kind,
            fingerprint="",
            invocation_id=f"run{self._runs}",
            recorded_at=datetime(2000, 1, 1) + timedelta(seconds=self._clock),
            seq=0,
            details=details,
        )
        self.log.append(row)
        return row

    def processed(self) -> list[Interval]:
        return replay(self.log)

    def log_rows(self) -> Counter[tuple[datetime, datetime, str]]:
        return Counter((r.start, r.end, r.kind) for r in self.log)

    # ------------------------------------------------------------------ the table

    def rows(self) -> Counter[tuple[Any, ...]] | None:
        if self.table is None:
            return None
        if isinstance(self.table, dict):
            return Counter(self.table.values())
        return Counter(row for _, row in self.table)

    def _clear(self) -> None:
        self.table = {} if self.spec.kind == UNIQUE_KEY else []

    def _drop_range(self, start: datetime, end: datetime) -> None:
        assert isinstance(self.table, list)
        self.table = [(ts, row) for ts, row in self.table if not start <= ts < end]

    def _write(self, start: datetime, end: datetime, created: bool) -> None:
        """A batch over [start, end) written into the table (`created`: the run built the
        table from nothing)."""
        spec = self.spec
        if spec.kind == TRACKED:
            self._sync(start, end, created)
            return
        if spec.kind == TIME_RANGE:
            self._drop_range(start, end)
            assert isinstance(self.table, list)
            self.table += [
                (r.ts, (spec.time_value(r.ts), r.id, r.k, r.v)) for r in self._in(start, end)
            ]
            return
        assert isinstance(self.table, dict)
        read = list(self.source) if spec.leaky else self._in(start, end)
        latest: dict[int, Row] = {}
        for r in read:
            if r.k not in latest or (r.ts, r.id) > (latest[r.k].ts, latest[r.k].id):
                latest[r.k] = r
        for k, r in latest.items():
            stored = self.table.get(k)
            if spec.when_matched and stored is not None:
                # target.v + source.v, the other columns kept
                self.table[k] = (k, stored[1], stored[2] + r.v, stored[3])
            else:
                self.table[k] = (k, r.id, r.v, r.ts)

    def _sync(self, start: datetime, end: datetime, created: bool) -> None:
        """A tracked run over its one batch [start, end): the groups of the query (every
        source row in the batch, or the whole source) synced into the table by the kind's
        reference (tests/oracle/tracked.py), its window the batch when the model has one."""
        assert isinstance(self.table, list)
        read = list(self.source) if self.spec.leaky else self._in(start, end)
        query = [{"k": r.k, "id": r.id, "v": r.v, "t": r.ts} for r in read]
        table = [dict(zip(("k", "id", "v", "t"), row, strict=True)) for _, row in self.table]
        window = None
        if self.spec.windowed:

            def window(t: datetime) -> bool:
                return start <= t < end

        synced = tracked.sync(
            table, query, ["k"], "t" if self.spec.windowed else None, window, created=created
        )
        self.table = [(r["t"], (r["k"], r["id"], r["v"], r["t"])) for r in synced.rows]

    # ------------------------------------------------------------------ the steps

    def run(
        self,
        run_vars: dict[str, str],
        full_refresh: bool = False,
        fail_at: datetime | None = None,
        fail_batch: int | None = None,
    ) -> Outcome:
        """One `dbt run` of the model with these vars. The batch holding `fail_at` fails; or
        (`fail_batch`) batch number fail_batch modulo their count, at its first interval's
        middle (then `Outcome.fail_at`)."""
        self._runs += 1
        self.last_appended = None
        cfg = self.cfg
        exists = self.table is not None
        if exists:
            self._settle()
        read = list(self.log)
        rebuild = not exists or (full_refresh and not cfg.forward_only)
        self._fold(read, rebuild)
        state = RelationState(tuple(read))
        parsed = RunVars.parse(run_vars, T0)
        upstream = self.upstream()
        plan = plan_model(cfg, "", state, parsed, rebuild, upstream=upstream)
        if self.spec.time_type == "date" and self.spec.unit < UNITS["@daily"]:
            # a column of days under hourly intervals (engine/column_checks.sql)
            return Outcome(ok=False, error=DAYS_REFUSED)
        if exists and not plan.rebuild and not plan.has_state:
            # a table the log knows nothing of (engine/begin.sql, vulcan_adopt_existing)
            if cfg.forward_only and self.rows():
                return Outcome(ok=False, error=REFUSED_MESSAGE)
            plan = plan_model(cfg, "", state, parsed, True, upstream=upstream)
        if plan.batches and self._shifts_partitions():
            return Outcome(ok=False, error=ZONE_REFUSED)
        if self.spec.when_matched and self.spec.lookback:
            # an accumulating when_matched never re-applies a processed range
            return Outcome(ok=False, error=LOOKBACK_REFUSED)
        if self.spec.when_matched and any(b.dirty for b in plan.batches):
            return Outcome(ok=False, error=AGAIN_REFUSED)
        if fail_batch is not None and plan.batches:
            chosen = plan.batches[fail_batch % len(plan.batches)]
            # (a tracked run's one batch: all time, or a window that may be shorter than a unit)
            middle = self.spec.unit / 2 if self.spec.kind != TRACKED else timedelta(0)
            fail_at = chosen.start + middle
        if plan.rebuild:
            if plan.has_state:
                self._append(FAR_PAST, FAR_FUTURE, REMOVED, json.dumps({"reset": True}))
            self._clear()
            # the table emptied: a second row for an accumulating write only
            if plan.has_state and self.spec.when_matched:
                rebuilt = {"reset": True, "rebuilt": True}
                self._append(FAR_PAST, FAR_FUTURE, REMOVED, json.dumps(rebuilt))
        marks = self.spec.kind == TIME_RANGE and self.file_format in ("parquet", "iceberg")
        created = not exists or plan.rebuild
        for done, batch in enumerate(plan.batches):
            if batch.dirty and marks:
                self._append(batch.start, batch.end, REMOVED)
                self._drop_range(batch.start, batch.end)
            # an accumulating batch is bracketed, but the first into a table this run created
            writing = None
            if self.spec.when_matched and not (created and done == 0):
                writing = self._append(batch.start, batch.end, WRITING)
            if fail_at is not None and batch.start <= fail_at < batch.end:
                # (a crash could not have followed an earlier batch's write: this one ran)
                self.last_appended = None
                ran = plan.batches[: done + 1]
                return Outcome(False, FAIL_MESSAGE, ran, plan.rebuild, fail_at)
            self._write(batch.start, batch.end, created)
            if writing is not None:
                self._committed.add(writing)
            # a kind without intervals records its run: an empty range at its execution time
            low, high = (batch.start, batch.end) if batch.tracked else (parsed.execution_time,) * 2
            self.last_appended = self._append(low, high, PROCESSED)
        return Outcome(ok=True, batches=plan.batches, rebuild=plan.rebuild, fail_at=fail_at)

    def _settle(self) -> None:
        """The writes a stopped run left open: recorded when they committed, else abandoned."""
        for row in RelationState(tuple(self.log)).pending_writes:
            self._append(row.start, row.end, PROCESSED if row in self._committed else ABANDONED)

    def _fold(self, read: list[StateRow], rebuild: bool) -> None:
        limit = self.spec.fold_rows
        if limit is None or limit == 0 or rebuild or len(read) < limit:
            return
        state = RelationState(tuple(read))
        if state.pending_restatements or state.pending_full_restatement or state.pending_writes:
            return
        folded = compact(read)
        if len(folded) * 2 <= len(read):
            self.log = folded

    def node(self) -> dict[str, Any]:
        """The model as a dbt graph node, for the oracle of the run-operations."""
        schema, _ = self.relation.split(".")
        return {
            "name": self.name,
            "unique_id": f"model.test.{self.name}",
            "resource_type": "model",
            "schema": schema,
            "alias": self.name,
            # dbt-core gives every node these keys (a value of its own, or none)
            "config": {"unique_key": None, **self.spec.config()},
        }

    def restate(self, start: str, end: str) -> str:
        """`vulcan_restate` of [start, end] (the oracle widens a unique key's to all time);
        the refusal's message, or '' when it records the restatement."""
        self.last_appended = None
        try:
            [restated] = restatements([self.node()], start, end)
        except VulcanConfigError as refused:
            return str(refused)
        assert restated.start is not None and restated.end is not None
        low = datetime.fromisoformat(restated.start)
        high = datetime.fromisoformat(restated.end)
        details = json.dumps({"restate": True, "full": restated.full})
        self._append(low, high, REMOVED, details)
        return ""

    def compact(self) -> None:
        """`vulcan_compact`: the log rewritten as its compaction."""
        self.last_appended = None
        self.log = compact(self.log)

    def unrecord_last(self) -> StateRow:
        """A crash after the last batch's write, before its interval was appended."""
        row = self.last_appended
        assert row is not None
        self.log.remove(row)
        self.last_appended = None
        return row


SKIPPED = "skipped: its parent failed"


def run_job(
    parent: World,
    child: World | None,
    select: str,
    run_vars: dict[str, str],
    full_refresh: bool = False,
    fail_at: datetime | None = None,
    fail_batch: int | None = None,
) -> dict[str, Outcome]:
    """One `dbt run` of the selected models (`all`, `parent`, `child`), in dbt's order: the
    parent, then its child, which dbt skips when the parent failed. Per model run, its
    outcome. A child is run alone only once its parent's table exists (its query reads it)."""
    names = job_names(parent, child, select)
    out: dict[str, Outcome] = {}
    if parent.name in names:
        out[parent.name] = parent.run(run_vars, full_refresh, fail_at, fail_batch)
    if child is not None and child.name in names:
        if parent.name in out and not out[parent.name].ok:
            out[child.name] = Outcome(ok=False, error=SKIPPED)
        else:
            out[child.name] = child.run(run_vars, full_refresh)
    return out


def job_names(parent: World, child: World | None, select: str) -> list[str]:
    """The models a job of `select` runs."""
    if child is None or select == "parent":
        return [parent.name]
    if select == "child" and parent.table is not None:
        return [child.name]
    return [parent.name, child.name]


# ---------------------------------------------------------------------- the drawn space

# where a row falls inside its unit: its start, a minute in, the middle, a minute before its end
PLACES = ("start", "+1m", "middle", "end-1m")
# an execution time: a unit boundary, a minute after or before it, or the unit's middle
OFFSETS = ("0", "+1m", "-1m", "half")
# how a range is written: whole days (a date-only end includes its day), unit-aligned times,
# or times inside units (aligned outwards)
STYLES = ("dates", "aligned", "inside")


def place(unit_offset: int, where: str, unit: timedelta) -> datetime:
    base = T0 + unit * unit_offset
    return (
        base
        + {
            "start": timedelta(0),
            "+1m": timedelta(minutes=1),
            "middle": unit / 2,
            "end-1m": unit - timedelta(minutes=1),
        }[where]
    )


def offset(at: str, unit: timedelta) -> timedelta:
    return {
        "0": timedelta(0),
        "+1m": timedelta(minutes=1),
        "-1m": -timedelta(minutes=1),
        "half": unit / 2,
    }[at]


def span(first: int, length: int, style: str, unit: timedelta) -> tuple[str, str]:
    """A range of `length` units from T0 + `first` units, as `start` / `end` texts."""
    low = T0 + unit * first
    high = low + unit * length
    if style == "dates":
        last = (high - timedelta(microseconds=1)).date()
        return low.date().isoformat(), max(last, low.date()).isoformat()
    if style == "inside":
        return fmt_ts(low + unit / 4), fmt_ts(high - unit / 4)
    return fmt_ts(low), fmt_ts(high)


def event_time_flags(low: str, high: str) -> list[str]:
    """dbt's flags for the range vulcan_start=low, vulcan_end=high (span's texts): a date-only
    end includes its day there, so the flag's exclusive end is the next midnight."""
    if len(high) == 10:
        high = (date.fromisoformat(high) + timedelta(days=1)).isoformat()
    return ["--event-time-start", low, "--event-time-end", high]


def _spark_version() -> str:
    """The Spark the tests run (the embedded session's and the Thrift server's)."""
    import pyspark

    return str(pyspark.__version__)


def enabled_pending(text: str) -> frozenset[str]:
    """FUZZ_PENDING's names (`all`: every one)."""
    names = {n.strip() for n in text.split(",") if n.strip()}
    if "all" in names:
        return frozenset(PENDING)
    unknown = names - set(PENDING)
    if unknown:
        raise ValueError(f"FUZZ_PENDING: unknown {sorted(unknown)}; known: {sorted(PENDING)}")
    return frozenset(names)


def enabled_kinds(text: str) -> list[str]:
    """FUZZ_KINDS's kinds (time_range, unique_key, tracked; empty: all of them)."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    by_name = {short: kind for kind, short in KIND_NAMES.items()}
    unknown = sorted(set(names) - set(by_name))
    if unknown:
        raise ValueError(f"FUZZ_KINDS: unknown {unknown}; known: {sorted(by_name)}")
    return [by_name[n] for n in names] or list(KIND_NAMES)


def specs(
    pending: frozenset[str] = frozenset(), kinds: list[str] | None = None
) -> st.SearchStrategy[Spec]:
    """Models of the declared space; `pending`: the PENDING parts switched on; `kinds`: the
    kinds drawn (all by default)."""

    @st.composite
    def draw(draw: Any) -> Spec:
        kind = draw(st.sampled_from(kinds or list(KIND_NAMES)))
        time_type, time_format, time_zone, when_matched = "timestamp", "", "UTC", ""
        crons = ["@daily", "@hourly"]
        if kind == TIME_RANGE:
            time_type = draw(st.sampled_from(["timestamp", "date", "string"]))
        cron = draw(st.sampled_from(crons))
        if time_type == "string":
            formats = [STRING_FORMATS[cron]]
            if cron == "@daily":
                formats.append("dd/MM/yyyy")
            time_format = draw(st.sampled_from(formats))
        if time_type == "timestamp":
            time_zone = draw(st.sampled_from(["UTC", "America/New_York"]))
        if kind == UNIQUE_KEY:
            when_matched = draw(st.sampled_from(["", ACCUMULATE]))
        child = ""
        if kind == TIME_RANGE:
            # (a day column or a text of days cannot take hourly intervals)
            hourly = time_type == "timestamp" and cron == "@daily"
            child = draw(st.sampled_from(["", cron, "@hourly" if hourly else cron]))
        if kind == TRACKED:
            # no `start` (a run is one batch, recorded as a run) and no batch_size; a window
            # (the time column t) with its lookback, or every run the whole query
            windowed = draw(st.booleans())
            return Spec(
                kind=kind,
                cron=cron,
                lookback=draw(st.integers(0, 2)) if windowed else 0,
                forward_only=draw(st.booleans()),
                leaky=draw(st.sampled_from([False, False, True])),
                fold_rows=draw(st.sampled_from([None, 4])),
                time_zone=time_zone,
                location=draw(st.sampled_from([False, False, True])),
                windowed=windowed,
                under_meta=draw(st.booleans()),
            )
        starts = {
            "@daily": ["2025-01-01", "2025-01-02", "2025-01-02 07:00:00"],
            "@hourly": ["2025-01-01 00:00:00", "2025-01-01 03:00:00", "2025-01-01 03:30:00"],
        }[cron]
        return Spec(
            kind=kind,
            cron=cron,
            time_type=time_type,
            time_format=time_format,
            start=draw(st.sampled_from(starts)),
            # (an accumulating when_matched refuses every run with lookback: seldom drawn)
            lookback=draw(st.sampled_from([0, 0, 1]) if when_matched else st.integers(0, 2)),
            batch_size=draw(st.sampled_from([None, 1, 3])),
            forward_only=draw(st.booleans()),
            leaky=draw(st.sampled_from([False, False, True])),
            fold_rows=draw(st.sampled_from([None, 4])),
            time_zone=time_zone,
            when_matched=when_matched,
            child=child,
            location=draw(st.sampled_from([False, False, True])),
            under_meta=draw(st.booleans()),
        )

    return draw()


# (unit offset from T0, place in the unit, key, value)
ROW = st.tuples(
    st.integers(-1, HORIZON - 1), st.sampled_from(PLACES), st.integers(1, 3), st.integers(0, 99)
)


# ---------------------------------------------------------------------- the steps

# Each step is one of these (a literal: Hypothesis prints a failing sequence as Python).
# `advance`: whole units the execution time moves on; `at`: where in its unit it lands (OFFSETS).


@dataclass(frozen=True)
class Run:
    """`dbt run` at the (moved) execution time, of the models `select`s (a model with a
    child: both, the parent's own job, or the child's own job; run_job)."""

    advance: int = 1
    at: str = "0"
    select: str = "all"


@dataclass(frozen=True)
class AddRows:
    """Rows added to the source: (unit offset from T0, place in the unit, key, value)."""

    rows: tuple[tuple[int, str, int, int], ...] = ()


@dataclass(frozen=True)
class ExplicitRange:
    """`dbt run` with vulcan_start / vulcan_end (world.span) at the current execution time, or
    (by_flags) with the same range as dbt's --event-time-start / --event-time-end, whose end is
    exclusive as given (a `dates` span's inclusive last day: its next midnight)."""

    first: int = 0
    length: int = 1
    style: str = "aligned"
    by_flags: bool = False


@dataclass(frozen=True)
class Restate:
    """`dbt run-operation vulcan_restate` of a range (world.span)."""

    first: int = 0
    length: int = 1
    style: str = "aligned"


@dataclass(frozen=True)
class Compact:
    """`dbt run-operation vulcan_compact`."""


@dataclass(frozen=True)
class FullRefresh:
    """`dbt run --full-refresh` at the (moved) execution time."""

    advance: int = 0
    at: str = "0"


@dataclass(frozen=True)
class Rerun:
    """The previous `dbt run` again, same vars and flags (nothing when there was none)."""


@dataclass(frozen=True)
class WrittenNotRecorded:
    """`dbt run` (as Run) that crashes after its last batch's write, before that batch's
    interval is recorded: simulated by deleting the processed row the run appended last
    (a plain run when it ran no batch). A model with a child: the parent's own job crashes
    (the child, not run, must then wait for the interval the parent did not record)."""

    advance: int = 1
    at: str = "0"


@dataclass(frozen=True)
class FailingRun:
    """`dbt run` whose batch number `batch` (modulo the run's batches) fails: the batches
    before it are written and recorded."""

    advance: int = 0
    at: str = "0"
    batch: int = 0


Step = (
    Run
    | AddRows
    | ExplicitRange
    | Restate
    | Compact
    | FullRefresh
    | Rerun
    | WrittenNotRecorded
    | FailingRun
)

# (sampled: a failing sequence shrinks towards the first value)
_ADVANCE = st.sampled_from([1, 0, 2, 3])
_AT = st.sampled_from(OFFSETS)
_RANGE = {
    "first": st.integers(-1, HORIZON),
    "length": st.integers(1, 3),
    "style": st.sampled_from(STYLES),
}
_RUN = st.builds(Run, advance=_ADVANCE, at=_AT, select=st.sampled_from(["all", "parent", "child"]))
# one strategy per step, the plain run first (what a failing sequence shrinks towards) and
# weighted: a sequence is mostly runs, with the other steps between them
STEPS = st.one_of(
    _RUN,
    _RUN,
    _RUN,
    st.builds(AddRows, rows=st.lists(ROW, min_size=1, max_size=3).map(tuple)),
    st.builds(AddRows, rows=st.lists(ROW, min_size=1, max_size=3).map(tuple)),
    st.builds(ExplicitRange, **_RANGE, by_flags=st.booleans()),
    st.builds(Restate, **_RANGE),
    st.just(Compact()),
    st.builds(FullRefresh, advance=_ADVANCE, at=_AT),
    st.just(Rerun()),
    st.builds(WrittenNotRecorded, advance=_ADVANCE, at=_AT),
    st.builds(FailingRun, advance=_ADVANCE, at=_AT, batch=st.integers(0, 3)),
)
