"""The oracle of planning (macros/planning/): what one model run does, its intervals and
batches, from config, the state log and the run's vars. The Python reference the Jinja is
checked against (the runs and `vulcan_plan` plan in Jinja); never run.

All datetimes are naive UTC; an interval is a half-open ``(start, end)`` pair. The functions
on intervals turn a schedule (tests/oracle/schedule.py), the model's start/end and the
already processed intervals into the intervals to run and their batches; `plan_model` makes
one run's batches of them, as the materializations' Jinja does.
"""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dbt.adapters.vulcan.timeutil import (
    EPOCH,
    VulcanConfigError,
    format_range,
    format_ts,
    parse_end,
    parse_time,
)
from tests.oracle.config import ModelConfig
from tests.oracle.schedule import Interval, Schedule
from tests.oracle.state import RelationState, merge_ranges, subtract

FAR_FUTURE = datetime(9999, 12, 31)
FAR_PAST = datetime(1900, 1, 1)


# ------------------------------------------------------------------------- intervals


def _check_int(value: object, key: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise VulcanConfigError(
            f"{key}: {value!r} is not allowed; expected an integer >= {minimum}"
        )
    return value


def expected_intervals(
    schedule: Schedule,
    start: datetime,
    end: datetime | None,
    execution_time: datetime,
    allow_partials: bool = False,
) -> list[Interval]:
    """Intervals from ``floor(start)`` up to ``min(end, due_end)``.

    Without ``allow_partials`` only complete unit intervals; with it the last interval may
    be partial, ending at ``min(end, execution_time)``.
    """
    limit = schedule.due_end(execution_time, allow_partials)
    if end is not None:
        limit = min(limit, end)
    out = schedule.intervals(start, limit)
    if allow_partials:
        tail = out[-1][1] if out else schedule.floor(start)
        if tail < limit:
            out.append((tail, limit))
    return out


def missing_intervals(
    expected: Sequence[Interval], processed: Iterable[Interval]
) -> list[Interval]:
    """Expected intervals not fully covered by the union of ``processed``."""
    merged = merge_ranges(processed)
    starts = [start for start, _ in merged]

    def covered(interval: Interval) -> bool:
        index = bisect_right(starts, interval[0]) - 1
        return index >= 0 and merged[index][1] >= interval[1]

    return [iv for iv in expected if not covered(iv)]


def apply_lookback(
    expected: Sequence[Interval], missing: Sequence[Interval], lookback: int
) -> list[Interval]:
    """``missing`` plus, before *each* missing interval, the ``lookback`` expected intervals
    preceding it (SQLMesh's rule: an interval is recomputed when it is missing or when any of
    the ``lookback`` intervals after it is missing). Only expected intervals are added, so the
    result stays within the model's start and what is complete."""
    _check_int(lookback, "lookback", 0)
    if not missing:
        return []
    ordered = sorted(expected)
    position = {interval: index for index, interval in enumerate(ordered)}
    chosen = set(missing)
    if lookback:
        reach = -1  # highest position already added, so each interval is visited once
        for index in sorted(position[iv] for iv in chosen if iv in position):
            for earlier in range(max(index - lookback, reach + 1), index):
                chosen.add(ordered[earlier])
            reach = max(reach, index)
    return sorted(chosen)


def make_batches(intervals: Iterable[Interval], batch_size: int | None) -> list[Interval]:
    """Group sorted intervals into contiguous batches of at most ``batch_size`` intervals.

    A gap always starts a new batch; ``None`` means one batch per contiguous run.
    Each batch is returned as ``(start of first interval, end of last interval)``.
    """
    if batch_size is not None:
        _check_int(batch_size, "batch_size", 1)
    batches: list[Interval] = []
    count = 0
    for start, end in sorted(set(intervals)):
        if batches and start < batches[-1][1]:
            raise ValueError(f"overlapping intervals at {format_ts(start)}")
        full = batch_size is not None and count >= batch_size
        if batches and start == batches[-1][1] and not full:
            batches[-1] = (batches[-1][0], end)
            count += 1
        else:
            batches.append((start, end))
            count = 1
    return batches


def align_range(schedule: Schedule, start: datetime, end_exclusive: datetime) -> Interval:
    """Widen an explicit run range to unit boundaries (floor start, ceil end)."""
    if end_exclusive <= start:
        raise VulcanConfigError(
            f"vulcan_end: '{format_ts(end_exclusive)}' is not allowed; it must be after "
            f"vulcan_start '{format_ts(start)}'"
        )
    return schedule.floor(start), schedule.ceil(end_exclusive)


def restatement_range(
    schedule: Schedule,
    start: datetime,
    end_exclusive: datetime,
    model_start: datetime | None,
    full_history_only: bool,
    disable_restatement: bool,
    key_owner: str,
) -> tuple[Interval, str | None]:
    """Range whose data (and state) a restatement removes, plus an optional warning.

    Kinds that only support full-history restatement are widened to
    ``[floor(model_start), FAR_FUTURE)`` (``FAR_PAST`` when there is no model start).
    """
    if disable_restatement:
        raise VulcanConfigError(
            f"disable_restatement: true does not allow restating {key_owner}; "
            "set disable_restatement false to allow it"
        )
    requested = align_range(schedule, start, end_exclusive)
    if not full_history_only:
        return requested, None
    first = schedule.floor(model_start) if model_start is not None else FAR_PAST
    widened = (first, FAR_FUTURE)
    if requested[0] <= widened[0] and requested[1] >= widened[1]:
        return widened, None
    shown = format_range(requested[0], requested[1], schedule.unit.is_date_grain)
    warning = (
        f"{key_owner} only supports full-history restatement: the requested range {shown} "
        f"was widened to the whole history from {format_ts(first)}"
    )
    return widened, warning


@dataclass(frozen=True)
class Upstream:
    """A dbt-vulcan model with intervals that a model reads (directly, or through views,
    tables and ephemeral models): its settings and its log."""

    name: str
    cfg: ModelConfig
    state: RelationState

    def unready(self) -> list[Interval]:
        """What the parent has not made ready: its span, from its floored start to its end
        (or forever), minus its processed ranges (nothing is processed while a full-history
        restatement it will rebuild for is pending), each gap widened to its own interval
        unit's boundaries (a partial interval is not ready)."""
        assert self.cfg.start is not None
        schedule = self.cfg.schedule()
        low = schedule.floor(parse_time(self.cfg.start, "start"))
        high = parse_time(self.cfg.end, "end") if self.cfg.end else FAR_FUTURE
        rebuilds = self.state.pending_full_restatement and not self.cfg.forward_only
        processed = [] if rebuilds else self.state.processed
        gaps = subtract([(low, high)], processed)
        return merge_ranges(
            (schedule.floor(g0), g1 if g1 >= FAR_FUTURE else schedule.ceil(g1)) for g0, g1 in gaps
        )


@dataclass(frozen=True)
class Signal:
    """The answer of a model's `ready_when` for one run: the time up to which its inputs are
    ready; an interval ending after it waits (a false or NULL answer: the due range's start)."""

    ready_until: datetime
    name: str = "signal ready_when"

    def unready(self) -> list[Interval]:
        return [(self.ready_until, FAR_FUTURE)]


@dataclass(frozen=True)
class IntervalSignal:
    """The answer of a model's `ready_intervals` for one run over a due range from `low`: the
    times its query returned; an interval runs only when one of them falls inside it (of the
    model's unit); what waits is everything else from `low` on."""

    schedule: Schedule
    ready_at: Sequence[datetime]
    low: datetime = EPOCH
    name: str = "signal ready_intervals"

    def unready(self) -> list[Interval]:
        floors = [self.schedule.floor(t) for t in self.ready_at]
        ready = merge_ranges((f, self.schedule.add(f)) for f in floors)
        return subtract([(self.low, FAR_FUTURE)], ready)


@dataclass(frozen=True)
class HeldBack:
    """The intervals a run holds back, merged, and the parents they wait for: each parent's
    name and where its first unready range meeting them starts."""

    ranges: list[Interval]
    intervals: int
    waiting: list[tuple[str, datetime]]


def hold_back(
    to_run: Sequence[Interval], upstream: Sequence[Upstream | Signal | IntervalSignal]
) -> tuple[list[Interval], HeldBack]:
    """`to_run` without the intervals an upstream model has not made ready: an interval runs
    only when every parent has processed all of its own intervals the interval overlaps."""
    unready = [(u.name, u.unready()) for u in upstream]
    kept: list[Interval] = []
    held: list[Interval] = []
    for iv in to_run:
        if any(s < iv[1] and e > iv[0] for _, ranges in unready for s, e in ranges):
            held.append(iv)
        else:
            kept.append(iv)
    waiting = []
    for name, ranges in unready:
        meeting = [s for s, e in ranges for h0, h1 in held if s < h1 and e > h0]
        if meeting:
            waiting.append((name, min(meeting)))
    return kept, HeldBack(merge_ranges(held), len(held), waiting)


@dataclass(frozen=True)
class IntervalPlan:
    """Outcome of :func:`plan_intervals`."""

    expected: list[Interval]
    missing: list[Interval]
    to_run: list[Interval]
    batches: list[Interval]
    held: HeldBack = HeldBack([], 0, [])


def plan_intervals(
    schedule: Schedule,
    start: datetime,
    end: datetime | None,
    execution_time: datetime,
    allow_partials: bool = False,
    lookback: int = 0,
    batch_size: int | None = None,
    processed: Iterable[Interval] = (),
    explicit_range: Interval | None = None,
    upstream: Sequence[Upstream | Signal | IntervalSignal] = (),
) -> IntervalPlan:
    """Compute expected, missing and to-run intervals and their batches for one model.

    With ``explicit_range`` the run is exactly the expected intervals inside the aligned
    range (recomputed even if processed); intervals outside the model's start/end or not
    yet due are never run. The intervals an `upstream` model has not made ready are held
    back (hold_back), whatever chose them (missing, lookback, explicit, rebuild).
    """
    expected = expected_intervals(schedule, start, end, execution_time, allow_partials)
    missing = missing_intervals(expected, processed)
    if explicit_range is not None:
        low, high = align_range(schedule, *explicit_range)
        to_run = [iv for iv in expected if low <= iv[0] and iv[1] <= high]
    else:
        to_run = apply_lookback(expected, missing, lookback)
    to_run, held = hold_back(to_run, upstream)
    return IntervalPlan(
        expected=expected,
        missing=missing,
        to_run=to_run,
        batches=make_batches(to_run, batch_size),
        held=held,
    )


# ----------------------------------------------------------------------- one model run


@dataclass(frozen=True)
class RunVars:
    """The CLI vars every kind shares, parsed (never pasted into SQL)."""

    execution_time: datetime
    start: datetime | None = None
    end: datetime | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any], default_execution_time: datetime) -> RunVars:
        errors: list[str] = []

        def get(key: str, parse: Any) -> datetime | None:
            value = raw.get(key)
            if value in (None, ""):
                return None
            try:
                parsed: datetime = parse(value, key)
                return parsed
            except VulcanConfigError as exc:
                errors.append(str(exc))
                return None

        execution_time = get("vulcan_execution_time", parse_time) or default_execution_time
        parsed = {
            "vulcan_start": get("vulcan_start", parse_time),
            "vulcan_end": get("vulcan_end", parse_end),
            # dbt's --event-time-start / --event-time-end: the end exclusive as given
            "event_time_start": get("event_time_start", parse_time),
            "event_time_end": get("event_time_end", parse_time),
        }
        # a var given but invalid is reported once, above, not also as missing
        given = {key: raw.get(key) not in (None, "") for key in parsed}
        for first, last in (("vulcan_start", "vulcan_end"), ("event_time_start", "event_time_end")):
            if given[first] and not given[last]:
                errors.append(f"{last}: required when {first} is given")
            if given[last] and not given[first]:
                errors.append(f"{first}: required when {last} is given")
            low, high = parsed[first], parsed[last]
            if low is not None and high is not None and low >= high:
                errors.append(f"{first}: {raw.get(first)!r} is not before {last}")
        if (given["vulcan_start"] or given["vulcan_end"]) and (
            given["event_time_start"] or given["event_time_end"]
        ):
            errors.append(
                "vulcan_start/vulcan_end and --event-time-start/--event-time-end both give the"
                " range to process: give one of them"
            )
        if errors:
            raise VulcanConfigError("Invalid --vars:\n" + "\n".join(f"  - {e}" for e in errors))
        flags = parsed["event_time_start"] is not None
        start = parsed["event_time_start"] if flags else parsed["vulcan_start"]
        end = parsed["event_time_end"] if flags else parsed["vulcan_end"]
        return cls(execution_time=execution_time, start=start, end=end)


