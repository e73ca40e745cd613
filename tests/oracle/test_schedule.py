"""The schedule (tests/oracle/schedule.py): interval units, the cron and unit validated
and derived from config, and the unit's calendar arithmetic (floor, add, ceil, complete
intervals, what is due)."""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.oracle.schedule import Interval, IntervalUnit, Schedule

D = datetime
DAILY = Schedule.build("@daily", None)
HOURLY = Schedule.build("@hourly", None)
ALL_UNITS = "five_minute, quarter_hour, half_hour, hour, day, week, month, quarter, year"


def days(first: datetime, count: int) -> list[Interval]:
    return [(first + timedelta(days=i), first + timedelta(days=i + 1)) for i in range(count)]


def jan(day: int, hour: int = 0, minute: int = 0) -> datetime:
    return D(2025, 1, day, hour, minute)


# ------------------------------------------------------------------ IntervalUnit


def test_unit_ordering_by_nominal_length() -> None:
    ordered = sorted(IntervalUnit, key=lambda u: u.seconds)
    assert [u.value for u in ordered] == ALL_UNITS.split(", ")
    assert IntervalUnit.DAY.is_coarser_than(IntervalUnit.HOUR)
    assert not IntervalUnit.HOUR.is_coarser_than(IntervalUnit.HOUR)
    assert IntervalUnit.DAY.is_date_grain and not IntervalUnit.HOUR.is_date_grain
    assert IntervalUnit.HOUR == "hour"


@pytest.mark.parametrize(
    ("gap", "unit"),
    [
        (300, IntervalUnit.FIVE_MINUTE),
        (600, IntervalUnit.FIVE_MINUTE),
        (900, IntervalUnit.QUARTER_HOUR),
        (1800, IntervalUnit.HALF_HOUR),
        (3600, IntervalUnit.HOUR),
        (7200, IntervalUnit.HOUR),
        (86400, IntervalUnit.DAY),
        (7 * 86400, IntervalUnit.WEEK),
        (28 * 86400, IntervalUnit.MONTH),
        (31 * 86400, IntervalUnit.MONTH),
        (90 * 86400, IntervalUnit.QUARTER),
        (365 * 86400, IntervalUnit.YEAR),
        (299, None),
    ],
)
def test_unit_from_gap(gap: int, unit: IntervalUnit | None) -> None:
    assert IntervalUnit.from_gap(gap) is unit


def test_unit_parse_is_case_insensitive() -> None:
    assert IntervalUnit.parse(" Day ") is IntervalUnit.DAY
    assert IntervalUnit.parse(IntervalUnit.WEEK) is IntervalUnit.WEEK


# ---------------------------------------------------------------- Schedule.build


@pytest.mark.parametrize(
    ("cron", "unit", "normalized", "week_start"),
    [
        ("@hourly", IntervalUnit.HOUR, "0 * * * *", 0),
        ("@daily", IntervalUnit.DAY, "0 0 * * *", 0),
        ("@DAILY", IntervalUnit.DAY, "0 0 * * *", 0),
        ("@midnight", IntervalUnit.DAY, "0 0 * * *", 0),
        ("@weekly", IntervalUnit.WEEK, "0 0 * * 0", 6),
        ("@monthly", IntervalUnit.MONTH, "0 0 1 * *", 0),
        ("@yearly", IntervalUnit.YEAR, "0 0 1 1 *", 0),
        ("@annually", IntervalUnit.YEAR, "0 0 1 1 *", 0),
        ("*/5 * * * *", IntervalUnit.FIVE_MINUTE, "*/5 * * * *", 0),
        ("*/10 * * * *", IntervalUnit.FIVE_MINUTE, "*/10 * * * *", 0),
        ("*/15 * * * *", IntervalUnit.QUARTER_HOUR, "*/15 * * * *", 0),
        ("*/30 * * * *", IntervalUnit.HALF_HOUR, "*/30 * * * *", 0),
        ("0 */2 * * *", IntervalUnit.HOUR, "0 */2 * * *", 0),
        ("0  5 * *   *", IntervalUnit.DAY, "0 5 * * *", 0),
        ("0 0 * * 1-5", IntervalUnit.DAY, "0 0 * * 1-5", 0),
        ("0 0 * * 1", IntervalUnit.WEEK, "0 0 * * 1", 0),
        ("0 6 * * 3", IntervalUnit.WEEK, "0 6 * * 3", 2),
        ("0 0 15 * *", IntervalUnit.MONTH, "0 0 15 * *", 0),
        ("0 0 1 */3 *", IntervalUnit.QUARTER, "0 0 1 */3 *", 0),
    ],
)
def test_build_derives_unit_from_cron(
    cron: str, unit: IntervalUnit, normalized: str, week_start: int
) -> None:
    assert Schedule.build(cron, None) == Schedule(unit, normalized, week_start)


