from __future__ import annotations

from datetime import datetime, timedelta
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbt.adapters.vulcan.intervals import (
    FAR_FUTURE,
    FAR_PAST,
    Interval,
    IntervalPlan,
    IntervalUnit,
    Schedule,
    align_range,
    apply_lookback,
    expected_intervals,
    make_batches,
    merge_ranges,
    missing_intervals,
    plan_intervals,
    restatement_range,
)
from dbt.adapters.vulcan.timeutil import VulcanConfigError, parse_end

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


def test_cron_offset_due_rule() -> None:
    schedule = Schedule.build("0 5 * * *", None)
    assert schedule.due_end(jan(3, 4, 59)) == jan(2)
    assert schedule.due_end(jan(3, 5, 0)) == jan(3)
    before = expected_intervals(schedule, jan(1), None, jan(3, 4, 59))
    after = expected_intervals(schedule, jan(1), None, jan(3, 5, 0))
    assert before == days(jan(1), 1)
    assert after == days(jan(1), 2)


def test_daily_due_at_afternoon() -> None:
    assert DAILY.due_end(jan(3, 14)) == jan(3)
    assert DAILY.due_end(jan(3)) == jan(3)
    assert DAILY.due_end(jan(3) - timedelta(microseconds=1)) == jan(2)
    assert expected_intervals(DAILY, jan(1), None, jan(3, 14)) == days(jan(1), 2)


def test_due_end_other_units() -> None:
    assert HOURLY.due_end(jan(3, 14, 59) + timedelta(seconds=59)) == jan(3, 14)
    assert Schedule.build("@weekly", None).due_end(jan(8)) == jan(5)
    assert Schedule.build("@monthly", None).due_end(D(2025, 3, 15)) == D(2025, 3, 1)
    assert Schedule.build("@daily", "hour").due_end(jan(3, 14)) == jan(3)
    assert Schedule.build("30 * * * *", None).due_end(jan(3, 14, 29)) == jan(3, 13)
    assert DAILY.due_end(jan(3, 14), allow_partials=True) == jan(3, 14)


# ------------------------------------------------------------ expected_intervals


def test_expected_hourly_and_five_minute() -> None:
    assert expected_intervals(HOURLY, jan(1), None, jan(1, 5, 30)) == [
        (jan(1, h), jan(1, h + 1)) for h in range(5)
    ]
    five = Schedule.build("*/5 * * * *", None)
    assert expected_intervals(five, jan(1), None, jan(1, 0, 17)) == [
        (jan(1, 0, 0), jan(1, 0, 5)),
        (jan(1, 0, 5), jan(1, 0, 10)),
        (jan(1, 0, 10), jan(1, 0, 15)),
    ]


def test_expected_weeks() -> None:
    monday = Schedule.build("0 0 * * 1", None)
    assert expected_intervals(monday, jan(1), None, jan(20, 10)) == [
        (D(2024, 12, 30), jan(6)),
        (jan(6), jan(13)),
        (jan(13), jan(20)),
    ]
    sunday = Schedule.build("@weekly", None)
    assert expected_intervals(sunday, jan(1), None, jan(20, 10)) == [
        (D(2024, 12, 29), jan(5)),
        (jan(5), jan(12)),
        (jan(12), jan(19)),
    ]


def test_expected_months_quarters_years() -> None:
    monthly = Schedule.build("@monthly", None)
    assert expected_intervals(monthly, D(2024, 1, 31), None, D(2024, 4, 15)) == [
        (D(2024, 1, 1), D(2024, 2, 1)),
        (D(2024, 2, 1), D(2024, 3, 1)),
        (D(2024, 3, 1), D(2024, 4, 1)),
    ]
    quarterly = Schedule.build("0 0 1 */3 *", None)
    assert expected_intervals(quarterly, D(2024, 2, 10), None, D(2024, 12, 31)) == [
        (D(2024, 1, 1), D(2024, 4, 1)),
        (D(2024, 4, 1), D(2024, 7, 1)),
        (D(2024, 7, 1), D(2024, 10, 1)),
    ]
    yearly = Schedule.build("@yearly", None)
    assert expected_intervals(yearly, D(2022, 6, 1), None, D(2025, 3, 1)) == [
        (D(2022, 1, 1), D(2023, 1, 1)),
        (D(2023, 1, 1), D(2024, 1, 1)),
        (D(2024, 1, 1), D(2025, 1, 1)),
    ]


