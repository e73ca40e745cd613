"""planning/upstream.sql: the parents found on dbt's graph, what a parent has not made ready
(against the oracle's Upstream), a signal's statement and its answers, the run's log line."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta
from typing import Any

import pytest

from tests.oracle.config import validate
from tests.oracle.planning import FAR_FUTURE, IntervalSignal, Upstream
from tests.oracle.state import RelationState, StateRow
from tests.support.macro_harness import CompilerError, FakeResult, Harness, squash

EPOCH = datetime(1970, 1, 1)
TR = "incremental_by_time_range"


def us(value: datetime) -> int:
    return (value - EPOCH) // timedelta(microseconds=1)


def node(name: str, materialized: str, parents: list[str], **config: Any) -> dict[str, Any]:
    return {
        "unique_id": f"model.p.{name}",
        "name": name,
        "resource_type": "model",
        "schema": "s",
        "alias": name,
        "config": {"materialized": materialized, **config},
        "depends_on": {"nodes": [f"model.p.{p}" if "." not in p else p for p in parents]},
    }


_H = Harness()  # one per module: loading the macros takes seconds


def harness(nodes: list[dict[str, Any]] | None = None) -> Harness:
    """The module's harness with `nodes` as dbt's graph, no statement recorded."""
    _H.context["graph"] = {"nodes": {n["unique_id"]: n for n in nodes or []}}
    _H.statements.clear()
    _H.query_results.clear()
    return _H


def test_parents_are_the_nearest_interval_models_through_anything_else() -> None:
    nodes = [
        node("hourly", TR, ["source.p.raw.events"], start="2025-01-01"),
        node("view_of_hourly", "view", ["hourly"]),
        node("eph", "ephemeral", ["view_of_hourly", "seed.p.s"]),
        node("keyed", "incremental_by_unique_key", ["hourly"]),  # no start: no intervals
        node("monthly", TR, ["hourly"], start="2025-01-01"),
        node("table_of_monthly", "table", ["monthly"]),
        node("child", TR, ["eph", "keyed", "table_of_monthly", "hourly"], start="2025-01-01"),
    ]
    h = harness(nodes)
    found = h.call("vulcan_upstream_models", nodes[-1])
    assert [n["name"] for n in found] == ["hourly", "monthly"]
    assert h.call("vulcan_upstream_keys", found) == ["s.hourly", "s.monthly"]
    assert h.call("vulcan_upstream_models", nodes[0]) == []


def row(start: datetime, end: datetime, kind: str = "processed", at: int = 0) -> StateRow:
    return StateRow("s.p", start, end, kind, "fp", "inv", datetime(2030, 1, 1, 0, 0, at), at, "")


def log_row(r: StateRow) -> dict[str, Any]:
    return {
        "relation": r.relation,
        "model_id": "",
        "start": us(r.start),
        "end": us(r.end),
        "row_type": r.kind,
        "fingerprint": r.fingerprint,
        "invocation_id": r.invocation_id,
        "at": us(r.recorded_at),
        "seq": r.seq,
        "details": r.details,
    }


@pytest.mark.parametrize(
    ("config", "rows", "expected"),
    [
        # an hourly parent processed to 18:00 (and a partial hour): waits from 18:00
        (
            {"interval_unit": "hour", "start": "2025-04-01"},
            [
                row(datetime(2025, 4, 1), datetime(2025, 4, 2, 18)),
                row(datetime(2025, 4, 2, 18), datetime(2025, 4, 2, 18, 30), at=1),
            ],
            [(datetime(2025, 4, 2, 18), FAR_FUTURE)],
        ),
        # a monthly parent with a hole and an end: the hole's month, nothing after its end
        (
            {"interval_unit": "month", "start": "2025-01-01", "end": "2025-05-31"},
            [
                row(datetime(2025, 1, 1), datetime(2025, 2, 1)),
                row(datetime(2025, 3, 1), datetime(2025, 4, 10), at=1),
            ],
            [
                (datetime(2025, 2, 1), datetime(2025, 3, 1)),
                (datetime(2025, 4, 1), datetime(2025, 6, 1)),
            ],
        ),
        # never run: everything from its start
        ({"start": "2025-01-01"}, [], [(datetime(2025, 1, 1), FAR_FUTURE)]),
    ],
)
def test_unready_equals_the_oracle(
    config: dict[str, Any], rows: list[StateRow], expected: list[tuple[datetime, datetime]]
) -> None:
    cfg = validate("p", TR, {"time_column": "d", **config})
    oracle = Upstream("p", cfg, RelationState(tuple(rows))).unready()
    assert oracle == expected
    got = harness().call(
        "_vulcan_upstream_unready", dataclasses.asdict(cfg), [log_row(r) for r in rows]
    )
    assert got == [[us(s), us(e)] for s, e in expected]


def test_ignore_upstream_names_a_parent() -> None:
    nodes = [node("hourly", TR, [], start="2025-01-01")]
    cfg = dataclasses.asdict(validate("child", TR, {"time_column": "d", "start": "2025-01-01"}))
    cfg["ignore_upstream"] = ["hourly_x"]
    with pytest.raises(CompilerError) as raised:
        harness(nodes).call("vulcan_upstream_waits", cfg, nodes, {})
    assert str(raised.value) == (
        "Invalid config for model 'child': ignore_upstream: 'hourly_x' is not a dbt-vulcan "
        "model with intervals that it reads; it reads: hourly"
    )
    cfg["ignore_upstream"] = ["hourly"]
    assert harness(nodes).call("vulcan_upstream_waits", cfg, nodes, {}) == []
    cfg["ignore_upstream"], cfg["wait_for_upstream"] = [], False
    assert harness(nodes).call("vulcan_upstream_waits", cfg, nodes, {}) == []


START, END = datetime(2025, 4, 1), datetime(2025, 4, 3)
SIGNAL = "select max(loaded_at) from raw.loads where day <= @end_ds"
SQL = squash(
    "select to_json(named_struct('v', (select max(loaded_at) from raw.loads where day <= "
    "'2025-04-02')), map('timeZone', 'UTC', 'timestampFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS', "
    "'dateFormat', 'yyyy-MM-dd')) as answer"
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"v":true}', None),
        ('{"v":false}', START),
        ("{}", START),  # NULL
        (None, START),
        ('{"v":"2025-04-02 18:00:00.000000"}', datetime(2025, 4, 2, 18)),
        ('{"v":"2025-04-02"}', datetime(2025, 4, 2)),
        ('{"v":"2025-04-05 00:00:00.000000"}', None),  # ready past the range
        ('{"v":"2025-03-01"}', START),
    ],
)
def test_a_signal_is_one_statement_and_its_answers(answer: str | None, expected: Any) -> None:
    h = harness()
    h.query_results[SQL] = FakeResult([(answer,)])
    cfg = {"model": "m", "ready_when": SIGNAL}
    got = h.call(
        "vulcan_signal_ready_until", cfg, "s.m", us(START), us(END), datetime(2025, 4, 3, 0, 5)
    )
    assert h.statements == [SQL]
    assert got == (None if expected is None else us(expected))


def test_a_signal_answering_something_else_is_an_error() -> None:
    h = harness()
    h.query_results[SQL] = FakeResult([('{"v":42}',)])
    with pytest.raises(CompilerError) as raised:
        h.call(
            "vulcan_signal_ready_until",
            {"model": "m", "ready_when": SIGNAL},
            "s.m",
            us(START),
            us(END),
            START,
        )
    assert str(raised.value) == (
        "Model 'm': ready_when answered {\"v\":42}; a signal answers true, false, NULL, a date "
        "or a timestamp"
    )


def test_a_signal_names_what_dbt_resolves_at_run_time() -> None:
    h = harness()
    h.context["source"] = lambda s, t: f"cat.{s}_schema.{t}"
    h.context["ref"] = lambda *names: "cat.s." + "_".join(names)
    text = (
        "select max(a.at) >= @end_ts from {{ source('raw', 'loads') }} a "
        "join {{ref(\"other\")}} b join {{- ref('pkg' , 'm2') -}} c where a.x <> {{ this }}"
    )
    got = h.call(
        "vulcan_signal_query", {"model": "m", "k": text}, "k", "cat.s.m", us(START), us(END), START
    )
    assert got == (
        "select max(a.at) >= '2025-04-02 23:59:59.999999' from "
        "cat.raw_schema.loads a join cat.s.other b join cat.s.pkg_m2 c where a.x <> cat.s.m"
    )


@pytest.mark.parametrize(
    "jinja", ["{{ var('x') }}", "{% if true %}", "{{ source(raw, 'loads') }}", "{# c #}"]
)
def test_other_jinja_in_a_signal_is_an_error_naming_the_key(jinja: str) -> None:
    with pytest.raises(CompilerError) as raised:
        harness().call(
            "vulcan_signal_resolve",
            {"model": "m", "ready_intervals": f"select 1 {jinja}"},
            "ready_intervals",
            "s.m",
        )
    assert str(raised.value) == (
        f"Invalid config for model 'm': ready_intervals: {jinja!r} is not rendered at run time; "
        "a signal's SQL may name {{ source('s', 't') }}, {{ ref('m') }} or {{ this }} (other "
        "Jinja: build the string in config())"
    )


PER_INTERVAL = "select distinct to_date(at) from raw.events where at >= @start_ts"
PER_INTERVAL_SQL = squash(
    "select to_json(named_struct('v', collect_set(ready_at)), map('timeZone', 'UTC', "
    "'timestampFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS', 'dateFormat', 'yyyy-MM-dd')) as answer "
    "from (select distinct to_date(at) from raw.events where at >= "
    "'2025-04-01 00:00:00') as ready_intervals(ready_at)"
)


@pytest.mark.parametrize(
    ("unit", "answer"),
    [
        ("day", ["2025-04-02", "2025-04-02", "2025-03-01"]),
        ("day", ["2025-04-01 23:59:59.999999", "2025-04-02 00:00:00.000000"]),
        ("day", []),
        ("hour", ["2025-04-01 05:30:00.000000", "2025-04-02", "2025-04-02 01:00:00.000000"]),
        ("month", ["2025-04-20"]),
        ("day", ["2025-04-03 00:00:00.000000", "2025-05-01"]),
    ],
)
def test_a_per_interval_signal_holds_back_the_intervals_without_a_time(
    unit: str, answer: list[str]
) -> None:
    h = harness()
    h.query_results[PER_INTERVAL_SQL] = FakeResult([(json.dumps({"v": answer}),)])
    cfg = {"model": "m", "ready_intervals": PER_INTERVAL}
    config = {"time_column": "d", "start": "2025-01-01", "interval_unit": unit}
    schedule = validate("m", TR, config).schedule()
    geometry = h.call("vulcan_unit_geometry", unit, 0)
    got = h.call(
        "vulcan_signal_unready", cfg, "s.m", us(START), us(END), datetime(2025, 4, 3), geometry
    )
    assert h.statements == [PER_INTERVAL_SQL]
    times = [datetime.fromisoformat(t) for t in answer]
    expected = IntervalSignal(schedule, times, low=START).unready()
    assert got == [[us(a), us(b)] for a, b in expected]


def test_a_per_interval_signal_returning_something_else_is_an_error() -> None:
    h = harness()
    h.query_results[PER_INTERVAL_SQL] = FakeResult([('{"v":["2025-04-02",7]}',)])
    geometry = h.call("vulcan_unit_geometry", "day", 0)
    with pytest.raises(CompilerError) as raised:
        h.call(
            "vulcan_signal_unready",
            {"model": "m", "ready_intervals": PER_INTERVAL},
            "s.m",
            us(START),
            us(END),
            START,
            geometry,
        )
    assert str(raised.value) == (
        "Model 'm': ready_intervals returned 7; its query returns one column of dates or "
        "timestamps (the intervals holding one are ready)"
    )


def test_the_run_s_log_line() -> None:
    held = {
        "ranges": [[us(datetime(2025, 4, 2)), us(datetime(2025, 4, 3))]],
        "intervals": 1,
        "waiting": [
            {"name": "hourly_events", "since": us(datetime(2025, 4, 2, 18))},
            {"name": "signal ready_when", "since": us(datetime(2025, 4, 2))},
        ],
    }
    got = harness().call(
        "vulcan_held_back_message", {"model": "daily", "interval_unit": "day"}, held
    )
    assert got == (
        "Model 'daily': 1 interval held back (2025-04-02 - 2025-04-02), waiting for "
        "`hourly_events` (not processed from 2025-04-02 18:00:00), the signal `ready_when` (not "
        "ready from 2025-04-02 00:00:00); a later run picks them up"
    )
    # a run that holds nothing back does not call it (engine/materialize.sql)
