"""Interval arithmetic for Vulcan time-based model kinds.

All datetimes are naive UTC. An :data:`Interval` is a half-open ``(start, end)`` pair.
A :class:`Schedule` combines a cron (when a model runs) with an interval unit (how time
is chopped into intervals); the functions below turn a schedule, the model's start/end
and the already processed intervals into the intervals to run and their batches.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from itertools import pairwise

from croniter import croniter

from dbt.adapters.vulcan.timeutil import VulcanConfigError, format_range, format_ts

__all__ = [
    "FAR_FUTURE",
    "FAR_PAST",
    "Interval",
    "IntervalPlan",
    "IntervalUnit",
    "Schedule",
    "align_range",
    "apply_lookback",
    "expected_intervals",
    "make_batches",
    "merge_ranges",
    "missing_intervals",
    "normalize_cron",
    "parse_week_start",
    "plan_intervals",
    "restatement_range",
]

Interval = tuple[datetime, datetime]

FAR_FUTURE = datetime(9999, 12, 31)
FAR_PAST = datetime(1900, 1, 1)

_MINUTE = 60
_DAY = 86400


class IntervalUnit(str, Enum):
    """Granularity of a model's intervals."""

    FIVE_MINUTE = "five_minute"
    QUARTER_HOUR = "quarter_hour"
    HALF_HOUR = "half_hour"
    HOUR = "hour"
    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    QUARTER = "quarter"
    YEAR = "year"

    @property
    def seconds(self) -> int:
        """Nominal (shortest) length in seconds; used to order units by coarseness."""
        return _NOMINAL_SECONDS[self]

    @property
    def is_date_grain(self) -> bool:
        """True for day and coarser units."""
        return self.seconds >= _DAY

    def is_coarser_than(self, other: IntervalUnit) -> bool:
        """True if this unit is strictly coarser than ``other``."""
        return self.seconds > other.seconds

    @classmethod
    def parse(cls, value: object, key: str = "interval_unit") -> IntervalUnit:
        """Parse a unit name (case-insensitive) or raise VulcanConfigError naming ``key``."""
        if isinstance(value, IntervalUnit):
            return value
        if isinstance(value, str):
            name = value.strip().lower()
            for unit in cls:
                if unit.value == name:
                    return unit
        allowed = ", ".join(unit.value for unit in cls)
        raise VulcanConfigError(f"{key}: {value!r} is not one of: {allowed}")

    @classmethod
    def from_gap(cls, seconds: float) -> IntervalUnit | None:
        """Largest unit whose nominal length is <= ``seconds`` (None if below five minutes)."""
        fitting = [unit for unit in cls if unit.seconds <= seconds]
        return max(fitting, key=lambda unit: unit.seconds) if fitting else None


_NOMINAL_SECONDS: dict[IntervalUnit, int] = {
    IntervalUnit.FIVE_MINUTE: 5 * _MINUTE,
    IntervalUnit.QUARTER_HOUR: 15 * _MINUTE,
    IntervalUnit.HALF_HOUR: 30 * _MINUTE,
    IntervalUnit.HOUR: 60 * _MINUTE,
    IntervalUnit.DAY: _DAY,
    IntervalUnit.WEEK: 7 * _DAY,
    IntervalUnit.MONTH: 28 * _DAY,
    IntervalUnit.QUARTER: 89 * _DAY,
    IntervalUnit.YEAR: 365 * _DAY,
}

_FIXED_DELTAS: dict[IntervalUnit, timedelta] = {
    IntervalUnit.FIVE_MINUTE: timedelta(minutes=5),
    IntervalUnit.QUARTER_HOUR: timedelta(minutes=15),
    IntervalUnit.HALF_HOUR: timedelta(minutes=30),
    IntervalUnit.HOUR: timedelta(hours=1),
    IntervalUnit.DAY: timedelta(days=1),
    IntervalUnit.WEEK: timedelta(days=7),
}

_MONTH_STEPS: dict[IntervalUnit, int] = {
    IntervalUnit.MONTH: 1,
    IntervalUnit.QUARTER: 3,
    IntervalUnit.YEAR: 12,
}

_CRON_ALIASES: dict[str, str] = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
}

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

_CRON_REFERENCE = datetime(2020, 1, 1)
_CRON_SAMPLES = 60


# --------------------------------------------------------------------------- cron


def _bad_cron(value: object, reason: str) -> VulcanConfigError:
    aliases = ", ".join(_CRON_ALIASES)
    return VulcanConfigError(
        f"cron: {value!r} {reason}; expected a 5-field cron expression "
        f"(minute hour day-of-month month day-of-week) or one of: {aliases}"
    )


