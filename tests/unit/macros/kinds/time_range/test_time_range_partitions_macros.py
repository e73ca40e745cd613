"""The parquet partitions a dirty batch drops (kinds/time_range/time_range_partitions.sql), with
`partitions_in_range` + `partition_spec_sql` of tests/oracle/time_range.py as the oracle."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.config import validate
from tests.oracle.time_range import partition_spec_sql, partitions_in_range
from tests.support.macro_harness import Harness

_H = Harness()


def both(config: dict[str, Any], specs: list[str], time_type: str, start: str, end: str) -> Any:
    cfg = validate("m", "incremental_by_time_range", {"start": "2020-01-01", **config})
    expected = [
        partition_spec_sql(v) for v in partitions_in_range(specs, cfg, time_type, start, end)
    ]
    got = _H.call("vulcan_partitions_in_range", cfg.as_dict(), specs, time_type, start, end)
    return got, expected


@pytest.mark.parametrize(
    ("config", "specs", "time_type"),
    [
        ({"time_column": "d"}, ["d=2025-01-01", "d=2025-01-02", "d=2025-01-03"], "date"),
        (
            {"time_column": "D"},
            ["d=2025-01-02/region=e%27u", "d=__HIVE_DEFAULT_PARTITION__/region=x"],
            "date",
        ),
        (
            {"time_column": "ts"},
            ["ts=2025-01-01 23%3A00%3A00", "ts=2025-01-02 00%3A30%3A00", "ts=nonsense"],
            "timestamp",
        ),
        ({"time_column": ["day", "%Y%m%d"]}, ["day=20250102", "day=2025-01-02"], "string"),
        ({"time_column": ["day", "yyyy-MM-dd"]}, ["day=2025-01-02", "day=20250102"], "string"),
        ({"time_column": "e", "time_data_type": "epoch"}, ["e=1735776000", "e=x"], "epoch"),
        (
            {"time_column": "e", "time_data_type": "epoch_millis"},
            ["e=1735776000000", "e=1735689599999"],
            "epoch_millis",
        ),
    ],
)
def test_partitions_in_range_equal_the_oracle(
    config: dict[str, Any], specs: list[str], time_type: str
) -> None:
    got, expected = both(config, specs, time_type, "2025-01-02 00:00:00", "2025-01-03 00:00:00")
    assert got == expected
    assert got  # every case keeps at least one partition


@settings(max_examples=150, deadline=None)
@given(
    days=st.lists(st.integers(0, 60), max_size=8),
    start=st.integers(0, 60),
    width=st.integers(1, 10),
    region=st.text("ab'=/%: é", max_size=4),
)
def test_random_daily_partitions(days: list[int], start: int, width: int, region: str) -> None:
    from datetime import date, timedelta

    # Hive escapes ASCII special characters of a partition path as %XX, not other ones
    escaped = "".join(
        c if ord(c) > 127 or c.isalnum() or c == " " else f"%{ord(c):02X}" for c in region
    )
    base = date(2025, 1, 1)
    specs = [f"d={base + timedelta(days=n)}/region={escaped}" for n in days]
    low = f"{base + timedelta(days=start)} 00:00:00"
    high = f"{base + timedelta(days=start + width)} 00:00:00"
    got, expected = both({"time_column": "d"}, specs, "date", low, high)
    assert got == expected


@pytest.mark.parametrize(
    ("zone", "kept"),
    [
        # 2025-01-02 00:00 to 2025-01-03 00:00 UTC in the session's wall clock
        ("UTC", ["2025-01-02 00:30:00", "2025-01-02 01:00:00", "2025-01-02 23:00:00"]),
        ("Europe/Paris", ["2025-01-02 01:00:00", "2025-01-02 23:00:00", "2025-01-03 00:30:00"]),
        ("+05:30", ["2025-01-02 23:00:00", "2025-01-03 00:30:00"]),
        (
            "GMT-8",
            [
                "2025-01-01 16:00:00",
                "2025-01-01 23:30:00",
                "2025-01-02 00:30:00",
                "2025-01-02 01:00:00",
            ],
        ),
        (
            "America/Los_Angeles",
            [
                "2025-01-01 16:00:00",
                "2025-01-01 23:30:00",
                "2025-01-02 00:30:00",
                "2025-01-02 01:00:00",
            ],
        ),
    ],
)
def test_timestamp_partitions_are_read_in_the_session_time_zone(zone: str, kept: list[str]) -> None:
    values = [
        "2025-01-01 16%3A00%3A00",
        "2025-01-01 23%3A30%3A00",
        "2025-01-02 00%3A30%3A00",
        "2025-01-02 01%3A00%3A00",
        "2025-01-02 23%3A00%3A00",
        "2025-01-03 00%3A30%3A00",
    ]
    specs = [f"ts={v}" for v in values]
    cfg = validate("m", "incremental_by_time_range", {"start": "2020-01-01", "time_column": "ts"})
    start, end = "2025-01-02 00:00:00", "2025-01-03 00:00:00"
    got = _H.call("vulcan_partitions_in_range", cfg.as_dict(), specs, "timestamp", start, end, zone)
    expected = [
        partition_spec_sql(v)
        for v in partitions_in_range(specs, cfg, "timestamp", start, end, session_zone=zone)
    ]
    assert got == expected
    assert got == [f"partition (`ts` = '{v}')" for v in kept]


def test_a_session_time_zone_it_cannot_read_is_an_error() -> None:
    cfg = validate("m", "incremental_by_time_range", {"start": "2020-01-01", "time_column": "ts"})
    with pytest.raises(LookupError):
        partitions_in_range(
            ["ts=2025-01-02 00%3A00%3A00"],
            cfg,
            "timestamp",
            "2025-01-02",
            "2025-01-03",
            "Mars/Base",
        )
    with pytest.raises(Exception, match=r"spark\.sql\.session\.timeZone.*'Mars/Base'"):
        _H.call(
            "vulcan_partitions_in_range",
            cfg.as_dict(),
            ["ts=2025-01-02 00%3A00%3A00"],
            "timestamp",
            "2025-01-02",
            "2025-01-03",
            "Mars/Base",
        )
