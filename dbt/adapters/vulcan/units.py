"""The interval units of a model's schedule, ordered by coarseness: what the safety analysis
needs at run time (safety.py). The schedule itself (cron, calendar arithmetic, planning) is
the package's Jinja (macros/planning/), checked against tests/oracle/schedule.py and
tests/oracle/planning.py.
"""

from __future__ import annotations

from enum import Enum

from dbt.adapters.vulcan.timeutil import VulcanConfigError

__all__ = ["IntervalUnit"]

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
