"""Time parsing and formatting helpers for the Vulcan interval engine.

All datetimes handled here are *naive* and represent UTC. Interval ends are exclusive.

Every time a user gives (config `start`/`end`, the vars `vulcan_start`/`vulcan_end`/
`vulcan_execution_time`, the ranges of the run-operations) must lie between MIN_TIME
(1900-01-01) and MAX_TIME (3000-01-01), both included: a date-only end includes its whole
day, so the last end date is 2999-12-31. The bounds leave room for the interval arithmetic
(a yearly interval, lookback, the plan's sentinels 1900-01-01 and 9999-12-31) and catch typos
such as `20255-01-01` or epoch milliseconds given as seconds. Values the adapter wrote itself
(state log rows, whose removal rows end at 9999-12-31) are read with `bounded=False`.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

__all__ = [
    "EPOCH",
    "MAX_TIME",
    "MIN_TIME",
    "VulcanConfigError",
    "format_range",
    "format_ts",
    "is_date_only",
    "now_utc",
    "parse_end",
    "parse_time",
]

EPOCH = datetime(1970, 1, 1)
MIN_TIME = datetime(1900, 1, 1)
MAX_TIME = datetime(3000, 1, 1)
_RANGE = "times must lie between 1900-01-01 and 3000-01-01"
_MILLIS_THRESHOLD = 10**11
_ACCEPTED = (
    "a date 'YYYY-MM-DD', a timestamp 'YYYY-MM-DD HH:MM[:SS[.ffffff]]' (or with 'T'; "
    "optional 'Z' or '+HH:MM' offset), a date/datetime object, "
    "or integer epoch seconds (milliseconds if > 10**11)"
)
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TS_RE = re.compile(
    r"(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})"
    r"(?:[ T](?P<h>\d{2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:\.(?P<f>\d{1,6}))?)?"
    r"(?P<tz>Z|[+-]\d{2}:?\d{2})?)?"
)


class VulcanConfigError(ValueError):
    """Invalid Vulcan model configuration; the message names the key, value and what is allowed."""


def _bad_time(key: str, value: object) -> VulcanConfigError:
    return VulcanConfigError(f"{key}: {value!r} is not a valid time; expected {_ACCEPTED}")


def _to_naive_utc(dt: datetime) -> datetime:
    if dt.tzinfo is None:
        return dt
    return dt.astimezone(timezone.utc).replace(tzinfo=None)


def _offset(text: str | None) -> timedelta:
    if not text or text == "Z":
        return timedelta(0)
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:])
    if hours > 23 or minutes > 59:
        raise ValueError(text)
    delta = timedelta(hours=hours, minutes=minutes)
    return -delta if text[0] == "-" else delta


def _parse_str(value: str, key: str) -> datetime:
    match = _TS_RE.fullmatch(value.strip())
    if match is None:
        raise _bad_time(key, value)
    g = match.groupdict()
    try:
        parsed = datetime(
            int(g["y"]),
            int(g["mo"]),
            int(g["d"]),
            int(g["h"] or 0),
            int(g["mi"] or 0),
            int(g["s"] or 0),
            int((g["f"] or "0").ljust(6, "0")),
        )
        return parsed - _offset(g["tz"])
    except (ValueError, OverflowError):
        raise _bad_time(key, value) from None


def _parse_epoch(value: int) -> datetime:
    """Epoch seconds (milliseconds above 10**11); OverflowError beyond datetime's range."""
    if abs(value) > _MILLIS_THRESHOLD:
        return EPOCH + timedelta(milliseconds=value)
    return EPOCH + timedelta(seconds=value)


def _out_of_range(key: str, value: object, note: str = "") -> VulcanConfigError:
    return VulcanConfigError(f"{key}: {value!r} is out of range; {_RANGE}{note}")


def _parse_any(value: object, key: str) -> datetime:
    if isinstance(value, datetime):
        return _to_naive_utc(value)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, bool):
        raise _bad_time(key, value)
    if isinstance(value, int):
        return _parse_epoch(value)
    if isinstance(value, str):
        return _parse_str(value, key)
    raise _bad_time(key, value)


def parse_time(value: object, key: str, *, bounded: bool = True) -> datetime:
    """Parse a time value into a naive UTC datetime, or raise VulcanConfigError (naming `key`,
    the value and what is allowed). `bounded`: refuse times outside MIN_TIME .. MAX_TIME."""
    try:
        parsed = _parse_any(value, key)
    except OverflowError:  # epochs beyond datetime's range
        raise _out_of_range(key, value) from None
    if bounded and not MIN_TIME <= parsed <= MAX_TIME:
        raise _out_of_range(key, value)
    return parsed


def now_utc() -> datetime:
    """Naive UTC now."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


def is_date_only(value: object) -> bool:
    """True for ``date`` objects (not datetimes) and 'YYYY-MM-DD' strings."""
    if isinstance(value, datetime):
        return False
    if isinstance(value, date):
        return True
    return isinstance(value, str) and _DATE_RE.fullmatch(value.strip()) is not None


def parse_end(value: object, key: str) -> datetime:
    """Parse an END bound: a date-only value includes that whole day (next midnight)."""
    parsed = parse_time(value, key)
    if is_date_only(value):
        if parsed >= MAX_TIME:
            note = " (a date-only end includes its whole day: the last end date is 2999-12-31)"
            raise _out_of_range(key, value, note)
        return parsed + timedelta(days=1)
    return parsed


def format_ts(dt: datetime) -> str:
    """'YYYY-MM-DD HH:MM:SS', with '.ffffff' appended when microseconds are non-zero."""
    text = dt.strftime("%Y-%m-%d %H:%M:%S")
    if dt.microsecond:
        text += f".{dt.microsecond:06d}"
    return text


def _is_midnight(dt: datetime) -> bool:
    return dt == datetime(dt.year, dt.month, dt.day)


def format_range(start: datetime, end_exclusive: datetime, unit_is_date_grain: bool) -> str:
    """Human-readable range.

    Date grain units with midnight bounds render as inclusive days ('2025-01-08 - 2025-01-14');
    anything else renders as timestamps with the exclusive end.
    """
    if unit_is_date_grain and _is_midnight(start) and _is_midnight(end_exclusive):
        last_day = (end_exclusive - timedelta(days=1)).date()
        if last_day < start.date():
            last_day = start.date()
        return f"{start.date().isoformat()} - {last_day.isoformat()}"
    return f"{format_ts(start)} - {format_ts(end_exclusive)}"
