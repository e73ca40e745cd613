"""The Jinja planner (macros/planning/plan_intervals.sql, `vulcan_plan_intervals`), rendered
by the macro harness over log rows as the plain read returns them, with the Python reference as
the oracle: `planning.plan_model` (planning.plan_intervals over the replayed log, dirty from every
range ever processed, a pending full restatement as a rebuild) must plan exactly the same
batches. VULCAN_PLAN_EXAMPLES sets the property test's examples (CI: 300)."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbt.adapters.vulcan.timeutil import format_ts
from tests.oracle.config import validate
from tests.oracle.planning import (
    FAR_FUTURE,
    FAR_PAST,
    RunVars,
    Upstream,
    align_range,
    plan_model,
)
from tests.oracle.schedule import IntervalUnit, Schedule
from tests.oracle.state import RelationState, StateRow
from tests.support.macro_harness import CompilerError, Harness, shared_harness

KEY = "s.m"
RECORDED = datetime(2030, 1, 1)
UNITS = [unit.value for unit in IntervalUnit]


def harness() -> Harness:
    """The module's macro harness: the `vulcan` adapter's dispatch, shared per process."""
    return shared_harness("vulcan")


# ------------------------------------------------------------------------------ cases


def row(
    start: datetime | str,
    end: datetime | str,
    kind: str = "processed",
    at: int = 0,
    details: str = "",
    relation: str = KEY,
    recorded: int | None = None,
) -> StateRow:
    """A log row, replayed in order of `at` (two rows share each recorded_at second, so the
    seq decides), or of (`recorded` seconds, `at`)."""
    second = at // 2 if recorded is None else recorded
    return StateRow(
        relation=relation,
        start=start if isinstance(start, datetime) else datetime.fromisoformat(start),
        end=end if isinstance(end, datetime) else datetime.fromisoformat(end),
        kind=kind,
        fingerprint="fp",
        invocation_id="inv",
        recorded_at=RECORDED + timedelta(seconds=second, microseconds=second % 3),
        seq=at,
        details=details,
    )


RESET = '{"reset": true}'
REBUILT = '{"reset": true, "rebuilt": true}'
RESTATE = '{"restate": true, "full": false}'
FULL = '{"restate": true, "full": true}'


@dataclass
class Case:
    config: dict[str, Any]
    execution_time: datetime
    rows: list[StateRow] = field(default_factory=list)
    run_range: tuple[datetime, datetime] | None = None
    rebuild: bool = False
    # upstream models: (name, config, log rows)
    upstream: list[tuple[str, dict[str, Any], list[StateRow]]] = field(default_factory=list)
    # a signal's answer: the time up to which the inputs are ready
    signal: datetime | None = None

    def model_config(self) -> Any:
        return validate("m", "incremental_by_time_range", {"time_column": "d", **self.config})

    def upstreams(self) -> list[Upstream]:
        return [
            Upstream(
                name,
                validate(name, "incremental_by_time_range", {"time_column": "d", **config}),
                RelationState(tuple(rows)),
            )
            for name, config, rows in self.upstream
        ]

    def schedule(self) -> Schedule:
        schedule: Schedule = self.model_config().schedule()
        return schedule


Batch = tuple[int, int, datetime, datetime, int, bool]


def oracle(case: Case) -> tuple[list[Batch], bool, Any]:
    """The planning oracle's batches, whether it rebuilds, and what it holds back."""
    run_vars = RunVars(case.execution_time, *(case.run_range or (None, None)))
    plan = plan_model(
        case.model_config(),
        "select 1",
        RelationState(tuple(case.rows)),
        run_vars,
        case.rebuild,
        upstream=case.upstreams(),
        signal=case.signal,
    )
    batches = [(b.index, b.count, b.start, b.end, b.intervals, b.dirty) for b in plan.batches]
    held = plan.as_dict()
    return batches, plan.rebuild, (held["held"], held["held_intervals"], held["waiting"])


