"""The oracle of a model's schedule (macros/cron/cron.sql and the unit arithmetic of
macros/planning/): its cron (when it runs) and interval unit (how time is chopped into
intervals), validated from config (tests/oracle/config.py), with the calendar arithmetic of
its unit; croniter is the reference for the cron.

All datetimes are naive UTC. An :data:`Interval` is a half-open ``(start, end)`` pair.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import pairwise

from croniter import croniter

from dbt.adapters.vulcan.timeutil import VulcanConfigError
from dbt.adapters.vulcan.units import IntervalUnit

__all__ = [
    "Interval",
    "IntervalUnit",
    "Schedule",
    "normalize_cron",
    "parse_week_start",
]

Interval = tuple[datetime, datetime]

_MINUTE = 60
_DAY = 86400


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