def test_expected_model_end_date_inclusive_and_past_end() -> None:
    end = parse_end("2025-01-05", "end")
    assert expected_intervals(DAILY, jan(1), end, jan(3, 14)) == days(jan(1), 2)
    assert expected_intervals(DAILY, jan(1), end, D(2025, 3, 1)) == days(jan(1), 5)
    assert expected_intervals(DAILY, jan(1), jan(5, 12), D(2025, 3, 1)) == days(jan(1), 4)


def test_expected_start_not_due_yet_or_unaligned() -> None:
    assert expected_intervals(DAILY, jan(10), None, jan(5)) == []
    assert expected_intervals(DAILY, jan(3, 5), None, jan(5, 1)) == days(jan(3), 2)


def test_expected_allow_partials() -> None:
    assert expected_intervals(DAILY, jan(1), None, jan(3, 14), allow_partials=True) == [
        *days(jan(1), 2),
        (jan(3), jan(3, 14)),
    ]
    assert expected_intervals(DAILY, jan(1), jan(3, 12), jan(3, 14), True) == [
        *days(jan(1), 2),
        (jan(3), jan(3, 12)),
    ]
    assert expected_intervals(DAILY, jan(1), jan(3), jan(3, 14), True) == days(jan(1), 2)
    assert expected_intervals(DAILY, jan(1), None, jan(3), True) == days(jan(1), 2)
    assert expected_intervals(DAILY, jan(1, 6), None, jan(1, 9), True) == [(jan(1), jan(1, 9))]


# ------------------------------------------------------------- missing_intervals


def test_missing_with_arbitrary_processed_ranges() -> None:
    expected = days(jan(1), 5)
    processed = [
        (jan(2, 12), jan(3)),
        (jan(1), jan(2, 12)),
        (jan(1, 6), jan(1, 8)),
        (jan(4), jan(4, 12)),
    ]
    assert missing_intervals(expected, processed) == days(jan(3), 3)
    assert missing_intervals(expected, []) == expected
    assert missing_intervals(expected, [(D(2024, 1, 1), D(2026, 1, 1))]) == []


def test_missing_gap_in_middle() -> None:
    expected = days(jan(1), 10)
    processed = [(jan(1), jan(4)), (jan(5), jan(10))]
    assert missing_intervals(expected, processed) == [(jan(4), jan(5)), (jan(10), jan(11))]


# ----------------------------------------------------------------- apply_lookback


def test_lookback_at_the_end() -> None:
    expected = days(jan(1), 10)
    missing = missing_intervals(expected, [(jan(1), jan(10))])
    assert missing == [(jan(10), jan(11))]
    assert apply_lookback(expected, missing, 2) == days(jan(8), 3)
    assert apply_lookback(expected, missing, 0) == missing
    assert apply_lookback(expected, missing, 50) == expected


def test_lookback_before_every_missing_interval() -> None:
    expected = days(jan(1), 10)
    missing = [(jan(3), jan(4)), (jan(10), jan(11))]
    assert apply_lookback(expected, missing, 1) == [
        (jan(2), jan(3)),
        (jan(3), jan(4)),
        (jan(9), jan(10)),
        (jan(10), jan(11)),
    ]
    # overlapping reaches are added once; the model's first interval bounds them
    assert apply_lookback(expected, list(reversed(missing)), 7) == days(jan(1), 10)


def test_catch_up_of_three_days_recomputes_five() -> None:
    """A daily job that skipped two runs catches up three days; lookback 2 re-runs the two
    days before the first missing one too (a late row for either is picked up)."""
    expected = days(jan(1), 10)
    missing = missing_intervals(expected, [(jan(1), jan(8))])
    assert missing == days(jan(8), 3)
    assert apply_lookback(expected, missing, 2) == days(jan(6), 5)
    plan = plan_intervals(DAILY, jan(1), None, jan(11), lookback=2, processed=[(jan(1), jan(8))])
    assert plan.batches == [(jan(6), jan(11))]
    batched = plan_intervals(
        DAILY, jan(1), None, jan(11), lookback=2, batch_size=2, processed=[(jan(1), jan(8))]
    )
    # batches are cut from the whole expanded set
    assert batched.batches == [(jan(6), jan(8)), (jan(8), jan(10)), (jan(10), jan(11))]


def test_lookback_across_a_gap_in_the_middle() -> None:
    expected = days(jan(1), 10)
    missing = missing_intervals(expected, [(jan(1), jan(5)), (jan(6), jan(10))])
    assert missing == [(jan(5), jan(6)), (jan(10), jan(11))]
    assert apply_lookback(expected, missing, 2) == [
        *days(jan(3), 3),
        *days(jan(8), 3),
    ]