def test_build_defaults_to_daily() -> None:
    assert Schedule.build(None, None) == Schedule(IntervalUnit.DAY, "0 0 * * *", 0)


@pytest.mark.parametrize(
    ("unit", "cron"),
    [
        ("five_minute", "*/5 * * * *"),
        ("quarter_hour", "*/15 * * * *"),
        ("half_hour", "*/30 * * * *"),
        ("hour", "0 * * * *"),
        ("day", "0 0 * * *"),
        ("week", "0 0 * * 1"),
        ("month", "0 0 1 * *"),
        ("quarter", "0 0 1 */3 *"),
        ("year", "0 0 1 1 *"),
    ],
)
def test_build_cron_from_unit(unit: str, cron: str) -> None:
    schedule = Schedule.build(None, unit)
    assert schedule == Schedule(IntervalUnit(unit), cron, 0)
    # the default cron derives back to the same unit
    assert Schedule.build(cron, None).unit is schedule.unit


@pytest.mark.parametrize(
    ("week_start", "index", "cron"),
    [
        ("sunday", 6, "0 0 * * 0"),
        ("Sun", 6, "0 0 * * 0"),
        ("MONDAY", 0, "0 0 * * 1"),
        ("tue", 1, "0 0 * * 2"),
        (4, 4, "0 0 * * 5"),
        ("5", 5, "0 0 * * 6"),
    ],
)
def test_build_week_start(week_start: str | int, index: int, cron: str) -> None:
    assert Schedule.build(None, "week", week_start) == Schedule(IntervalUnit.WEEK, cron, index)


def test_explicit_week_start_overrides_cron_day() -> None:
    assert Schedule.build("@weekly", None, "monday").week_start == 0
    assert Schedule.build("0 0 * * 1", "week").week_start == 0
    assert Schedule.build("@weekly", "week").week_start == 6


def test_finer_explicit_unit_is_fine() -> None:
    assert Schedule.build("@daily", "hour") == Schedule(IntervalUnit.HOUR, "0 0 * * *", 0)
    assert Schedule.build("@weekly", "day").unit is IntervalUnit.DAY


def test_coarser_unit_needs_allow_partials() -> None:
    with pytest.raises(VulcanConfigError) as info:
        Schedule.build("@hourly", "day")
    message = str(info.value)
    assert message.startswith("interval_unit: 'day'")
    assert "five_minute, quarter_hour, half_hour, hour" in message
    assert "allow_partials" in message
    schedule = Schedule.build("@hourly", "day", allow_partials=True)
    assert schedule == Schedule(IntervalUnit.DAY, "0 * * * *", 0)


def test_unknown_interval_unit() -> None:
    with pytest.raises(VulcanConfigError) as info:
        Schedule.build(None, "fortnight")
    assert str(info.value) == f"interval_unit: 'fortnight' is not one of: {ALL_UNITS}"
    with pytest.raises(VulcanConfigError, match=r"^interval_unit: 'fortnight'"):
        Schedule.build("@daily", "fortnight")