def normalize_cron(cron: object) -> str:
    """Validate a cron expression or alias and return the normalized 5-field form."""
    if not isinstance(cron, str):
        raise _bad_cron(cron, "is not a string")
    text = " ".join(cron.split())
    text = _CRON_ALIASES.get(text.lower(), text)
    if len(text.split(" ")) != 5 or not croniter.is_valid(text):
        raise _bad_cron(cron, "is not a valid cron expression")
    return text


def _cron_ticks(cron: str, count: int = _CRON_SAMPLES) -> list[datetime]:
    try:
        it = croniter(cron, _CRON_REFERENCE)
        return [it.get_next(datetime) for _ in range(count)]
    except (ValueError, KeyError, OverflowError):
        raise _bad_cron(cron, "never fires") from None


def _unit_from_ticks(cron: str, ticks: list[datetime]) -> IntervalUnit:
    smallest = min((b - a).total_seconds() for a, b in pairwise(ticks))
    unit = IntervalUnit.from_gap(smallest)
    if unit is None:
        raise _bad_cron(cron, "fires more often than every 5 minutes (the finest interval unit)")
    return unit


def _common_weekday(ticks: list[datetime]) -> int | None:
    days = {tick.weekday() for tick in ticks}
    return days.pop() if len(days) == 1 else None