@dataclass
class Batch:
    index: int
    count: int
    start: datetime
    end: datetime
    intervals: int
    label: str
    dirty: bool
    tracked: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "count": self.count,
            "start": format_ts(self.start),
            "end": format_ts(self.end),
            "intervals": self.intervals,
            "label": self.label,
            "dirty": self.dirty,
            "tracked": self.tracked,
        }


@dataclass
class ModelPlan:
    batches: list[Batch]
    expected: list[Interval]
    missing: list[Interval]
    processed: list[Interval]
    fingerprint: str
    previous_fingerprint: str | None
    execution_time: datetime
    time_type: str | None
    first_interval: Interval
    has_state: bool = False
    rebuild: bool = False
    held: HeldBack = HeldBack([], 0, [])

    @property
    def fingerprint_changed(self) -> bool:
        return (
            self.previous_fingerprint is not None and self.previous_fingerprint != self.fingerprint
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "batches": [b.as_dict() for b in self.batches],
            "intervals": sum(b.intervals for b in self.batches),
            "expected": len(self.expected),
            "missing": [[format_ts(s), format_ts(e)] for s, e in merge_ranges(self.missing)],
            "fingerprint": self.fingerprint,
            "previous_fingerprint": self.previous_fingerprint,
            "fingerprint_changed": self.fingerprint_changed,
            "execution_time": format_ts(self.execution_time),
            "time_type": self.time_type,
            "has_state": self.has_state,
            "rebuild": self.rebuild,
            "all_time": [format_ts(FAR_PAST), format_ts(FAR_FUTURE)],
            "first_interval": [format_ts(s) for s in self.first_interval],
            "held": [[format_ts(s), format_ts(e)] for s, e in self.held.ranges],
            "held_intervals": self.held.intervals,
            "waiting": [[name, format_ts(at)] for name, at in self.held.waiting],
        }


