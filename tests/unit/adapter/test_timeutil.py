from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from dbt.adapters.vulcan.timeutil import (
    MAX_TIME,
    MIN_TIME,
    VulcanConfigError,
    format_range,
    format_ts,
    is_date_only,
    parse_end,
    parse_time,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-01-01", datetime(2025, 1, 1)),
        (" 2025-01-01 ", datetime(2025, 1, 1)),
        ("2025-01-01 05:00:00", datetime(2025, 1, 1, 5)),
        ("2025-01-01T05:00:00", datetime(2025, 1, 1, 5)),
        ("2025-01-01 05:30", datetime(2025, 1, 1, 5, 30)),
        ("2025-01-01 05:00:00.5", datetime(2025, 1, 1, 5, 0, 0, 500000)),
        ("2025-01-01 05:00:00.123456", datetime(2025, 1, 1, 5, 0, 0, 123456)),
        ("2025-01-01T05:00:00Z", datetime(2025, 1, 1, 5)),
        ("2025-01-01T05:00:00+02:00", datetime(2025, 1, 1, 3)),
        ("2025-01-01T01:00:00+0200", datetime(2024, 12, 31, 23)),
        ("2025-01-01T22:00:00-05:00", datetime(2025, 1, 2, 3)),
        ("2024-02-29", datetime(2024, 2, 29)),
        (date(2025, 3, 4), datetime(2025, 3, 4)),
        (datetime(2025, 3, 4, 1, 2, 3), datetime(2025, 3, 4, 1, 2, 3)),
        (datetime(2025, 3, 4, 1, tzinfo=timezone(timedelta(hours=1))), datetime(2025, 3, 4, 0)),
        (1735689600, datetime(2025, 1, 1)),
        (1735689600000, datetime(2025, 1, 1)),
        (1735689600123, datetime(2025, 1, 1, 0, 0, 0, 123000)),
        (0, datetime(1970, 1, 1)),
    ],
)
def test_parse_time_accepts(value: object, expected: datetime) -> None:
    assert parse_time(value, "start") == expected


@pytest.mark.parametrize(
    "value",
    [
        "2025-13-01",
        "2025-02-30",
        "2023-02-29",
        "yesterday",
        "2025-01-01' OR 1=1",
        "2025-01-01 25:00:00",
        "2025-01-01 05:00:00+25:00",
        "20250101",
        "",
        True,
        False,
        1.5,
        None,
        [2025, 1, 1],
    ],
)
def test_parse_time_rejects(value: object) -> None:
    with pytest.raises(VulcanConfigError) as info:
        parse_time(value, "start")
    message = str(info.value)
    assert message.startswith("start: ")
    assert repr(value) in message
    assert "YYYY-MM-DD" in message
    assert "epoch" in message


def test_config_error_is_value_error() -> None:
    assert issubclass(VulcanConfigError, ValueError)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (date(2025, 1, 1), True),
        ("2025-01-01", True),
        (" 2025-01-01", True),
        (datetime(2025, 1, 1), False),
        ("2025-01-01 00:00:00", False),
        ("2025-01-01T00:00", False),
        (1735689600, False),
        (None, False),
    ],
)
def test_is_date_only(value: object, expected: bool) -> None:
    assert is_date_only(value) is expected


def test_parse_end_date_is_inclusive_day() -> None:
    assert parse_end("2025-01-31", "end") == datetime(2025, 2, 1)
    assert parse_end(date(2024, 2, 29), "end") == datetime(2024, 3, 1)
    assert parse_end("2024-12-31", "end") == datetime(2025, 1, 1)


def test_parse_end_timestamp_is_exclusive_as_is() -> None:
    assert parse_end("2025-01-31 00:00:00", "end") == datetime(2025, 1, 31)
    assert parse_end("2025-01-31 06:00:00", "end") == datetime(2025, 1, 31, 6)
    assert parse_end(datetime(2025, 1, 31), "end") == datetime(2025, 1, 31)


def test_parse_end_error_names_key() -> None:
    with pytest.raises(VulcanConfigError, match=r"^end: 'nope'"):
        parse_end("nope", "end")


def test_format_ts() -> None:
    assert format_ts(datetime(2025, 1, 8, 5)) == "2025-01-08 05:00:00"
    assert format_ts(datetime(2025, 1, 8, 5, 0, 0, 1)) == "2025-01-08 05:00:00.000001"
    assert format_ts(datetime(2025, 1, 7, 23, 59, 59, 999999)) == "2025-01-07 23:59:59.999999"


def test_format_range() -> None:
    assert format_range(datetime(2025, 1, 8), datetime(2025, 1, 15), True) == (
        "2025-01-08 - 2025-01-14"
    )
    assert format_range(datetime(2025, 1, 8), datetime(2025, 1, 9), True) == (
        "2025-01-08 - 2025-01-08"
    )
    assert format_range(datetime(2025, 1, 8, 5), datetime(2025, 1, 8, 6), False) == (
        "2025-01-08 05:00:00 - 2025-01-08 06:00:00"
    )
    assert format_range(datetime(2025, 1, 8, 5), datetime(2025, 1, 9), True) == (
        "2025-01-08 05:00:00 - 2025-01-09 00:00:00"
    )
    assert format_range(datetime(2025, 1, 8), datetime(2025, 1, 9), False) == (
        "2025-01-08 00:00:00 - 2025-01-09 00:00:00"
    )


# ------------------------------------------------------------------ the allowed range


@pytest.mark.parametrize(
    "value",
    ["9999-12-31", "0001-01-01", "1899-12-31 23:59:59", "3000-01-01 00:00:01", 10**18, -(10**13)],
)
def test_times_out_of_range_are_refused_with_the_range(value: object) -> None:
    for parse in (parse_time, parse_end):
        with pytest.raises(VulcanConfigError) as exc:
            parse(value, "vulcan_execution_time")
        assert str(exc.value) == (
            f"vulcan_execution_time: {value!r} is out of range; "
            "times must lie between 1900-01-01 and 3000-01-01"
        )


def test_range_bounds_are_included() -> None:
    assert parse_time("1900-01-01", "start") == MIN_TIME == datetime(1900, 1, 1)
    assert parse_time("3000-01-01 00:00:00", "end") == MAX_TIME == datetime(3000, 1, 1)
    assert parse_end("2999-12-31", "end") == MAX_TIME  # the whole last day
    assert parse_end(date(2999, 12, 31), "end") == MAX_TIME


def test_a_date_only_end_on_the_upper_bound_is_refused_with_the_last_end_date() -> None:
    with pytest.raises(VulcanConfigError, match="the last end date is 2999-12-31"):
        parse_end("3000-01-01", "end")


def test_stored_times_are_read_unbounded() -> None:
    assert parse_time("9999-12-31 00:00:00", "interval_end", bounded=False) == datetime(
        9999, 12, 31
    )
    with pytest.raises(VulcanConfigError, match="out of range"):
        parse_time(datetime(9999, 12, 31), "interval_end")