def params(case: Case) -> dict[str, Any]:
    """The macro's `p`: what the caller derives from config and run vars."""
    cfg = case.model_config()
    schedule = cfg.schedule()
    explicit = None
    if case.run_range is not None:
        explicit = [format_ts(t) for t in align_range(schedule, *case.run_range)]
    return {
        "start": cfg.start,
        "end": cfg.end,
        "unit": schedule.unit.value,
        "week_start": schedule.week_start,
        "due_end": format_ts(schedule.due_end(case.execution_time, cfg.allow_partials)),
        "allow_partials": cfg.allow_partials,
        "lookback": cfg.lookback,
        "batch_size": cfg.batch_size,
        "explicit": explicit,
        "rebuild": case.rebuild,
        "upstream": [
            {
                "name": name,
                "unready": harness().call(
                    "_vulcan_upstream_unready",
                    dataclasses.asdict(
                        validate(name, "incremental_by_time_range", {"time_column": "d", **config})
                    ),
                    log_rows(rows),
                ),
            }
            for name, config, rows in case.upstream
        ]
        + (
            [{"name": "signal ready_when", "unready": [[to_us(case.signal), to_us(FAR_FUTURE)]]}]
            if case.signal is not None
            else []
        ),
    }


EPOCH = datetime(1970, 1, 1)


def to_us(value: datetime) -> int:
    """A datetime as epoch microseconds (how the read returns times)."""
    return (value - EPOCH) // timedelta(microseconds=1)


def micros(value: int) -> datetime:
    return EPOCH + timedelta(microseconds=value)


KIND_ORDER = {"processed": 1, "removed": 2}


def log_rows(rows: list[StateRow]) -> list[dict[str, Any]]:
    """The rows as the plain read returns them (state/log.sql): times in epoch
    microseconds, in its order (recorded_at, seq, processed before removed, start, end)."""
    out = [
        {
            "relation": r.relation,
            "model_id": r.model_id,
            "start": to_us(r.start),
            "end": to_us(r.end),
            "row_type": r.kind,
            "fingerprint": r.fingerprint,
            "invocation_id": r.invocation_id,
            "at": to_us(r.recorded_at),
            "seq": r.seq,
            "details": r.details,
        }
        for r in rows
    ]
    return sorted(
        out,
        key=lambda r: (r["at"], r["seq"], KIND_ORDER.get(r["row_type"], 3), r["start"], r["end"]),
    )


@dataclass
class JinjaPlan:
    batches: list[Batch] = field(default_factory=list)
    rebuild: bool = False
    latest: str | None = None
    held: Any = None


def plan(case: Case) -> JinjaPlan:
    """The Jinja planner's batches, as the oracle's tuples."""
    found = harness().call("vulcan_plan_intervals", log_rows(case.rows), params(case))
    n = len(found["batches"])
    batches = [
        (i, n, micros(b["start"]), micros(b["end"]), b["intervals"], b["dirty"])
        for i, b in enumerate(found["batches"], 1)
    ]
    latest = found["summary"]["latest"]
    held = found["held"]
    shown = (
        [[format_ts(micros(lo)), format_ts(micros(hi))] for lo, hi in held["ranges"]],
        held["intervals"],
        [[w["name"], format_ts(micros(w["since"]))] for w in held["waiting"]],
    )
    return JinjaPlan(batches, found["rebuild"], latest["fingerprint"] if latest else None, shown)


def check(cases: list[Case]) -> list[list[Batch]]:
    """Assert the Jinja plans equal the oracle's; return them."""
    out = []
    for case in cases:
        expected, expected_rebuild, expected_held = oracle(case)
        found = plan(case)
        assert found.batches == expected, case
        assert found.rebuild == expected_rebuild, case
        assert found.held == expected_held, case
        processed = [r for r in case.rows if r.kind == "processed"]
        latest = max(processed, key=lambda r: (r.recorded_at, r.seq)) if processed else None
        assert found.latest == (latest.fingerprint if latest else None), case
        out.append(found.batches)
    return out