def test_lookback_with_model_end() -> None:
    end = parse_end("2025-01-09", "end")
    expected = expected_intervals(DAILY, jan(1), end, D(2025, 2, 1))
    assert expected[-1] == (jan(9), jan(10))
    missing = missing_intervals(expected, [(jan(1), jan(9))])
    assert apply_lookback(expected, missing, 2) == days(jan(7), 3)
    done = missing_intervals(expected, [(jan(1), jan(10))])
    assert apply_lookback(expected, done, 2) == []


@pytest.mark.parametrize("lookback", [-1, True, "2", 1.5, None])
def test_bad_lookback(lookback: object) -> None:
    with pytest.raises(VulcanConfigError) as info:
        apply_lookback(days(jan(1), 3), days(jan(3), 1), lookback)  # type: ignore[arg-type]
    assert str(info.value).startswith(f"lookback: {lookback!r}")
    assert "integer >= 0" in str(info.value)


# ------------------------------------------------------------------- make_batches


def test_batch_size_splitting() -> None:
    assert make_batches(days(jan(1), 10), 4) == [
        (jan(1), jan(5)),
        (jan(5), jan(9)),
        (jan(9), jan(11)),
    ]
    assert make_batches(days(jan(1), 10), 1) == days(jan(1), 10)
    assert make_batches(days(jan(1), 10), 10) == [(jan(1), jan(11))]


def test_one_batch_without_batch_size() -> None:
    assert make_batches(days(jan(1), 10), None) == [(jan(1), jan(11))]
    assert make_batches([], None) == []
    assert make_batches([], 3) == []


def test_gaps_start_new_batches() -> None:
    intervals = [*days(jan(6), 2), *days(jan(1), 3), (jan(2), jan(3))]
    assert make_batches(intervals, None) == [(jan(1), jan(4)), (jan(6), jan(8))]
    assert make_batches(intervals, 2) == [(jan(1), jan(3)), (jan(3), jan(4)), (jan(6), jan(8))]


def test_partial_tail_batches_with_run() -> None:
    intervals = [*days(jan(1), 2), (jan(3), jan(3, 14))]
    assert make_batches(intervals, None) == [(jan(1), jan(3, 14))]


def test_overlapping_batch_input_is_a_bug() -> None:
    with pytest.raises(ValueError, match="overlapping"):
        make_batches([(jan(1), jan(3)), (jan(2), jan(4))], None)


@pytest.mark.parametrize("batch_size", [0, -3, True, 1.5, "4"])
def test_bad_batch_size(batch_size: object) -> None:
    with pytest.raises(VulcanConfigError) as info:
        make_batches(days(jan(1), 3), batch_size)  # type: ignore[arg-type]
    assert str(info.value).startswith(f"batch_size: {batch_size!r}")
    assert "integer >= 1" in str(info.value)


# --------------------------------------------------------------- ranges / merging


def test_merge_ranges() -> None:
    assert merge_ranges([(jan(5), jan(6)), (jan(1), jan(3)), (jan(3), jan(4))]) == [
        (jan(1), jan(4)),
        (jan(5), jan(6)),
    ]
    assert merge_ranges([(jan(1), jan(9)), (jan(2), jan(3))]) == [(jan(1), jan(9))]
    assert merge_ranges([(jan(2), jan(2)), (jan(3), jan(1))]) == []


def test_align_range() -> None:
    assert align_range(HOURLY, jan(1, 5, 10), jan(1, 7, 20)) == (jan(1, 5), jan(1, 8))
    assert align_range(DAILY, jan(1, 5), jan(3)) == (jan(1), jan(3))
    weekly = Schedule.build("0 0 * * 1", None)
    assert align_range(weekly, jan(1), jan(2)) == (D(2024, 12, 30), jan(6))


def test_align_range_rejects_empty() -> None:
    with pytest.raises(VulcanConfigError) as info:
        align_range(DAILY, jan(3), jan(3))
    assert str(info.value).startswith("vulcan_end: '2025-01-03 00:00:00'")
    assert "vulcan_start '2025-01-03 00:00:00'" in str(info.value)


# -------------------------------------------------------------------- restatement


def test_restatement_partial_range() -> None:
    rng, warning = restatement_range(DAILY, jan(5, 6), jan(7), jan(1), False, False, "m")
    assert rng == (jan(5), jan(7))
    assert warning is None