def contract_signature(node: Any) -> list[list[Any]] | None:
    """An enforced dbt contract's part of the fingerprint: [[name, data_type], ...] in the
    contract's order, else None (engine/contract.sql, vulcan_contract_signature)."""
    node_config = _node_get(node, "config") or {}
    contract = _node_get(node_config, "contract") or {}
    if _node_get(contract, "enforced") is not True:
        return None
    columns = _node_get(node, "columns") or {}
    return [
        [_node_get(column, "name") or name, _node_get(column, "data_type")]
        for name, column in columns.items()
    ]


def _node_get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, Mapping) else getattr(obj, key, None)


def fingerprint(raw_code: str, cfg: ModelConfig, contract: list[list[Any]] | None = None) -> str:
    """A hash of what decides a model's rows: its code, the keys that shape its output and an
    enforced contract's columns and types (only then: a model without one keeps its hash)."""
    shaping: dict[str, Any] = {
        "kind": cfg.kind,
        "time_column": cfg.time_column,
        "time_format": cfg.time_format,
        "time_data_type": cfg.time_data_type,
        "unique_key": cfg.unique_key,
        "when_matched": cfg.when_matched,
        "merge_filter": cfg.merge_filter,
    }
    if cfg.kind == "tracked":
        shaping.update(group_key=cfg.group_key, content_hash_column=cfg.content_hash_column)
    if contract is not None:
        shaping["contract"] = contract
    text = raw_code.strip() + "\n" + json.dumps(shaping, sort_keys=True)
    # md5: what dbt's Jinja can compute (local_md5), so the package's plan gives the same hash
    return hashlib.md5(text.encode()).hexdigest()[:16]