@pytest.mark.parametrize(
    "cron",
    [
        "61 * * * *",
        "0 0 * *",
        "0 0 * * * *",
        "bad",
        "",
        "@fortnightly",
        "0 0 30 2 *",
        "* * * * *",
        "*/2 * * * *",
        5,
    ],
)
def test_bad_cron(cron: object) -> None:
    with pytest.raises(VulcanConfigError) as info:
        Schedule.build(cron, None)  # type: ignore[arg-type]
    message = str(info.value)
    assert message.startswith(f"cron: {cron!r}")
    assert "5-field" in message and "@daily" in message


@pytest.mark.parametrize("week_start", ["funday", 7, -1, True, "8", ""])
def test_bad_week_start(week_start: object) -> None:
    with pytest.raises(VulcanConfigError) as info:
        Schedule.build(None, "week", week_start)  # type: ignore[arg-type]
    message = str(info.value)
    assert message.startswith(f"week_start: {week_start!r}")
    assert "monday, tuesday, wednesday, thursday, friday, saturday, sunday" in message


# ------------------------------------------------------------ floor / add / ceil


def test_day_floor_add_month_end() -> None:
    assert DAILY.floor(jan(31, 13, 45)) == jan(31)
    assert DAILY.add(jan(31)) == D(2025, 2, 1)
    assert DAILY.add(jan(31, 13), 3) == D(2025, 2, 3)
    assert DAILY.add(D(2025, 2, 1), -1) == jan(31)


def test_leap_day() -> None:
    assert DAILY.intervals(D(2024, 2, 28), D(2024, 3, 2)) == [
        (D(2024, 2, 28), D(2024, 2, 29)),
        (D(2024, 2, 29), D(2024, 3, 1)),
        (D(2024, 3, 1), D(2024, 3, 2)),
    ]
    monthly = Schedule.build("@monthly", None)
    assert monthly.intervals(D(2024, 2, 29, 12), D(2024, 3, 1)) == [(D(2024, 2, 1), D(2024, 3, 1))]
    yearly = Schedule.build("@yearly", None)
    assert yearly.add(D(2024, 2, 29)) == D(2025, 1, 1)


def test_month_unit() -> None:
    monthly = Schedule.build("@monthly", None)
    assert monthly.floor(jan(31, 10)) == jan(1)
    assert monthly.add(jan(31, 10)) == D(2025, 2, 1)
    assert monthly.add(jan(31), 2) == D(2025, 3, 1)
    assert monthly.add(jan(1), -1) == D(2024, 12, 1)
    assert monthly.add(D(2024, 12, 15), 1) == D(2025, 1, 1)
    assert monthly.intervals(D(2024, 1, 31), D(2024, 4, 15)) == [
        (D(2024, 1, 1), D(2024, 2, 1)),
        (D(2024, 2, 1), D(2024, 3, 1)),
        (D(2024, 3, 1), D(2024, 4, 1)),
    ]


def test_quarter_unit() -> None:
    quarterly = Schedule.build(None, "quarter")
    assert quarterly.floor(D(2025, 5, 17, 3)) == D(2025, 4, 1)
    assert quarterly.floor(D(2025, 12, 31, 23, 59)) == D(2025, 10, 1)
    assert quarterly.floor(D(2025, 3, 31)) == D(2025, 1, 1)
    assert quarterly.add(D(2025, 11, 1)) == D(2026, 1, 1)
    assert quarterly.add(D(2025, 1, 1), -1) == D(2024, 10, 1)


def test_year_unit() -> None:
    yearly = Schedule.build("@yearly", None)
    assert yearly.floor(D(2025, 7, 4, 12)) == D(2025, 1, 1)
    assert yearly.intervals(D(2023, 6, 1), D(2025, 1, 1)) == [
        (D(2023, 1, 1), D(2024, 1, 1)),
        (D(2024, 1, 1), D(2025, 1, 1)),
    ]