def day(d: int, month: int = 1, year: int = 2025, hour: int = 0) -> datetime:
    return datetime(year, month, d, hour)


DAILY = {"start": "2025-01-01"}


# --------------------------------------------------------------------------- examples


class TestJinjaPlanner:
    def test_backfill_catch_up_batches_and_gaps(self) -> None:
        backfill = Case(DAILY, day(8, hour=1))
        catch_up = Case({**DAILY, "lookback": 2}, day(8), [row("2025-01-01", "2025-01-05", at=1)])
        cut = Case({**DAILY, "batch_size": 3}, day(8))
        gap = Case(
            {**DAILY, "batch_size": 2},
            day(12),
            [row("2025-01-01", "2025-01-03", at=1), row("2025-01-05", "2025-01-08", at=2)],
        )
        unaligned = Case({"start": "2025-01-01 06:00:00"}, day(3))
        nothing = Case(DAILY, day(1, hour=23))
        plans = check([backfill, catch_up, cut, gap, unaligned, nothing])
        assert plans[0] == [(1, 1, day(1), day(8), 7, False)]
        # 3 missing days, lookback 2: 5 days recomputed in one batch, dirty (2 were processed)
        assert plans[1] == [(1, 1, day(3), day(8), 5, True)]
        assert [(b[2].day, b[3].day, b[4]) for b in plans[2]] == [(1, 4, 3), (4, 7, 3), (7, 8, 1)]
        assert [(b[2].day, b[3].day, b[4]) for b in plans[3]] == [
            (3, 5, 2),
            (8, 10, 2),
            (10, 12, 2),
        ]
        assert plans[4] == [(1, 1, day(1), day(3), 2, False)]
        assert plans[5] == []

    def test_units_hour_week_month_quarter_year(self) -> None:
        hourly = Case(
            {"start": "2025-01-01", "interval_unit": "hour"}, day(1, hour=5) + timedelta(minutes=20)
        )
        five = Case(
            {"start": "2025-01-01", "interval_unit": "five_minute", "batch_size": 4},
            day(1, hour=1),
            [row("2025-01-01 00:10:00", "2025-01-01 00:40:00", at=1)],
        )
        # weeks start on Sunday: 2025-01-01 (a Wednesday) floors to Sunday 2024-12-29
        weekly = Case(
            {"start": "2025-01-01", "interval_unit": "week", "week_start": "sunday"}, day(20)
        )
        monthly = Case({"start": "2024-11-15", "interval_unit": "month"}, day(2, month=3))
        quarterly = Case({"start": "2023-05-01", "interval_unit": "quarter"}, day(2, month=3))
        yearly = Case(
            {"start": "2019-03-01", "interval_unit": "year", "lookback": 1},
            day(2, month=3),
            [row("2019-01-01", "2022-01-01", at=1)],
        )
        plans = check([hourly, five, weekly, monthly, quarterly, yearly])
        assert plans[0] == [(1, 1, day(1), day(1, hour=5), 5, False)]
        assert [(b[2].minute, b[3].minute, b[4]) for b in plans[1]] == [(0, 10, 2), (40, 0, 4)]
        assert plans[2] == [(1, 1, datetime(2024, 12, 29), day(19), 3, False)]
        assert plans[3] == [(1, 1, datetime(2024, 11, 1), day(1, month=3), 4, False)]
        assert plans[4] == [(1, 1, datetime(2023, 4, 1), day(1), 7, False)]
        # 2022..2024 missing, lookback 1 adds 2021
        assert plans[5] == [(1, 1, datetime(2021, 1, 1), day(1), 4, True)]

    def test_partials_end_explicit_and_rebuild(self) -> None:
        partials = {**DAILY, "allow_partials": True}
        now = day(3, hour=10) + timedelta(minutes=30, microseconds=250)
        partial = Case(partials, now)
        # the partial day recorded, then due again (completed) the next day
        completed = Case(partials, day(4, hour=5), [row(datetime(2025, 1, 1), now, at=1)])
        ended = Case({**DAILY, "end": "2025-01-05"}, day(10))
        explicit = Case(
            DAILY, day(10), [row("2025-01-01", "2025-01-10", at=1)], (day(3, hour=7), day(5))
        )
        rebuild = Case(DAILY, day(8), [row("2025-01-01", "2025-01-08", at=1)], rebuild=True)
        # a rebuild ignores an explicit range: all history is due
        rebuild_range = Case(DAILY, day(8), [], (day(3), day(5)), rebuild=True)
        plans = check([partial, completed, ended, explicit, rebuild, rebuild_range])
        assert plans[0] == [(1, 1, day(1), now, 3, False)]
        assert plans[1] == [(1, 1, day(3), day(4, hour=5), 2, True)]
        assert plans[2] == [(1, 1, day(1), day(6), 5, False)]
        assert plans[3] == [(1, 1, day(3), day(5), 2, True)]
        assert plans[4] == [(1, 1, day(1), day(8), 7, False)]
        assert plans[5] == [(1, 1, day(1), day(8), 7, False)]

    def test_restatements_resets_and_dirty_flags(self) -> None:
        done = row("2025-01-01", "2025-01-08", at=1)
        restated = Case(
            DAILY, day(8), [done, row("2025-01-03", "2025-01-05", "removed", 2, RESTATE)]
        )
        redone = Case(
            DAILY,
            day(8),
            [
                done,
                row("2025-01-03", "2025-01-05", "removed", 2, RESTATE),
                row("2025-01-03", "2025-01-05", at=3),
            ],
        )
        reset = Case(DAILY, day(8), [done, row(FAR_PAST, FAR_FUTURE, "removed", 2, RESET)])
        # a processed row recorded before the removal does not count; one after it does
        order = Case(
            DAILY,
            day(8),
            [
                row("2025-01-01", "2025-01-04", at=1),
                row("2025-01-02", "2025-01-06", at=3),
                row("2025-01-01", "2025-01-08", "removed", 2),
            ],
        )
        full = Case(DAILY, day(8), [done, row(FAR_PAST, FAR_FUTURE, "removed", 2, FULL)])
        full_then_reset = Case(
            DAILY,
            day(8),
            [
                done,
                row(FAR_PAST, FAR_FUTURE, "removed", 2, FULL),
                row(FAR_PAST, FAR_FUTURE, "removed", 3, RESET),
                row("2025-01-01", "2025-01-05", at=4),
            ],
        )
        # dirty: one batch overlaps what was processed, the other does not
        dirty = Case(
            {**DAILY, "batch_size": 2},
            day(8),
            [row("2025-01-02", "2025-01-04", at=1), row("2025-01-01", "2025-01-04", "removed", 2)],
        )
        # the rebuilt table exists: what was processed before it holds nothing (a reset alone,
        # above: the rebuild stopped before replacing the table, whose ranges still count)
        rebuilt = Case(
            DAILY,
            day(8),
            [
                done,
                row(FAR_PAST, FAR_FUTURE, "removed", 2, RESET),
                row(FAR_PAST, FAR_FUTURE, "removed", 3, REBUILT),
                row("2025-01-01", "2025-01-05", at=4),
            ],
        )
        cases = [restated, redone, reset, order, full, full_then_reset, dirty, rebuilt]
        plans = check(cases)
        assert plans[0] == [(1, 1, day(3), day(5), 2, True)]
        assert plans[1] == []
        assert plans[2] == [(1, 1, day(1), day(8), 7, True)]
        assert plans[3] == [(1, 2, day(1), day(2), 1, True), (2, 2, day(6), day(8), 2, False)]
        # a pending full-history restatement turns the run into a rebuild: nothing dirty
        assert plans[4] == [(1, 1, day(1), day(8), 7, False)]
        assert plan(full).rebuild is True
        assert plans[5] == [(1, 1, day(5), day(8), 3, True)]
        assert [b[5] for b in plans[6]] == [True, True, False, False]
        assert plans[7] == [(1, 1, day(5), day(8), 3, False)]

    def test_one_plain_read_of_the_relation_s_rows(self) -> None:
        """The plan reads the log once: the relation's stored rows (its key escaped), no
        function and no order (state/log.sql parses and orders them)."""
        h = harness()
        h.reset()
        key = "s.it's\\m"
        assert h.call("vulcan_log_read", [key]) == {}
        (read,) = [q for q in h.statements if "vulcan_intervals" in q]
        assert read == (
            "select relation, model_id, interval_start, interval_end, row_type, fingerprint, "
            "invocation_id, recorded_at, seq, details, append_id "
            "from vulcan_state.vulcan_intervals "
            "where relation in ('s.it\\'s\\\\m')"
        )

    def test_batches_come_in_order(self) -> None:
        rows = [row("2025-01-03", "2025-01-04", at=1), row("2025-01-06", "2025-01-07", at=2)]
        case = Case({**DAILY, "batch_size": 1}, day(12), rows)
        starts = [d for d in range(1, 12) if d not in (3, 6)]
        assert [b[2].day for b in check([case])[0]] == starts

    def test_around_time_zone_changes(self) -> None:
        """Around a DST change (in some zone: the plan is UTC wall clock), with microseconds."""
        hourly = {"start": "2024-03-09 20:00:00", "interval_unit": "hour", "allow_partials": True}
        check(
            [
                Case(
                    hourly,
                    datetime(2024, 3, 10, 4, 17, 3, 500),
                    [row("2024-03-10 01:00", "2024-03-10 02:30", at=1)],
                ),
                Case(
                    {"start": "2024-10-27", "interval_unit": "half_hour"}, datetime(2024, 11, 3, 12)
                ),
                Case(
                    {"start": "2024-01-15", "interval_unit": "week", "week_start": 3},
                    datetime(2024, 12, 1),
                ),
            ]
        )

    def test_long_history_is_range_arithmetic(self) -> None:
        """Two years of five-minute intervals (210,528): planned from a few ranges, never by
        enumerating them; a rebuild in batches of 2 plans 105,264 batches (more than Jinja's
        range() gives at once)."""
        config = {"start": "2023-01-01", "interval_unit": "five_minute", "lookback": 2}
        intervals = 731 * 288
        done = row("2023-01-01", datetime(2025, 1, 1) - timedelta(minutes=15), at=1)
        removed = row(datetime(2024, 12, 31, 23, 30), datetime(2024, 12, 31, 23, 40), "removed", 2)
        plans = check([Case(config, datetime(2025, 1, 1), [done, removed])])
        # the removed 23:30-23:40 and the missing 23:45-24:00, lookback 2 before each: one run
        assert plans[0] == [(1, 1, datetime(2024, 12, 31, 23, 20), datetime(2025, 1, 1), 8, True)]
        rebuild = Case({**config, "batch_size": 2}, datetime(2025, 1, 1), [done], rebuild=True)
        found = plan(rebuild)
        assert len(found.batches) == intervals // 2
        assert sum(b[4] for b in found.batches) == intervals
        assert found.batches[-1][3] == datetime(2025, 1, 1)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"unit": "fortnight"}, "unit"),
        ({"lookback": -1}, "lookback"),
        ({"batch_size": 0}, "batch_size"),
        ({"unit": "week", "week_start": 7}, "week_start"),
        ({"start": "2025-01-01' or 1=1 --"}, "start"),
        ({"explicit": ["2025-01-02", "soon"]}, "explicit"),
    ],
)
def test_bad_inputs_are_compiler_errors(bad: dict[str, Any], message: str) -> None:
    p = {**params(Case(DAILY, day(8))), **bad}
    with pytest.raises(CompilerError, match=message):
        harness().call("vulcan_plan_intervals", [], p)


