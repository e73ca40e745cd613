"""The planning oracle (tests/oracle/planning.py): one model run's batches from config + state
+ vars, and the interval arithmetic under it (expected, missing, lookback, batches,
restatement ranges)."""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbt.adapters.vulcan.timeutil import VulcanConfigError, parse_end
from tests.oracle.config import validate
from tests.oracle.planning import (
    FAR_FUTURE,
    FAR_PAST,
    IntervalPlan,
    RunVars,
    align_range,
    apply_lookback,
    expected_intervals,
    make_batches,
    missing_intervals,
    plan_intervals,
    plan_model,
    restatement_range,
)
from tests.oracle.schedule import Interval, Schedule
from tests.oracle.state import RelationState, merge_ranges
from tests.support.state_logs import row

NOW = datetime(2025, 1, 11, 3)
SQL = "select 1"


def cfg(**extra: Any) -> Any:
    return validate(
        "m", "incremental_by_time_range", {"time_column": "d", "start": "2025-01-01", **extra}
    )


def test_run_vars_are_parsed_never_pasted() -> None:
    parsed = RunVars.parse({"vulcan_execution_time": "2025-01-08 05:00:00"}, NOW)
    assert parsed.execution_time == datetime(2025, 1, 8, 5)
    for bad in ("2025-01-01' OR 1=1 --", "yesterday", "2025-02-30"):
        with pytest.raises(VulcanConfigError, match="vulcan_start"):
            RunVars.parse({"vulcan_start": bad, "vulcan_end": "2025-01-02"}, NOW)
    with pytest.raises(VulcanConfigError, match="vulcan_end: required"):
        RunVars.parse({"vulcan_start": "2025-01-01"}, NOW)
    with pytest.raises(VulcanConfigError, match="is not before vulcan_end"):
        RunVars.parse({"vulcan_start": "2025-01-05", "vulcan_end": "2025-01-01"}, NOW)
    # an end date is inclusive: the whole day
    parsed = RunVars.parse({"vulcan_start": "2025-01-03", "vulcan_end": "2025-01-03"}, NOW)
    assert parsed.end == datetime(2025, 1, 4)


def test_plan_from_state_gap_and_dirty_batches() -> None:
    state = RelationState((row("2025-01-01", "2025-01-04"), row("2025-01-06", "2025-01-08", seq=1)))
    plan = plan_model(cfg(), SQL, state, RunVars(NOW), rebuild=False)
    spans = [(b.start.day, b.end.day, b.dirty) for b in plan.batches]
    assert spans == [(4, 6, False), (8, 11, False)]
    # a restated range that held rows is dirty: its strategy must clear old rows first
    state = RelationState(
        (row("2025-01-01", "2025-01-11"), row("2025-01-03", "2025-01-05", "removed", seq=1))
    )
    plan = plan_model(cfg(), SQL, state, RunVars(NOW), rebuild=False)
    assert [(b.start.day, b.end.day, b.dirty) for b in plan.batches] == [(3, 5, True)]
    # a rebuild ignores the state: everything from start, nothing dirty
    plan = plan_model(cfg(), SQL, state, RunVars(NOW), rebuild=True)
    assert [(b.start.day, b.end.day, b.dirty) for b in plan.batches] == [(1, 11, False)]


def test_fingerprint_change_is_reported() -> None:
    state = RelationState((row("2025-01-01", "2025-01-11"),))
    plan = plan_model(cfg(), SQL, state, RunVars(NOW), rebuild=False)
    assert plan.previous_fingerprint == "fp" and plan.fingerprint_changed
    unchanged = plan_model(cfg(), SQL, RelationState(()), RunVars(NOW), rebuild=False)
    assert not unchanged.fingerprint_changed


def test_pending_full_restatement_turns_the_run_into_a_rebuild() -> None:
    key = validate("k", "incremental_by_unique_key", {"unique_key": "id"})
    restated = row(
        "1900-01-01", "9999-12-31", "removed", seq=1, details='{"restate": true, "full": true}'
    )
    plan = plan_model(key, SQL, RelationState((restated,)), RunVars(NOW), rebuild=False)
    assert plan.rebuild and len(plan.batches) == 1 and not plan.batches[0].tracked
    reset = row("1900-01-01", "9999-12-31", "removed", seq=2, details='{"reset": true}')
    plan = plan_model(key, SQL, RelationState((restated, reset)), RunVars(NOW), rebuild=False)
    assert not plan.rebuild


def test_a_pending_full_restatement_does_not_rebuild_a_forward_only_model() -> None:
    """forward_only keeps the history (as from --full-refresh): the run is incremental, the
    restatement stays pending until forward_only is false."""
    details = {"unique_key": "id", "forward_only": True}
    key = validate("k", "incremental_by_unique_key", details)
    restated = row(
        "1900-01-01", "9999-12-31", "removed", seq=1, details='{"restate": true, "full": true}'
    )
    state = RelationState((restated,))
    assert not plan_model(key, SQL, state, RunVars(NOW), rebuild=False).rebuild
    assert state.pending_full_restatement
    # the table missing is still a build
    assert plan_model(key, SQL, state, RunVars(NOW), rebuild=True).rebuild
    unlocked = validate("k", "incremental_by_unique_key", {**details, "forward_only": False})
    assert plan_model(unlocked, SQL, state, RunVars(NOW), rebuild=False).rebuild


# ------------------------------------------------------------- interval arithmetic

D = datetime
DAILY = Schedule.build("@daily", None)
HOURLY = Schedule.build("@hourly", None)


def days(first: datetime, count: int) -> list[Interval]:
    return [(first + timedelta(days=i), first + timedelta(days=i + 1)) for i in range(count)]


def jan(day: int, hour: int = 0, minute: int = 0) -> datetime:
    return D(2025, 1, day, hour, minute)


# -------------------------------------------------------------- due intervals


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