def test_restatement_widened_to_full_history() -> None:
    rng, warning = restatement_range(
        DAILY, jan(5), jan(7), D(2024, 12, 15, 10), True, False, "INCREMENTAL_BY_UNIQUE_KEY"
    )
    assert rng == (D(2024, 12, 15), FAR_FUTURE)
    assert D(9999, 12, 31) == FAR_FUTURE
    assert warning == (
        "INCREMENTAL_BY_UNIQUE_KEY only supports full-history restatement: the requested "
        "range 2025-01-05 - 2025-01-06 was widened to the whole history from 2024-12-15 00:00:00"
    )
    rng, warning = restatement_range(DAILY, jan(5), jan(7), None, True, False, "x")
    assert rng == (FAR_PAST, FAR_FUTURE)
    assert warning is not None


def test_restatement_already_full_history_no_warning() -> None:
    rng, warning = restatement_range(DAILY, jan(1), FAR_FUTURE, jan(1), True, False, "x")
    assert rng == (jan(1), FAR_FUTURE)
    assert warning is None


def test_restatement_refused_when_disabled() -> None:
    with pytest.raises(VulcanConfigError) as info:
        restatement_range(DAILY, jan(5), jan(7), jan(1), True, True, "scd model")
    message = str(info.value)
    assert message.startswith("disable_restatement: true")
    assert "scd model" in message and "disable_restatement false" in message


# ------------------------------------------------------------------ plan_intervals


def test_plan_typical_run() -> None:
    plan = plan_intervals(
        DAILY,
        jan(1),
        None,
        jan(11, 3),
        lookback=2,
        batch_size=4,
        processed=[(jan(1), jan(10))],
    )
    assert isinstance(plan, IntervalPlan)
    assert plan.expected == days(jan(1), 10)
    assert plan.missing == [(jan(10), jan(11))]
    assert plan.to_run == days(jan(8), 3)
    assert plan.batches == [(jan(8), jan(11))]


def test_plan_first_run_batches() -> None:
    plan = plan_intervals(DAILY, jan(1), None, jan(11, 3), False, 0, 4, [])
    assert plan.missing == plan.expected == plan.to_run == days(jan(1), 10)
    assert plan.batches == [(jan(1), jan(5)), (jan(5), jan(9)), (jan(9), jan(11))]


def test_plan_gap_in_middle_gives_separate_batches() -> None:
    plan = plan_intervals(
        DAILY, jan(1), None, jan(11, 3), processed=[(jan(1), jan(4)), (jan(5), jan(10))]
    )
    assert plan.to_run == [(jan(4), jan(5)), (jan(10), jan(11))]
    assert plan.batches == [(jan(4), jan(5)), (jan(10), jan(11))]


def test_plan_nothing_to_do_after_model_end() -> None:
    plan = plan_intervals(
        DAILY, jan(1), jan(5), D(2025, 6, 1), lookback=3, processed=[(jan(1), jan(5))]
    )
    assert plan.expected == days(jan(1), 4)
    assert plan.missing == plan.to_run == plan.batches == []


def test_plan_explicit_range_recomputes_processed() -> None:
    plan = plan_intervals(
        DAILY,
        jan(1),
        None,
        jan(11, 3),
        lookback=2,
        batch_size=2,
        processed=[(jan(1), jan(11))],
        explicit_range=(jan(3, 5), jan(5, 12)),
    )
    assert plan.missing == []
    assert plan.to_run == days(jan(3), 3)
    assert plan.batches == [(jan(3), jan(5)), (jan(5), jan(6))]


def test_plan_explicit_range_clipped_to_model_and_due() -> None:
    plan = plan_intervals(
        DAILY,
        jan(2),
        jan(8),
        D(2025, 3, 1),
        explicit_range=(D(2024, 12, 1), D(2025, 2, 1)),
    )
    assert plan.to_run == days(jan(2), 6)
    plan = plan_intervals(DAILY, jan(1), None, jan(5, 3), explicit_range=(jan(3), jan(20)))
    assert plan.to_run == days(jan(3), 2)
    plan = plan_intervals(DAILY, jan(10), None, jan(20), explicit_range=(jan(1), jan(5)))
    assert plan.to_run == plan.batches == []


def test_plan_explicit_range_with_partials() -> None:
    plan = plan_intervals(
        DAILY, jan(1), None, jan(5, 3), allow_partials=True, explicit_range=(jan(4), jan(5, 1))
    )
    assert plan.to_run == [(jan(4), jan(5)), (jan(5), jan(5, 3))]
    assert plan.batches == [(jan(4), jan(5, 3))]