def parse_week_start(value: object) -> int:
    """Parse a week start (monday..sunday, mon..sun, or 0..6 with 0=Monday)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 6:
        return value
    if isinstance(value, str):
        name = value.strip().lower()
        if name.isdigit() and 0 <= int(name) <= 6:
            return int(name)
        for index, day in enumerate(_WEEKDAYS):
            if name in (day, day[:3]):
                return index
    allowed = ", ".join(_WEEKDAYS)
    raise VulcanConfigError(
        f"week_start: {value!r} is not one of: {allowed} (or 0..6 with 0=monday)"
    )


def _default_cron(unit: IntervalUnit, week_start: int) -> str:
    if unit is IntervalUnit.WEEK:
        return f"0 0 * * {(week_start + 1) % 7}"
    return _UNIT_CRONS[unit]


_UNIT_CRONS: dict[IntervalUnit, str] = {
    IntervalUnit.FIVE_MINUTE: "*/5 * * * *",
    IntervalUnit.QUARTER_HOUR: "*/15 * * * *",
    IntervalUnit.HALF_HOUR: "*/30 * * * *",
    IntervalUnit.HOUR: "0 * * * *",
    IntervalUnit.DAY: "0 0 * * *",
    IntervalUnit.MONTH: "0 0 1 * *",
    IntervalUnit.QUARTER: "0 0 1 */3 *",
    IntervalUnit.YEAR: "0 0 1 1 *",
}


def _add_months(dt: datetime, months: int) -> datetime:
    index = dt.year * 12 + (dt.month - 1) + months
    return dt.replace(year=index // 12, month=index % 12 + 1, day=1)


# ----------------------------------------------------------------------- schedule


@dataclass(frozen=True)
class Schedule:
    """A model's cron plus the interval unit its time range is split into."""

    unit: IntervalUnit
    cron: str
    week_start: int = 0

    @classmethod
    def build(
        cls,
        cron: str | None,
        interval_unit: str | None,
        week_start: str | int | None = None,
        allow_partials: bool = False,
    ) -> Schedule:
        """Validate config values and derive the missing ones.

        No cron: the unit's default cron ('@daily' if no unit either). No unit: the
        largest unit fitting the cron's smallest tick gap. An explicit unit coarser than
        the cron needs ``allow_partials``. Weekly crons default ``week_start`` to their day.
        """
        if cron is None:
            return cls._from_unit(interval_unit or IntervalUnit.DAY.value, week_start)
        normalized = normalize_cron(cron)
        ticks = _cron_ticks(normalized)
        derived = _unit_from_ticks(normalized, ticks)
        unit = derived
        if interval_unit is not None:
            unit = IntervalUnit.parse(interval_unit)
            _check_unit_vs_cron(unit, derived, normalized, allow_partials)
        if week_start is not None:
            start_day = parse_week_start(week_start)
        elif unit is IntervalUnit.WEEK:
            start_day = _common_weekday(ticks) or 0
        else:
            start_day = 0
        return cls(unit=unit, cron=normalized, week_start=start_day)

    @classmethod
    def _from_unit(cls, interval_unit: str, week_start: str | int | None) -> Schedule:
        unit = IntervalUnit.parse(interval_unit)
        start_day = 0 if week_start is None else parse_week_start(week_start)
        return cls(unit=unit, cron=_default_cron(unit, start_day), week_start=start_day)

    def floor(self, dt: datetime) -> datetime:
        """Start of the unit interval containing ``dt``."""
        unit = self.unit
        if unit in (IntervalUnit.FIVE_MINUTE, IntervalUnit.QUARTER_HOUR, IntervalUnit.HALF_HOUR):
            step = unit.seconds // _MINUTE
            return dt.replace(minute=dt.minute // step * step, second=0, microsecond=0)
        if unit is IntervalUnit.HOUR:
            return dt.replace(minute=0, second=0, microsecond=0)
        midnight = datetime(dt.year, dt.month, dt.day)
        if unit is IntervalUnit.DAY:
            return midnight
        if unit is IntervalUnit.WEEK:
            return midnight - timedelta(days=(dt.weekday() - self.week_start) % 7)
        if unit is IntervalUnit.MONTH:
            return midnight.replace(day=1)
        if unit is IntervalUnit.QUARTER:
            return datetime(dt.year, (dt.month - 1) // 3 * 3 + 1, 1)
        return datetime(dt.year, 1, 1)

    def add(self, dt: datetime, n: int = 1) -> datetime:
        """The unit boundary ``n`` units after ``floor(dt)`` (calendar arithmetic for months)."""
        base = self.floor(dt)
        if self.unit in _FIXED_DELTAS:
            return base + _FIXED_DELTAS[self.unit] * n
        return _add_months(base, _MONTH_STEPS[self.unit] * n)

    def ceil(self, dt: datetime) -> datetime:
        """Smallest unit boundary >= ``dt``."""
        base = self.floor(dt)
        return base if base == dt else self.add(base)

    def intervals(self, start: datetime, end: datetime) -> list[Interval]:
        """Complete unit intervals from ``floor(start)`` whose end is <= ``end``."""
        current = self.floor(start)
        delta = _FIXED_DELTAS.get(self.unit)
        if delta is not None:
            count = max(0, (end - current) // delta)
            return [(current + delta * i, current + delta * (i + 1)) for i in range(count)]
        out: list[Interval] = []
        nxt = self.add(current)
        while nxt <= end:
            out.append((current, nxt))
            current, nxt = nxt, self.add(nxt)
        return out

    def last_tick(self, execution_time: datetime) -> datetime:
        """Latest cron fire time <= ``execution_time`` (a tick exactly at it counts as fired)."""
        it = croniter(self.cron, execution_time + timedelta(microseconds=1))
        tick: datetime = it.get_prev(datetime)
        return tick

    def due_end(self, execution_time: datetime, allow_partials: bool = False) -> datetime:
        """Exclusive end up to which intervals are due at ``execution_time``."""
        if allow_partials:
            return execution_time
        return self.floor(self.last_tick(execution_time))


def _check_unit_vs_cron(
    unit: IntervalUnit, derived: IntervalUnit, cron: str, allow_partials: bool
) -> None:
    if allow_partials or not unit.is_coarser_than(derived):
        return
    finer = ", ".join(u.value for u in IntervalUnit if not u.is_coarser_than(derived))
    raise VulcanConfigError(
        f"interval_unit: {unit.value!r} is coarser than the cron {cron!r} "
        f"(which runs every {derived.value}); allowed: {finer}, or set allow_partials true"
    )


# ------------------------------------------------------------------ range helpers


def merge_ranges(intervals: Iterable[Interval]) -> list[Interval]:
    """Sort and merge overlapping or adjacent intervals; empty intervals are dropped."""
    out: list[Interval] = []
    for start, end in sorted(iv for iv in intervals if iv[0] < iv[1]):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def _check_int(value: object, key: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise VulcanConfigError(
            f"{key}: {value!r} is not allowed; expected an integer >= {minimum}"
        )
    return value


# ------------------------------------------------------------------- core planning


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
class IntervalPlan:
    """Outcome of :func:`plan_intervals`."""

    expected: list[Interval]
    missing: list[Interval]
    to_run: list[Interval]
    batches: list[Interval]


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
) -> IntervalPlan:
    """Compute expected, missing and to-run intervals and their batches for one model.

    With ``explicit_range`` the run is exactly the expected intervals inside the aligned
    range (recomputed even if processed); intervals outside the model's start/end or not
    yet due are never run.
    """
    expected = expected_intervals(schedule, start, end, execution_time, allow_partials)
    missing = missing_intervals(expected, processed)
    if explicit_range is not None:
        low, high = align_range(schedule, *explicit_range)
        to_run = [iv for iv in expected if low <= iv[0] and iv[1] <= high]
    else:
        to_run = apply_lookback(expected, missing, lookback)
    return IntervalPlan(
        expected=expected,
        missing=missing,
        to_run=to_run,
        batches=make_batches(to_run, batch_size),
    )
