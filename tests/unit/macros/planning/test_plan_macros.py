"""The Jinja around the planner (macros/planning/plan.sql): the run's vars, unit
arithmetic, batch labels and the fingerprint, with the planning oracle
(tests/oracle/planning.py) and the schedule's arithmetic (tests/oracle/schedule.py)."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbt.adapters.vulcan.timeutil import VulcanConfigError, format_range, format_ts
from tests.oracle.config import validate
from tests.oracle.planning import RunVars, fingerprint, plan_model
from tests.oracle.schedule import IntervalUnit, Schedule
from tests.oracle.state import RelationState
from tests.support.macro_harness import CompilerError, Harness

_H = Harness()
NOW = datetime(2030, 6, 1, 12, 30)
UNITS = [unit.value for unit in IntervalUnit]


def jinja_vars(raw: dict[str, Any]) -> Any:
    return _H.call("vulcan_run_vars", "m", raw)


@pytest.mark.parametrize(
    "raw",
    [
        {},
        {"vulcan_execution_time": "2025-01-05"},
        {"vulcan_start": "2025-01-01", "vulcan_end": "2025-01-03"},
        {"vulcan_start": "2025-01-01 06:00", "vulcan_end": "2025-01-01 07:30:00"},
        {"vulcan_start": "2025-01-01", "vulcan_end": "2025-01-01"},
        {"vulcan_start": "2025-01-03", "vulcan_end": "2025-01-01"},
        {"vulcan_start": "2025-01-01"},
        {"vulcan_end": "2025-01-01"},
        {"vulcan_execution_time": "yesterday", "vulcan_start": "2025-13-01", "vulcan_end": "x"},
        {"vulcan_execution_time": "3001-01-01"},
        {"vulcan_start": 1735689600, "vulcan_end": "2025-01-02"},
        # dbt's --event-time-start / --event-time-end (invocation_args_dict: naive datetimes)
        {"event_time_start": datetime(2025, 1, 5), "event_time_end": datetime(2025, 1, 6)},
        {"event_time_start": "2025-01-05", "event_time_end": "2025-01-06"},
        {"event_time_start": datetime(2025, 1, 6), "event_time_end": datetime(2025, 1, 5)},
        {"event_time_start": datetime(2025, 1, 5)},
        {
            "vulcan_start": "2025-01-01",
            "vulcan_end": "2025-01-02",
            "event_time_start": datetime(2025, 1, 5),
            "event_time_end": datetime(2025, 1, 6),
        },
        {
            "vulcan_execution_time": "2025-02-01",
            "event_time_start": datetime(2025, 1, 5, 6),
            "event_time_end": datetime(2025, 1, 5, 7),
        },
    ],
)
def test_run_vars_equal_the_oracle(raw: dict[str, Any]) -> None:
    try:
        expected = RunVars.parse(raw, NOW)
    except VulcanConfigError as exc:
        with pytest.raises(CompilerError) as got:
            jinja_vars(raw)
        assert str(got.value) == f"Model 'm': {exc}"
        return
    got = jinja_vars(raw)
    assert got["start"] == expected.start and got["end"] == expected.end
    if "vulcan_execution_time" in raw:
        assert got["execution_time"] == expected.execution_time
    flags = "event_time_start" in raw
    assert got["range_from"] == ("flags" if flags else "vars" if expected.start else None)


def test_dbt_event_time_flags_are_an_exclusive_range() -> None:
    """A date given to --event-time-end is its midnight, not its whole day (vulcan_end's)."""
    got = jinja_vars({"event_time_start": "2025-01-05", "event_time_end": "2025-01-06"})
    assert (got["start"], got["end"]) == (datetime(2025, 1, 5), datetime(2025, 1, 6))
    by_vars = jinja_vars({"vulcan_start": "2025-01-05", "vulcan_end": "2025-01-06"})
    assert by_vars["end"] == datetime(2025, 1, 7)


def test_both_ranges_at_once_are_refused_naming_both() -> None:
    raw = {
        "vulcan_start": "2025-01-01",
        "vulcan_end": "2025-01-02",
        "event_time_start": datetime(2025, 1, 5),
        "event_time_end": datetime(2025, 1, 6),
    }
    with pytest.raises(CompilerError) as got:
        jinja_vars(raw)
    assert (
        "vulcan_start/vulcan_end and --event-time-start/--event-time-end both give the range"
        in str(got.value)
    )


@settings(max_examples=300, deadline=None)
@given(
    unit=st.sampled_from(UNITS),
    week_start=st.integers(0, 6),
    moment=st.datetimes(datetime(1900, 1, 2), datetime(2999, 12, 1)),
)
def test_unit_floor_ceil_add_and_label_equal_the_schedule(
    unit: str, week_start: int, moment: datetime
) -> None:
    schedule = Schedule(unit=IntervalUnit(unit), cron="0 0 * * *", week_start=week_start)
    b = _H.call("vulcan_unit_geometry", unit, week_start)
    assert _H.call("vulcan_unit_floor", moment, b) == schedule.floor(moment)
    assert _H.call("vulcan_unit_ceil", moment, b) == schedule.ceil(moment)
    assert _H.call("_vulcan_unit_add", moment, b) == schedule.add(moment)
    start, end = schedule.floor(moment), schedule.add(moment)
    date_grain = schedule.unit.is_date_grain
    for low, high in [(start, end), (moment, end), (start, start + timedelta(days=3))]:
        assert _H.call("_vulcan_range_label", low, high, b) == format_range(low, high, date_grain)


@settings(max_examples=300, deadline=None)
@given(moment=st.datetimes(datetime(1900, 1, 1), datetime(9999, 12, 31)))
def test_plan_bounds_from_epoch_microseconds_equal_format_ts(moment: datetime) -> None:
    """The planner computes batch bounds as epoch microseconds; Jinja turns them back into
    the naive datetime and the text the state log records (timeutil.format_ts)."""
    us = (moment - datetime(1970, 1, 1)) // timedelta(microseconds=1)
    got = _H.call("_vulcan_plan_datetime", us)
    assert got == moment
    assert _H.call("vulcan_format_ts", got) == format_ts(moment)
    assert _H.call("_vulcan_plan_datetime", Decimal(us)) == moment  # agate's numbers


@pytest.mark.parametrize(
    ("kind", "config"),
    [
        ("incremental_by_time_range", {"time_column": "d", "start": "2025-01-01"}),
        ("incremental_by_time_range", {"time_column": ["d", "%Y%m%d"], "start": "2025-01-01"}),
        (
            "incremental_by_unique_key",
            {"unique_key": ["a", "b"], "when_matched": "WHEN MATCHED THEN UPDATE SET t.x = s.x"},
        ),
        ("incremental_unmanaged", {}),
    ],
)
def test_fingerprint_equals_the_oracle(kind: str, config: dict[str, Any]) -> None:
    cfg = validate("m", kind, config)
    code = "  select 1 as d -- it's\n"
    assert _H.call("vulcan_fingerprint", code, cfg.as_dict()) == fingerprint(code, cfg)


@pytest.mark.parametrize("rebuild", [False, True])
@pytest.mark.parametrize("run_range", [None, (datetime(2025, 3, 1), datetime(2025, 3, 3))])
def test_tracked_window_equals_the_oracle_and_a_rebuild_has_none(
    rebuild: bool, run_range: tuple[datetime, datetime] | None
) -> None:
    """A tracked model's one batch: its window on an incremental run, all time up to the
    execution time when the table is built from nothing (the tokens render with it)."""
    cfg = validate("m", "tracked", {"group_key": "k", "time_column": "d", "lookback": 2})
    run = RunVars(datetime(2025, 3, 30, 12), *(run_range or (None, None)))
    expected = plan_model(cfg, "select 1", RelationState(()), run, rebuild).batches[0]
    got = _H.call(
        "_vulcan_plan_window",
        cfg.as_dict(),
        {"execution_time": run.execution_time, "start": run.start, "end": run.end},
        _H.call("vulcan_unit_geometry", "day", 0),
        datetime(1970, 1, 1),
        rebuild,
    )
    assert (got[0], got[1]) == (expected.start, expected.end)
    if rebuild:
        assert got == [datetime(1970, 1, 1), run.execution_time]
    elif run_range is None:
        assert got == [datetime(2025, 3, 28), run.execution_time]
    else:
        assert got == list(run_range)