def first_interval(cfg: ModelConfig) -> Interval:
    """The model's first interval (from `start`, or 1970-01-01): the time tokens of the query
    whose columns a run reads."""
    start = parse_time(cfg.start, "start") if cfg.start else EPOCH
    return start, cfg.schedule().add(start)


def plan_model(
    cfg: ModelConfig,
    raw_code: str,
    state: RelationState,
    run_vars: RunVars,
    rebuild: bool,
    contract: list[list[Any]] | None = None,
    upstream: Sequence[Upstream] = (),
    signal: datetime | None = None,
) -> ModelPlan:
    """Batches of one run. `rebuild`: the table is (re)created, so all history is due.

    A pending full-history restatement (vulcan_restate on a kind that only supports it) turns
    the run into a rebuild, unless the model has forward_only: its history is kept (the
    restatement stays pending), as from --full-refresh."""
    rebuild = rebuild or (state.pending_full_restatement and not cfg.forward_only)
    schedule = cfg.schedule()
    if cfg.start is None:
        return _untracked_plan(cfg, raw_code, state, run_vars, rebuild, contract)
    start = parse_time(cfg.start, "start")
    end = parse_time(cfg.end, "end") if cfg.end else None
    processed = [] if rebuild else state.processed
    touched = [] if rebuild else state.touched
    explicit = None
    if run_vars.start is not None and run_vars.end is not None and not rebuild:
        explicit = (run_vars.start, run_vars.end)
    planned = plan_intervals(
        schedule,
        start,
        end,
        run_vars.execution_time,
        allow_partials=cfg.allow_partials,
        lookback=cfg.lookback,
        batch_size=cfg.batch_size,
        processed=processed,
        explicit_range=explicit,
        upstream=[
            *(
                [u for u in upstream if u.name not in cfg.ignore_upstream]
                if cfg.wait_for_upstream
                else []
            ),
            *([Signal(signal)] if signal is not None else []),
        ],
    )
    date_grain = schedule.unit.is_date_grain
    batches = []
    for i, (b_start, b_end) in enumerate(planned.batches, start=1):
        count = sum(1 for iv in planned.to_run if b_start <= iv[0] and iv[1] <= b_end)
        batches.append(
            Batch(
                index=i,
                count=len(planned.batches),
                start=b_start,
                end=b_end,
                intervals=count,
                label=format_range(b_start, b_end, date_grain),
                dirty=any(s < b_end and e > b_start for s, e in touched),
            )
        )
    previous = None if rebuild else (state.latest.fingerprint if state.latest else None)
    time_type = cfg.time_data_type or state.details.get("time_type")
    return ModelPlan(
        batches=batches,
        expected=planned.expected,
        missing=planned.missing,
        processed=processed,
        fingerprint=fingerprint(raw_code, cfg, contract),
        previous_fingerprint=previous,
        execution_time=run_vars.execution_time,
        time_type=time_type if isinstance(time_type, str) else None,
        first_interval=first_interval(cfg),
        has_state=bool(state.rows),
        rebuild=rebuild,
        held=planned.held,
    )