def test_week_unit_monday_and_sunday() -> None:
    monday = Schedule.build("0 0 * * 1", None)
    sunday = Schedule.build("@weekly", None)
    # 2025-01-01 is a Wednesday
    assert monday.floor(jan(1, 12)) == D(2024, 12, 30)
    assert sunday.floor(jan(1, 12)) == D(2024, 12, 29)
    assert monday.floor(jan(6, 10)) == jan(6)
    assert sunday.floor(jan(5)) == jan(5)
    assert sunday.floor(jan(4, 23, 59)) == D(2024, 12, 29)
    assert monday.add(jan(1)) == jan(6)
    assert sunday.add(jan(1), 2) == jan(12)


def test_sub_hour_units() -> None:
    five = Schedule.build("*/5 * * * *", None)
    quarter = Schedule.build(None, "quarter_hour")
    half = Schedule.build(None, "half_hour")
    assert five.floor(jan(1, 5, 7) + timedelta(seconds=30)) == jan(1, 5, 5)
    assert quarter.floor(jan(1, 5, 29)) == jan(1, 5, 15)
    assert half.floor(jan(1, 5, 59)) == jan(1, 5, 30)
    assert HOURLY.floor(jan(1, 5, 59) + timedelta(seconds=59, microseconds=999)) == jan(1, 5)
    assert five.intervals(jan(1, 5, 2), jan(1, 5, 20)) == [
        (jan(1, 5, 0), jan(1, 5, 5)),
        (jan(1, 5, 5), jan(1, 5, 10)),
        (jan(1, 5, 10), jan(1, 5, 15)),
        (jan(1, 5, 15), jan(1, 5, 20)),
    ]
    assert half.add(jan(1, 23, 45)) == jan(2)


def test_ceil() -> None:
    assert DAILY.ceil(jan(1)) == jan(1)
    assert DAILY.ceil(jan(1) + timedelta(microseconds=1)) == jan(2)
    assert HOURLY.ceil(jan(1, 7, 20)) == jan(1, 8)


def test_intervals_only_complete() -> None:
    assert DAILY.intervals(jan(1, 5), jan(3, 12)) == days(jan(1), 2)
    assert DAILY.intervals(jan(3), jan(3)) == []
    assert DAILY.intervals(jan(3), jan(1)) == []


# ------------------------------------------------------------------------ due_end


def test_due_end_other_units() -> None:
    assert HOURLY.due_end(jan(3, 14, 59) + timedelta(seconds=59)) == jan(3, 14)
    assert Schedule.build("@weekly", None).due_end(jan(8)) == jan(5)
    assert Schedule.build("@monthly", None).due_end(D(2025, 3, 15)) == D(2025, 3, 1)
    assert Schedule.build("@daily", "hour").due_end(jan(3, 14)) == jan(3)
    assert Schedule.build("30 * * * *", None).due_end(jan(3, 14, 29)) == jan(3, 13)
    assert DAILY.due_end(jan(3, 14), allow_partials=True) == jan(3, 14)


# ------------------------------------------------------------------- properties

units = st.sampled_from(list(IntervalUnit))


@settings(max_examples=200, deadline=None)
@given(
    unit=units,
    week_start=st.integers(min_value=0, max_value=6),
    start=st.datetimes(min_value=D(2020, 1, 1), max_value=D(2026, 1, 1)),
    span=st.integers(min_value=0, max_value=400),
)
def test_intervals_are_aligned_and_contiguous(
    unit: IntervalUnit, week_start: int, start: datetime, span: int
) -> None:
    schedule = Schedule.build(None, unit.value, week_start)
    end = start + timedelta(seconds=span * unit.seconds // 10)
    ivs = schedule.intervals(start, end)
    if ivs:
        assert ivs[0][0] == schedule.floor(start)
        assert ivs[-1][1] <= end
        assert schedule.add(ivs[-1][1]) > end
    for a, b in ivs:
        assert schedule.floor(a) == a and schedule.add(a) == b and a < b
    for left, right in pairwise(ivs):
        assert left[1] == right[0]