# --------------------------------------------------------------------- property test


@st.composite
def cases(draw: Any) -> Case:
    unit = draw(st.sampled_from(UNITS))
    config: dict[str, Any] = {"interval_unit": unit}
    if unit == "week":
        config["week_start"] = draw(st.integers(0, 6))
    schedule = Schedule.build(None, unit, config.get("week_start"))
    anchor = schedule.floor(datetime(2024, 2, 26, 13, 35))

    def point(low: int, high: int) -> datetime:
        """A unit boundary near the anchor, sometimes a point inside an interval."""
        k = draw(st.integers(low, high))
        at = schedule.add(anchor, k)
        if draw(st.integers(0, 3)) == 0:
            width = schedule.add(at) - at
            at += width * draw(st.integers(1, 99)) / 100
            at += timedelta(microseconds=draw(st.sampled_from([0, 0, 1, 500_000])))
        return at

    start = point(0, 3)
    config["start"] = format_ts(start)
    if draw(st.booleans()):
        config["end"] = format_ts(start + (point(4, 30) - anchor))
    config["allow_partials"] = draw(st.booleans())
    config["lookback"] = draw(st.integers(0, 4))
    config["batch_size"] = draw(st.one_of(st.none(), st.integers(1, 5)))
    execution_time = point(-2, 30)
    rows = []
    for at in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["processed", "processed", "removed"]))
        details = draw(st.sampled_from(["", RESTATE, RESET, FULL, "[1]"] + [""] * 7))
        if details in (RESET, FULL) and draw(st.booleans()):
            low, high = FAR_PAST, FAR_FUTURE
        else:
            low = point(-2, 26)
            high = max(low, point(-2, 26)) if draw(st.integers(0, 5)) else low
        rows.append(row(low, high, kind, at, details, recorded=draw(st.integers(0, 3))))
    run_range = None
    if draw(st.integers(0, 3)) == 0:
        low = point(-1, 20)
        run_range = (low, low + (point(1, 10) - anchor))
    upstream = []
    for n in range(draw(st.sampled_from([0, 0, 1, 1, 2]))):
        parent_unit = draw(st.sampled_from(UNITS))
        parent = Schedule.build(None, parent_unit, None)
        parent_config: dict[str, Any] = {"interval_unit": parent_unit}
        parent_start = parent.floor(point(-3, 3))
        parent_config["start"] = format_ts(parent_start)
        if draw(st.integers(0, 3)) == 0:
            parent_config["end"] = format_ts(parent.add(parent_start, draw(st.integers(1, 40))))
        parent_config["forward_only"] = draw(st.booleans())
        parent_rows = []
        for at in range(draw(st.integers(0, 5))):
            kind = draw(st.sampled_from(["processed", "processed", "processed", "removed"]))
            details = draw(st.sampled_from(["", "", "", RESTATE, FULL]))
            low = parent.floor(point(-3, 26))
            high = parent.add(low, draw(st.integers(0, 60)))
            if kind == "processed" and draw(st.integers(0, 4)) == 0:
                high = point(-3, 30)  # a partial interval (allow_partials)
            rel = f"s.p{n}"
            parent_rows.append(row(low, max(low, high), kind, at, details, relation=rel))
        upstream.append((f"p{n}", parent_config, parent_rows))
    rebuild = draw(st.integers(0, 9)) == 0
    signal = point(-2, 30) if draw(st.integers(0, 4)) == 0 else None
    return Case(config, execution_time, rows, run_range, rebuild, upstream, signal)


class TestJinjaPlannerProperty:
    @settings(
        max_examples=int(os.environ.get("VULCAN_PLAN_EXAMPLES", "300")),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(cases())
    def test_jinja_plan_equals_python_plan(self, case: Case) -> None:
        check([case])