def _untracked_plan(
    cfg: ModelConfig,
    raw_code: str,
    state: RelationState,
    run_vars: RunVars,
    rebuild: bool,
    contract: list[list[Any]] | None = None,
) -> ModelPlan:
    """A kind run without `start`: one batch over all time up to now, nothing recorded.

    Its time tokens span 1970-01-01 .. the execution time; a kind with a time column (tracked)
    runs over its window: the vars' range, else from the execution time's unit, `lookback`
    units back, to the execution time. A rebuild has no window (all time)."""
    schedule = cfg.schedule()
    start, end = EPOCH, schedule.due_end(run_vars.execution_time, allow_partials=True)
    windowed = cfg.time_column and not rebuild
    if windowed and run_vars.start is not None and run_vars.end is not None:
        start, end = run_vars.start, run_vars.end
    elif windowed:
        start = schedule.add(schedule.floor(run_vars.execution_time), -cfg.lookback)
    batch = Batch(
        index=1,
        count=1,
        start=start,
        end=end,
        intervals=0,
        label=format_range(start, end, schedule.unit.is_date_grain),
        dirty=False,
        tracked=False,
    )
    previous = None if rebuild else (state.latest.fingerprint if state.latest else None)
    return ModelPlan(
        batches=[batch],
        expected=[],
        missing=[],
        processed=[],
        fingerprint=fingerprint(raw_code, cfg, contract),
        previous_fingerprint=previous,
        execution_time=run_vars.execution_time,
        time_type=cfg.time_data_type,
        first_interval=first_interval(cfg),
        has_state=bool(state.rows),
        rebuild=rebuild,
    )