def test_plan_hourly_allow_partials() -> None:
    plan = plan_intervals(HOURLY, jan(1), None, jan(1, 2, 30), allow_partials=True)
    assert plan.to_run == [
        (jan(1, 0), jan(1, 1)),
        (jan(1, 1), jan(1, 2)),
        (jan(1, 2), jan(1, 2, 30)),
    ]
    assert plan.batches == [(jan(1), jan(1, 2, 30))]


# ------------------------------------------------------------------- properties

day_offsets = st.sets(st.integers(min_value=0, max_value=80), max_size=40)
batch_sizes = st.one_of(st.none(), st.integers(min_value=1, max_value=10))
BASE = D(2024, 12, 20)


@settings(max_examples=300, deadline=None)
@given(offsets=day_offsets, batch_size=batch_sizes)
def test_batches_properties(offsets: set[int], batch_size: int | None) -> None:
    to_run = [(BASE + timedelta(days=o), BASE + timedelta(days=o + 1)) for o in offsets]
    batches = make_batches(to_run, batch_size)
    assert merge_ranges(batches) == merge_ranges(to_run)
    assert batches == sorted(batches)
    for (_, end), (start, _) in pairwise(batches):
        assert end <= start
    cap = batch_size or len(to_run)
    for start, end in batches:
        assert 1 <= (end - start).days <= cap
    if batch_size is None:
        assert batches == merge_ranges(to_run)


processed_ranges = st.lists(
    st.tuples(
        st.integers(min_value=-2000, max_value=30000), st.integers(min_value=0, max_value=5000)
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(ranges=processed_ranges)
def test_missing_plus_covered_is_expected(ranges: list[tuple[int, int]]) -> None:
    expected = days(jan(1), 20)
    processed = [
        (jan(1) + timedelta(minutes=s), jan(1) + timedelta(minutes=s + n)) for s, n in ranges
    ]
    missing = missing_intervals(expected, processed)
    merged = merge_ranges(processed)

    def covered(iv: Interval) -> bool:
        return any(s <= iv[0] and iv[1] <= e for s, e in merged)

    assert missing == [iv for iv in expected if not covered(iv)]
    assert sorted(set(missing) | {iv for iv in expected if covered(iv)}) == expected


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


@settings(max_examples=200, deadline=None)
@given(
    processed=processed_ranges,
    lookback=st.integers(min_value=0, max_value=5),
    batch_size=batch_sizes,
    hours=st.integers(min_value=0, max_value=600),
    partials=st.booleans(),
)
def test_plan_invariants(
    processed: list[tuple[int, int]],
    lookback: int,
    batch_size: int | None,
    hours: int,
    partials: bool,
) -> None:
    ranges = [
        (jan(1) + timedelta(minutes=s), jan(1) + timedelta(minutes=s + n)) for s, n in processed
    ]
    execution = jan(1) + timedelta(hours=hours)
    plan = plan_intervals(DAILY, jan(1), None, execution, partials, lookback, batch_size, ranges)
    assert set(plan.missing) <= set(plan.to_run) <= set(plan.expected)
    assert merge_ranges(plan.batches) == merge_ranges(plan.to_run)
    assert all(end <= execution for _, end in plan.expected)


@settings(max_examples=300, deadline=None)
@given(
    processed=processed_ranges,
    lookback=st.integers(min_value=0, max_value=6),
    start_offset=st.integers(min_value=0, max_value=3),
    hours=st.integers(min_value=0, max_value=600),
    partials=st.booleans(),
)
def test_lookback_is_sqlmeshs_rule(
    processed: list[tuple[int, int]], lookback: int, start_offset: int, hours: int, partials: bool
) -> None:
    """SQLMesh's rule, stated forwards: an expected interval is run when it is missing or
    when any of the `lookback` intervals after it is missing. Nothing before the model's
    start, nothing incomplete (unless partials), and every batch holds run intervals only."""
    ranges = [
        (jan(1) + timedelta(minutes=s), jan(1) + timedelta(minutes=s + n)) for s, n in processed
    ]
    start = jan(1) + timedelta(days=start_offset)
    execution = jan(1) + timedelta(hours=hours)
    plan = plan_intervals(DAILY, start, None, execution, partials, lookback, None, ranges)
    missing = set(plan.missing)
    rule = [
        iv
        for i, iv in enumerate(plan.expected)
        if any(later in missing for later in plan.expected[i : i + lookback + 1])
    ]
    assert plan.to_run == rule
    assert all(iv[0] >= start for iv in plan.to_run)
    if not partials:
        assert all(iv[1] <= DAILY.floor(execution) for iv in plan.to_run)
