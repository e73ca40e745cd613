"""The run-operations in Jinja (macros/operations/), checked against their Python oracle
(tests/oracle/): model selection with dbt's graph operators (operations.selection, also on
hypothesis-generated DAGs), the log's replay and compaction
(state.replay, state.compact, state.RelationState and values_sql), the reports of plan and
status (operations.build_reports, with planning.plan_model's batches; status_facts) and
history (operations.history_runs), by what they say, and what vulcan_restate records
(operations.restatements, along the DAG too), on hypothesis-generated logs; the reports'
wording by example."""

from __future__ import annotations

from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbt.adapters.vulcan.timeutil import VulcanConfigError, format_ts
from tests.oracle import config as model_config
from tests.oracle import operations
from tests.oracle.planning import RunVars, plan_model
from tests.oracle.state import (
    RelationState,
    StateRow,
    compact,
    kept_relations,
    merge_ranges,
    values_sql,
)
from tests.support.macro_harness import (
    CompilerError,
    FakeResult,
    Harness,
    appended_values,
    is_state_append,
    squash,
)
from tests.support.state_logs import (
    RECORDED,
    T0,
    by_key,
    iv,
    logs,
    micros,
    states,
)

_H = Harness()


def node(
    name: str, config: dict[str, Any], tags: list[str] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "name": name,
        "unique_id": f"model.p.{name}",
        "resource_type": "model",
        "schema": "Sales",
        "alias": name,
        "database": None,
        "tags": tags or [],
        "raw_code": f"select * from src_{name}",
        "language": "sql",
        "config": config,
        "unrendered_config": {},
        **extra,
    }


TR = "incremental_by_time_range"
NODES = [
    node(
        "daily",
        {"materialized": TR, "time_column": "d", "start": "2025-01-01", "batch_size": 3},
        ["sales"],
    ),
    node(
        "hourly",
        {
            "materialized": TR,
            "time_column": "t",
            "cron": "0 * * * *",
            "start": "2025-01-02 05:00",
            "lookback": 2,
        },
        ["sales", "fine"],
    ),
    node(
        "monthly",
        {"materialized": TR, "time_column": "d", "interval_unit": "month", "start": "2025-01-15"},
    ),
    node(
        "weekly",
        {"materialized": TR, "time_column": "d", "cron": "@weekly", "start": "2025-01-01"},
    ),
    node(
        "bounded",
        {
            "materialized": TR,
            "time_column": "d",
            "start": "2025-01-03",
            "end": "2025-02-10",
            "batch_size": 5,
        },
    ),
    node(
        "partial",
        {
            "materialized": TR,
            "time_column": "d",
            "interval_unit": "day",
            "cron": "0 */6 * * *",
            "allow_partials": True,
            "start": "2025-01-01",
        },
    ),
    node("keyed", {"materialized": "incremental_by_unique_key", "unique_key": ["id"]}),
    node(
        "keyed_start",
        {"materialized": "incremental_by_unique_key", "unique_key": "id", "start": "2025-01-05"},
    ),
    node("broken", {"materialized": TR, "start": "2025-01-01", "lookback": -1}),
    node("locked", {"materialized": "incremental_unmanaged", "disable_restatement": True}),
    # forward_only: a pending full restatement does not rebuild them
    node(
        "keyed_fwd",
        {
            "materialized": "incremental_by_unique_key",
            "unique_key": "id",
            "start": "2025-01-05",
            "forward_only": True,
        },
    ),
    node("log_fwd", {"materialized": "incremental_unmanaged", "forward_only": True}),
]
OTHERS = [
    {**node("plain", {"materialized": "table"})},
    {**node("seed_like", {"materialized": TR}), "resource_type": "seed"},
]
KEYS = [operations.relation_key(n) for n in NODES]


# ----------------------------------------------------------------------- the reports


@st.composite
def situations(draw: Any) -> dict[str, Any]:
    rows = draw(logs(KEYS, max_rows=24))
    # a table missing or present per model
    exists = {n["unique_id"]: draw(st.booleans()) for n in NODES}
    execution = T0 + timedelta(
        days=draw(st.sampled_from([2, 20, 45, 90, 140])),
        minutes=draw(st.sampled_from([0, 0, 30, 397, 1439])),
    )
    chosen = draw(
        st.lists(st.sampled_from(NODES), min_size=1, max_size=5, unique_by=lambda n: n["name"])
    )
    return {"rows": rows, "exists": exists, "execution": execution, "nodes": chosen}


def py_reports(s: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    run_vars = RunVars(execution_time=s["execution"])
    st_ = states(s["rows"])
    return operations.build_reports(s["nodes"], st_, s["exists"], run_vars), st_


def jinja_reports(s: dict[str, Any], with_plans: bool) -> Any:
    run_vars = RunVars(execution_time=s["execution"])
    st_ = states(s["rows"])
    plans = {}
    for n in s["nodes"] if with_plans else []:
        try:
            cfg = model_config.settings(n, n["config"]["materialized"])
        except VulcanConfigError:
            continue
        state = st_.get(operations.relation_key(n), RelationState(()))
        present = s["exists"][n["unique_id"]]
        plans[n["unique_id"]] = plan_model(
            cfg, n["raw_code"], state, run_vars, not present
        ).as_dict()
    return _H.call(
        "_vulcan_op_reports",
        s["nodes"],
        s["exists"],
        by_key(s["rows"]),
        {"execution_time": s["execution"]},
        plans,
    )


def py_meaning(report: Any, with_plans: bool) -> dict[str, Any]:
    """What a report says, not how its text says it (ranges in epoch microseconds, merged)."""
    if report.error:
        return {"name": report.name, "kind": report.kind, "error": True}
    return {
        "name": report.name,
        "kind": report.kind,
        "error": False,
        "tracked": report.tracked,
        "date_grain": report.date_grain,
        "exists": report.exists,
        "processed": iv(merge_ranges(report.processed)),
        "missing": iv(merge_ranges(report.missing)),
        "pending_restatements": iv(merge_ranges(report.pending_restatements)),
        "full_restatement": report.full_restatement,
        "batches": [(b["start"], b["end"], b["intervals"]) for b in report.batches]
        if with_plans
        else [],
        "changed": report.changed and with_plans,
    }


def jinja_meaning(report: dict[str, Any]) -> dict[str, Any]:
    if report["error"]:
        return {"name": report["name"], "kind": report["kind"], "error": True}
    return {
        "name": report["name"],
        "kind": report["kind"],
        "error": False,
        "tracked": report["tracked"],
        "date_grain": report["date_grain"],
        "exists": report["exists"],
        "processed": [list(r) for r in report["processed"]],
        "missing": [list(r) for r in report["missing"]],
        "pending_restatements": [list(r) for r in report["pending_restatements"]],
        "full_restatement": report["full_restatement"],
        "batches": [(b["start"], b["end"], b["intervals"]) for b in report["batches"]],
        "changed": report["changed"],
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(s=situations(), with_plans=st.booleans())
def test_reports_mean_what_build_reports_says(s: dict[str, Any], with_plans: bool) -> None:
    """The reports plan (with the models' plans) and status (without) print, compared by what
    they say: per model an invalid config, or whether it is tracked, its table exists, what is
    processed, missing and restated (a full restatement pending), the next run's batches and
    whether the model changed since its intervals were recorded."""
    reports, _ = py_reports(s)
    got = jinja_reports(s, with_plans)
    assert [jinja_meaning(r) for r in got] == [py_meaning(r, with_plans) for r in reports]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    s=situations(),
    since=st.none() | st.datetimes(datetime(2024, 12, 1), datetime(2025, 5, 1)),
    until=st.none() | st.datetimes(datetime(2025, 1, 1), datetime(2025, 6, 1)),
)
def test_status_facts_equal_the_oracle(
    s: dict[str, Any], since: datetime | None, until: datetime | None
) -> None:
    """What status says per model: the coverage within since .. until, its gaps, what is
    missing and the latest run."""
    reports, st_ = py_reports(s)
    expected = operations.status_facts(reports, st_, s["nodes"], since, until)
    got = _H.call("_vulcan_op_status_facts", jinja_reports(s, False), since, until)
    assert [(f["name"], bool(f["error"]), f["covered"], f["gaps"], f["missing"]) for f in got] == [
        (e.name, bool(e.error), iv(e.covered), iv(e.gaps), iv(e.missing)) for e in expected
    ]
    assert [(f["last_run"], f["invocation"]) for f in got] == [
        (None if e.last_run is None else micros(e.last_run), e.invocation) for e in expected
    ]


@settings(max_examples=60, deadline=None)
@given(rows=logs(KEYS[:3], max_rows=24), limit=st.sampled_from([10, 2, 1, 0, -1]))
def test_history_runs_equal_the_oracle(rows: list[StateRow], limit: int) -> None:
    """What history says per model: its runs latest first, at most `limit`, each with what it
    processed (and in how many batches), the untracked runs, what it removed or restated."""
    nodes = NODES[:3]
    got = _H.call("_vulcan_op_history_runs", nodes, by_key(rows), limit)
    expected = operations.history_runs(nodes, states(rows), limit)
    assert [
        (m["name"], [(r["at"], r["invocation"], r["processed"], r["batches"]) for r in m["runs"]])
        for m in got
    ] == [
        (name, [(micros(r.at), r.invocation, iv(r.processed), r.batches) for r in runs])
        for name, runs in expected
    ]
    assert [[(r["ran"], r["removed"], r["restated"]) for r in m["runs"]] for m in got] == [
        [([micros(t) for t in r.ran], iv(r.removed), r.restated) for r in runs]
        for _, runs in expected
    ]


# The reports' wording is the Jinja's alone (the oracle checks what they say): one example
# of each, with every kind of line: a restated and missing range, a missing table, a model
# changed since its intervals were recorded, an untracked model, an invalid config.
DAY = timedelta(days=1)
HOUR = timedelta(hours=1)
DAILY, MONTHLY, KEYED, BROKEN = (
    next(n for n in NODES if n["name"] == name) for name in ("daily", "monthly", "keyed", "broken")
)


def _example_row(
    node: dict[str, Any], span: tuple[int, int], kind: str, inv: str, hours: int, details: str = ""
) -> StateRow:
    start, end = T0 + span[0] * DAY, T0 + span[1] * DAY
    return StateRow(
        operations.relation_key(node),
        start,
        end,
        kind,
        "f1",
        inv,
        RECORDED + hours * HOUR,
        hours,
        "model.p.x",
        details,
    )


EXAMPLE_ROWS = [
    _example_row(DAILY, (0, 4), "processed", "inv-a", 0),
    _example_row(DAILY, (1, 2), "removed", "inv-b", 1, '{"restate": true, "full": false}'),
    _example_row(KEYED, (5, 5), "processed", "inv-c", 2),
]
EXAMPLE = {
    "rows": EXAMPLE_ROWS,
    "exists": {n["unique_id"]: n is not MONTHLY for n in NODES},
    "execution": T0 + 5 * DAY,
    "nodes": [DAILY, MONTHLY, KEYED, BROKEN],
}

PLAN_TEXT = """\
vulcan plan (execution time 2025-01-06 00:00:00)

Models needing backfill (missing dates):
└── daily: 2025-01-02 - 2025-01-02, 2025-01-05 - 2025-01-05

Models the next run builds from scratch:
  monthly (incremental_by_time_range): table missing

Models changed since their intervals were recorded:
  daily: processed intervals are kept; restate to recompute
  keyed: processed intervals are kept; restate to recompute

Details:
  daily [incremental_by_time_range]
    processed: 2025-01-01 - 2025-01-01, 2025-01-03 - 2025-01-04
    missing:   2025-01-02 - 2025-01-02, 2025-01-05 - 2025-01-05
    restated, pending: 2025-01-02 - 2025-01-02
    next run: 2 batches
      [1/2] 2025-01-02 - 2025-01-02
      [2/2] 2025-01-05 - 2025-01-05
  monthly [incremental_by_time_range]
    processed: none
    missing:   none
    next run: 0 batches
  keyed [incremental_by_unique_key]
    not interval-tracked (no start): the next run processes the query once

Error in broken: Invalid config for model 'broken' (incremental_by_time_range), 2 problem(s):
  - time_column: required for incremental_by_time_range
  - lookback: -1 is not an integer >= 0"""

STATUS_TEXT = """\
vulcan status

daily [incremental_by_time_range]
  coverage: 2025-01-03 - 2025-01-04
  gaps:     none
  missing:  2025-01-02 - 2025-01-02, 2025-01-05 - 2025-01-05
  last run: 2025-06-01 08:30:00 (invocation inv-a)

monthly [incremental_by_time_range]
  coverage: none
  gaps:     none
  missing:  none
  last run: never

keyed [incremental_by_unique_key]
  intervals: not tracked (each run computes the whole query; no start)
  last run: 2025-06-01 10:30:00 (invocation inv-c)

broken [incremental_by_time_range]
  error: Invalid config for model 'broken' (incremental_by_time_range), 2 problem(s):
  - time_column: required for incremental_by_time_range
  - lookback: -1 is not an integer >= 0"""

HISTORY_TEXT = """\
vulcan history

daily
  2025-06-01 09:30:00  inv-b  restated 2025-01-02 - 2025-01-02
  2025-06-01 08:30:00  inv-a  processed 2025-01-01 - 2025-01-04 (1 batches)

keyed
  2025-06-01 10:30:00  inv-c  ran the whole query (execution time 2025-01-06 00:00:00)

monthly
  no runs recorded"""


def test_the_reports_wording() -> None:
    plan = _H.call("_vulcan_op_format_plan", jinja_reports(EXAMPLE, True), EXAMPLE["execution"])
    assert plan == PLAN_TEXT
    status = _H.call("_vulcan_op_format_status", jinja_reports(EXAMPLE, False), T0 + DAY, None)
    assert status == STATUS_TEXT
    nodes = [DAILY, KEYED, MONTHLY]
    assert _H.call("_vulcan_op_format_history", nodes, by_key(EXAMPLE_ROWS), 10) == HISTORY_TEXT


@pytest.mark.parametrize(
    ("limit", "expected"),
    [(10, 10), ("3", 3), (" +4 ", 4), ("1_0", 10), (2.7, 2), (True, 1), ("-1", -1)],
)
def test_history_limit(limit: Any, expected: int) -> None:
    assert _H.call("_vulcan_op_limit", limit) == expected == int(limit)


@pytest.mark.parametrize("limit", ["ten", None, "1.5", [1]])
def test_history_limit_refused(limit: Any) -> None:
    with pytest.raises(CompilerError) as got:
        _H.call("_vulcan_op_limit", limit)
    assert str(got.value) == f"limit: {limit!r} is not a whole number"


# ------------------------------------------------------------------------ selection


def _ids(nodes: list[dict[str, Any]]) -> list[str]:
    return [n["unique_id"] for n in nodes]


def assert_select_agrees(graph: list[dict[str, Any]], select: Any) -> list[str]:
    """The Jinja selects what the oracle selects, in the same order, with the same models
    named (or fails with the same message); the selected names."""
    try:
        expected = operations.selection(graph, select)
    except VulcanConfigError as exc:
        with pytest.raises(CompilerError) as got:
            _H.call("_vulcan_select", graph, select)
        assert str(got.value) == str(exc)
        return []
    got = _H.call("_vulcan_select", graph, select)
    assert _ids(got["nodes"]) == _ids(expected.nodes)
    assert set(got["named"]) == expected.named
    assert _ids(_H.call("_vulcan_select", graph, select)["nodes"]) == _ids(expected.nodes)
    return [n["name"] for n in got["nodes"]]


@pytest.mark.parametrize(
    "select",
    [
        None,
        "",
        [],
        "daily",
        "tag:sales",
        "hourly tag:sales daily",
        ["monthly", "tag:fine"],
        "tag:nothing",
        "plain",
        "daily nosuch tag:x",
        "seed_like",
    ],
)
def test_select_equals_select_nodes(select: Any) -> None:
    assert_select_agrees(OTHERS + list(reversed(NODES)), select)


def test_select_with_no_model() -> None:
    with pytest.raises(CompilerError) as got:
        _H.call("_vulcan_select", OTHERS, "daily")
    assert str(got.value) == "select: no dbt-vulcan model matches daily; models: (none)"


def chained(
    name: str,
    parents: list[str],
    config: dict[str, Any] | None = None,
    tags: list[str] | None = None,
    resource_type: str = "model",
) -> dict[str, Any]:
    return {
        **node(name, config or {"materialized": "view"}, tags),
        "unique_id": f"{resource_type}.p.{name}",
        "resource_type": resource_type,
        "depends_on": {"nodes": parents, "macros": []},
    }


# raw (a seed) -> hourly_src -> hourly_view (a plain view) -> daily_src -> monthly_src
# -> keyed_src; daily_src -> locked_src (disable_restatement); raw -> side; a test on daily_src
# and side
HOURLY_SRC = {
    "materialized": TR,
    "time_column": "t",
    "interval_unit": "hour",
    "start": "2025-01-01",
}
GRAPH = [
    chained("keyed_src", ["model.p.monthly_src"], {**NODES[6]["config"]}, ["tail"]),
    chained("raw", [], {"materialized": "seed"}, resource_type="seed"),
    chained(
        "locked_src",
        ["model.p.daily_src"],
        {
            "materialized": TR,
            "time_column": "d",
            "start": "2025-01-01",
            "disable_restatement": True,
        },
        ["locks"],
    ),
    chained("hourly_src", ["seed.p.raw"], HOURLY_SRC, ["src"]),
    chained("hourly_view", ["model.p.hourly_src"]),
    chained(
        "daily_src",
        ["model.p.hourly_view", "source.p.s.ext"],
        {"materialized": TR, "time_column": "d", "start": "2025-01-01"},
    ),
    chained(
        "monthly_src",
        ["model.p.daily_src"],
        {"materialized": TR, "time_column": "d", "interval_unit": "month", "start": "2025-01-01"},
        ["tail"],
    ),
    chained(
        "side", ["seed.p.raw"], {"materialized": TR, "time_column": "d", "start": "2025-01-01"}
    ),
    chained("not_null_d", ["model.p.daily_src", "model.p.side"], {}, resource_type="test"),
]


@pytest.mark.parametrize(
    ("select", "names"),
    [
        # every model: DAG order (a model after the models it depends on), then by name
        (None, ["hourly_src", "side", "daily_src", "locked_src", "monthly_src", "keyed_src"]),
        ("hourly_src+", ["hourly_src", "daily_src", "locked_src", "monthly_src", "keyed_src"]),
        ("monthly_src daily_src", ["daily_src", "monthly_src"]),
        # the view is one level: hourly_src's first-level descendants are no dbt-vulcan model
        ("hourly_src+1", ["hourly_src"]),
        ("hourly_src+2", ["hourly_src", "daily_src"]),
        ("hourly_src+0", ["hourly_src"]),
        ("+monthly_src", ["hourly_src", "daily_src", "monthly_src"]),
        ("1+monthly_src", ["daily_src", "monthly_src"]),
        ("3+monthly_src+1", ["hourly_src", "daily_src", "monthly_src", "keyed_src"]),
        ("+daily_src+", ["hourly_src", "daily_src", "locked_src", "monthly_src", "keyed_src"]),
        # @: the model, its descendants and all their ancestors (side is the test's parent)
        (
            "@daily_src",
            ["hourly_src", "side", "daily_src", "locked_src", "monthly_src", "keyed_src"],
        ),
        ("@monthly_src", ["hourly_src", "daily_src", "monthly_src", "keyed_src"]),
        ("tag:tail+", ["monthly_src", "keyed_src"]),
        ("tag:src+1 tag:locks", ["hourly_src", "locked_src"]),
        (["2+tag:locks"], ["daily_src", "locked_src"]),
        # a term may start at a seed or a plain model: what it reaches is selected
        ("raw+", ["hourly_src", "side", "daily_src", "locked_src", "monthly_src", "keyed_src"]),
        ("hourly_view+1", ["daily_src"]),
        ("raw+1", ["hourly_src", "side"]),
    ],
)
def test_graph_operators(select: Any, names: list[str]) -> None:
    assert assert_select_agrees(GRAPH, select) == names


@pytest.mark.parametrize(
    ("select", "message"),
    [
        ("nosuch+ hourly_src", "select: no dbt-vulcan model matches nosuch+"),
        ("raw hourly_view", "select: no dbt-vulcan model matches raw, hourly_view"),
        ("1+raw", "select: no dbt-vulcan model matches 1+raw"),
        ("not_null_d+ +raw", "select: no dbt-vulcan model matches not_null_d+, +raw"),
        ("tag:none+ x+y", "select: no dbt-vulcan model matches tag:none+, x+y"),
        ("@daily_src+", "select: '@' and '+' cannot be combined in @daily_src+"),
        ("nosuch 2+@x", "select: no dbt-vulcan model matches nosuch, 2+@x"),
        ("nosuch @2+x", "select: '@' and '+' cannot be combined in @2+x"),
    ],
)
def test_graph_operators_refused(select: str, message: str) -> None:
    models = "daily_src, hourly_src, keyed_src, locked_src, monthly_src, side"
    assert_select_agrees(GRAPH, select)
    with pytest.raises(CompilerError) as got:
        _H.call("_vulcan_select", GRAPH, select)
    assert str(got.value) in (message, f"{message}; models: {models}")


# random DAGs: names n0..n7 (a node depends only on earlier ones), in a shuffled graph order
KIND_CONFIGS = [
    {"materialized": TR, "time_column": "d", "start": "2025-01-01"},
    {"materialized": "incremental_by_unique_key", "unique_key": "id"},
    {"materialized": "incremental_unmanaged"},
    {"materialized": "view"},
    {"materialized": "table"},
]


@st.composite
def dags(draw: Any) -> list[dict[str, Any]]:
    count = draw(st.integers(1, 8))
    graph = []
    for i in range(count):
        resource = draw(st.sampled_from(["model", "model", "model", "model", "seed", "test"]))
        parents = draw(st.lists(st.integers(0, i - 1), max_size=3)) if i else []
        graph.append(
            chained(
                f"n{i}",
                [graph[p]["unique_id"] for p in parents]
                + draw(st.sampled_from([[], ["source.p.s"]])),
                draw(st.sampled_from(KIND_CONFIGS)),
                draw(st.lists(st.sampled_from(["a", "b"]), max_size=2, unique=True)),
                resource,
            )
        )
    return draw(st.permutations(graph))


def terms(names: list[str]) -> Any:
    """Terms over the graph's names: `+` / `N+` on either side or `@`; now and then an unknown
    name (refused)."""
    base = st.sampled_from([*names * 6, "tag:a", "tag:b", "tag:a", "tag:c", "n9", "+", "3"])
    up = st.sampled_from(["+", "", "1+", "", "2+", "0+"])
    down = st.sampled_from(["+", "", "+1", "+2", "+0", "+12"])
    return st.one_of(
        st.builds(lambda u, b, d: f"{u}{b}{d}", up, base, down),
        st.builds(lambda b: f"@{b}", base),
    )


@st.composite
def graph_selections(draw: Any) -> tuple[list[dict[str, Any]], Any]:
    graph = draw(dags())
    chosen = terms([n["name"] for n in graph])
    listed = st.lists(chosen, min_size=1, max_size=3)
    select = draw(st.sampled_from(["text", "list", "text", None]))
    if select is not None:
        select = draw(listed.map(" ".join) if select == "text" else listed)
    return graph, select


@settings(max_examples=200, deadline=None)
@given(case=graph_selections())
def test_graph_selection_equals_the_oracle(case: tuple[list[dict[str, Any]], Any]) -> None:
    """On random DAGs and terms, the Jinja selects what the oracle selects, in its order; and
    that order is a DAG order: no selected model comes before a model it depends on."""
    graph, select = case
    assert_select_agrees(graph, select)
    try:
        chosen = operations.select_nodes(graph, select)
    except VulcanConfigError:
        return
    by_id = {n["unique_id"]: n for n in graph}
    position = {n["unique_id"]: i for i, n in enumerate(chosen)}
    for n in chosen:
        ancestors, todo = set(), list(n["depends_on"]["nodes"])
        while todo:
            parent = todo.pop()
            if parent in by_id and parent not in ancestors:
                ancestors.add(parent)
                todo += by_id[parent]["depends_on"]["nodes"]
        assert all(position[a] < position[n["unique_id"]] for a in ancestors if a in position)


# -------------------------------------------------------------------------- restate


@pytest.mark.parametrize(
    ("names", "start", "end"),
    [
        (["daily"], "2025-01-02", "2025-01-03"),
        (["daily", "hourly"], "2025-01-02 05:30", "2025-01-02 07:10:00"),
        (["monthly", "weekly"], "2025-02-03", "2025-02-20"),
        (["keyed"], "2025-01-02", "2025-01-03"),
        (["keyed_start", "daily"], "2025-01-02 10:00", "2025-01-09"),
        (["daily"], "2025-13-01", "2025-01-02"),
        (["daily"], "2025-01-01", "x"),
        (["daily"], "2025-01-05", "2025-01-02"),
        (["daily"], "2025-01-02", "2025-01-02"),
        (["daily"], None, "2025-01-02"),
        (["daily"], 1735776000, "2025-01-04 00:00:00"),
        (["daily", "locked", "broken"], "2025-01-02", "2025-01-03"),
        (["locked"], "2025-01-02", "2025-01-03"),
        ([], "2025-01-02", "2025-01-03"),
    ],
)
def test_restatements_equal_the_oracle(names: list[str], start: Any, end: Any) -> None:
    nodes = [n for n in NODES if n["name"] in names]
    try:
        expected = operations.restatements(nodes, start, end)
    except VulcanConfigError as exc:
        with pytest.raises(CompilerError) as got:
            _H.call("_vulcan_op_restatements", nodes, start, end)
        assert str(got.value) == str(exc)
        return
    got = _H.call("_vulcan_op_restatements", nodes, start, end)
    assert [fact[:6] for fact in restatement_facts(got)] == [
        (r.relation, r.name, r.start, r.end, r.full, r.warning) for r in expected
    ]
    assert [r["model_id"] for r in got] == [n["unique_id"] for n in nodes]


def restatement_facts(items: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (
            f"{r['relation']['schema']}.{r['relation']['identifier']}".lower(),
            r["name"],
            r["start"],
            r["end"],
            r["full"],
            r["warning"],
            r["skipped"],
        )
        for r in items
    ]


@pytest.mark.parametrize(
    "select",
    ["hourly_src+", "raw+", "tag:src+ daily_src", "+locked_src", "locked_src hourly_src+", "@side"],
)
def test_cascade_restatements_equal_the_oracle(select: str) -> None:
    """A graph selection's restatements: each model aligned to its own unit, a full-history
    kind widened, a model with disable_restatement skipped when only reached, refused when
    named (every refusal first)."""
    chosen = operations.selection(GRAPH, select)
    start, end = "2025-01-03 10:30", "2025-01-03 11:00"
    try:
        expected = operations.restatements(chosen.nodes, start, end, chosen.named)
    except VulcanConfigError as exc:
        with pytest.raises(CompilerError) as got:
            _H.call("_vulcan_op_restatements", chosen.nodes, start, end, list(chosen.named))
        assert str(got.value) == str(exc)
        return
    got = _H.call("_vulcan_op_restatements", chosen.nodes, start, end, list(chosen.named))
    assert restatement_facts(got) == [
        (r.relation, r.name, r.start, r.end, r.full, r.warning, r.skipped) for r in expected
    ]


class _GraphContext:
    """The harness as a run-operation: the dbt graph, no table existing, printed lines kept."""

    def __init__(self, graph: list[dict[str, Any]]) -> None:
        self.graph = {"nodes": {n["unique_id"]: n for n in graph}}
        self.printed: list[str] = []

    def __enter__(self) -> _GraphContext:
        self.saved = _H.context["vulcan_create_state_table"]
        _H.context["graph"] = self.graph
        _H.context["print"] = self.printed.append
        _H.context["vulcan_create_state_table"] = lambda: ""
        _H.context["adapter"].get_relation = lambda **kw: None
        _H.statements.clear()
        return self

    def __exit__(self, *exc: object) -> None:
        _H.context.pop("graph")
        _H.context["print"] = lambda *a, **k: ""
        _H.context["vulcan_create_state_table"] = self.saved
        del _H.context["adapter"].get_relation


def test_restate_a_cascade_records_each_model_and_names_the_skipped() -> None:
    """vulcan_restate with `hourly_src+`: the range removed for the model and every dbt-vulcan
    model downstream (through a plain view), each aligned to its unit, in DAG order: hours,
    the day, the month, the whole history of a unique-key model; locked_src (disable_restatement)
    skipped and named, not refused."""
    with _GraphContext(GRAPH) as ctx:
        _H.call("vulcan_restate", "hourly_src+", "2025-01-03 10:30", "2025-01-03 11:00")
    [insert] = _H.statements
    values = appended_values(insert)
    restate = '{"restate": true, "full": false}'
    expected = [
        ("hourly_src", "2025-01-03 10:00:00", "2025-01-03 11:00:00", restate),
        ("daily_src", "2025-01-03 00:00:00", "2025-01-04 00:00:00", restate),
        ("monthly_src", "2025-01-01 00:00:00", "2025-02-01 00:00:00", restate),
        (
            "keyed_src",
            "1900-01-01 00:00:00",
            "9999-12-31 00:00:00",
            restate.replace("false", "true"),
        ),
    ]
    at = 0
    for name, low, high, details in expected:
        row = f"('sales.{name}', 'model.p.{name}', '{low}', '{high}', 'removed', '', "
        assert row in values, name
        assert values.index(row) >= at, name  # in DAG order
        at = values.index(row)
        assert details in values[at:].split("),")[0]
    assert "locked_src" not in values
    assert ctx.printed == [
        "Restated hourly_src: 2025-01-03 10:00:00 - 2025-01-03 11:00:00; the next dbt run "
        "recomputes it",
        "Restated daily_src: 2025-01-03 00:00:00 - 2025-01-04 00:00:00; the next dbt run "
        "recomputes it",
        "Skipped locked_src: disable_restatement: true (reached through a graph operator, not "
        "named in select)",
        "Restated monthly_src: 2025-01-01 00:00:00 - 2025-02-01 00:00:00; the next dbt run "
        "recomputes it",
        "Warning: model 'keyed_src' (incremental_by_unique_key) only supports full-history "
        "restatement: the requested range 2025-01-03 - 2025-01-03 was widened to the whole "
        "history from 1900-01-01 00:00:00",
        "Restated keyed_src: whole history; the next dbt run recomputes it",
    ]


@pytest.mark.parametrize(
    ("select", "message"),
    [
        # named (by name or by tag): refused, as a model named alone is; nothing recorded
        (
            "hourly_src+ locked_src",
            "vulcan_restate refused:\n  - disable_restatement: true does not allow restating "
            "model 'locked_src' (incremental_by_time_range); set disable_restatement false to "
            "allow it",
        ),
        (
            "tag:locks+",
            "vulcan_restate refused:\n  - disable_restatement: true does not allow restating "
            "model 'locked_src' (incremental_by_time_range); set disable_restatement false to "
            "allow it",
        ),
        (
            "hourly_view+ nosuch+",
            "select: no dbt-vulcan model matches nosuch+; models: daily_src, hourly_src, "
            "keyed_src, locked_src, monthly_src, side",
        ),
    ],
)
def test_restate_a_cascade_refused(select: str, message: str) -> None:
    with _GraphContext(GRAPH) as ctx, pytest.raises(CompilerError) as got:
        _H.call("vulcan_restate", select, "2025-01-03", "2025-01-04")
    assert str(got.value) == message
    assert ctx.printed == []
    assert not any(is_state_append(s) for s in _H.statements)


def test_status_and_plan_take_graph_operators() -> None:
    """Every operation selects through _vulcan_operation_models: status and plan with `+x`
    report the model and its dbt-vulcan ancestors, in DAG order."""
    read = _H.context["vulcan_log_read"]
    _H.context["vulcan_log_read"] = lambda keys=None: {}
    try:
        with _GraphContext(GRAPH) as ctx:
            _H.call("vulcan_status", "+monthly_src")
            _H.call("vulcan_plan", "+monthly_src", None, None, "2025-01-02")
    finally:
        _H.context["vulcan_log_read"] = read
    status, plan = ctx.printed
    assert [line for line in status.splitlines() if line.endswith("]")] == [
        "hourly_src [incremental_by_time_range]",
        "daily_src [incremental_by_time_range]",
        "monthly_src [incremental_by_time_range]",
    ]
    details = plan.split("Details:\n")[1]
    assert [line.strip() for line in details.splitlines() if line.endswith("]")] == [
        "hourly_src [incremental_by_time_range]",
        "daily_src [incremental_by_time_range]",
        "monthly_src [incremental_by_time_range]",
    ]


def test_restate_records_removed_rows_and_prints_the_messages() -> None:
    printed: list[str] = []
    nodes = [n for n in NODES if n["name"] in ("daily", "keyed")]
    select = _H.context["_vulcan_operation_models"]
    _H.context["print"] = printed.append
    _H.context["_vulcan_operation_models"] = lambda select: {
        "nodes": nodes,
        "named": [n["unique_id"] for n in nodes],
        "exists": {},
        "virtual": None,
    }
    try:
        _H.statements.clear()
        _H.call("vulcan_restate", "daily keyed", "2025-01-02", "2025-01-03")
    finally:
        _H.context["print"] = lambda *a, **k: ""
        _H.context["_vulcan_operation_models"] = select
    [insert] = _H.statements
    assert is_state_append(insert)
    assert "'sales.daily', 'model.p.daily', '2025-01-02 00:00:00', '2025-01-04 00:00:00'" in insert
    assert "'removed', '', " in insert
    assert '{"restate": true, "full": false}' in insert
    assert '{"restate": true, "full": true}' in insert
    assert printed == [
        "Restated daily: 2025-01-02 00:00:00 - 2025-01-04 00:00:00; the next dbt run recomputes it",
        "Warning: model 'keyed' (incremental_by_unique_key) only supports full-history "
        "restatement: the requested range 2025-01-02 - 2025-01-03 was widened to the whole "
        "history from 1900-01-01 00:00:00",
        "Restated keyed: whole history; the next dbt run recomputes it",
    ]


# fsrc (a time range) -> fwd_log (unmanaged), fwd_keyed (unique key with start), fwd_daily (a
# time range), all three forward_only; fsrc -> both (unmanaged, forward_only and
# disable_restatement); fsrc -> open_log (unmanaged, forward_only false)
FORWARD = [
    chained("fsrc", [], {"materialized": TR, "time_column": "d", "start": "2025-01-01"}),
    chained(
        "fwd_log",
        ["model.p.fsrc"],
        {"materialized": "incremental_unmanaged", "forward_only": True},
        ["fwd"],
    ),
    chained(
        "fwd_keyed",
        ["model.p.fsrc"],
        {
            "materialized": "incremental_by_unique_key",
            "unique_key": "id",
            "start": "2025-01-02",
            "forward_only": True,
        },
    ),
    chained(
        "fwd_daily",
        ["model.p.fsrc"],
        {"materialized": TR, "time_column": "d", "start": "2025-01-01", "forward_only": True},
        ["fwd"],
    ),
    chained(
        "both",
        ["model.p.fsrc"],
        {
            "materialized": "incremental_unmanaged",
            "forward_only": True,
            "disable_restatement": True,
        },
    ),
    chained(
        "open_log",
        ["model.p.fsrc"],
        {"materialized": "incremental_unmanaged", "forward_only": False},
    ),
]


def _forward_refusal(name: str, kind: str) -> str:
    return (
        f"forward_only: true does not allow restating model '{name}' ({kind}): it only "
        "supports full-history restatement, which rebuilds the table and would erase the "
        "history forward_only keeps; set forward_only false to allow it"
    )


@pytest.mark.parametrize(
    "select",
    [
        "fsrc+",
        "fsrc",
        "fwd_daily",
        "fwd_log",
        "fsrc+ fwd_keyed",
        "tag:fwd",
        "fsrc+ both",
        "open_log fwd_daily",
        None,
    ],
)
def test_forward_only_restatements_equal_the_oracle(select: Any) -> None:
    """A model with forward_only whose kind only supports full-history restatement (a
    rebuild): skipped when only a graph operator reached it, refused when named; a time range
    with forward_only is restated by range; disable_restatement's own refusal first."""
    chosen = operations.selection(FORWARD, select)
    named = list(chosen.named) if select is not None else None
    start, end = "2025-01-03", "2025-01-04"
    try:
        expected = operations.restatements(chosen.nodes, start, end, named)
    except VulcanConfigError as exc:
        with pytest.raises(CompilerError) as got:
            _H.call("_vulcan_op_restatements", chosen.nodes, start, end, named)
        assert str(got.value) == str(exc)
        return
    got = _H.call("_vulcan_op_restatements", chosen.nodes, start, end, named)
    assert restatement_facts(got) == [
        (r.relation, r.name, r.start, r.end, r.full, r.warning, r.skipped) for r in expected
    ]


def test_forward_only_restatements_by_example() -> None:
    """What the oracle decides, by example: the facts the comparison above rests on."""
    reached = operations.selection(FORWARD, "fsrc+")
    facts = operations.restatements(reached.nodes, "2025-01-03", "2025-01-04", reached.named)
    assert [(r.name, r.skipped, r.full) for r in facts] == [
        ("fsrc", None, False),
        ("both", "disable_restatement", False),
        ("fwd_daily", None, False),
        ("fwd_keyed", "forward_only", False),
        ("fwd_log", "forward_only", False),
        ("open_log", None, True),
    ]
    for select, refused in [
        ("fwd_log", [("fwd_log", "incremental_unmanaged")]),
        (
            "tag:fwd fwd_keyed",
            [("fwd_keyed", "incremental_by_unique_key"), ("fwd_log", "incremental_unmanaged")],
        ),
    ]:
        chosen = operations.selection(FORWARD, select)
        with pytest.raises(VulcanConfigError) as exc:
            operations.restatements(chosen.nodes, "2025-01-03", "2025-01-04", chosen.named)
        assert str(exc.value) == "vulcan_restate refused:\n" + "\n".join(
            f"  - {_forward_refusal(name, kind)}" for name, kind in refused
        )
    # every model (no select): each one is named, so refused
    with pytest.raises(VulcanConfigError, match="forward_only: true does not allow"):
        operations.restatements(FORWARD, "2025-01-03", "2025-01-04")
    # both keys: disable_restatement's refusal, once
    both = operations.selection(FORWARD, "both")
    with pytest.raises(VulcanConfigError) as exc:
        operations.restatements(both.nodes, "2025-01-03", "2025-01-04", both.named)
    assert "forward_only" not in str(exc.value)
    assert "disable_restatement: true does not allow restating model 'both'" in str(exc.value)


def test_restate_skips_a_forward_only_rebuild_and_names_it() -> None:
    """vulcan_restate with `fsrc+`: fsrc and fwd_daily restated by range, open_log widened to
    its whole history; fwd_log and fwd_keyed (forward_only: their restatement would be a
    rebuild) and both (disable_restatement) skipped, one line each, nothing recorded for
    them."""
    with _GraphContext(FORWARD) as ctx:
        _H.call("vulcan_restate", "fsrc+", "2025-01-03", "2025-01-03")
    [insert] = _H.statements
    values = appended_values(insert)
    for name in ("fsrc", "fwd_daily", "open_log"):
        assert f"('sales.{name}', 'model.p.{name}', " in values, name
    for name in ("fwd_log", "fwd_keyed", "both"):
        assert f"sales.{name}" not in values, name
    reached = "reached through a graph operator, not named in select"
    assert ctx.printed == [
        "Restated fsrc: 2025-01-03 00:00:00 - 2025-01-04 00:00:00; the next dbt run recomputes it",
        f"Skipped both: disable_restatement: true ({reached})",
        "Restated fwd_daily: 2025-01-03 00:00:00 - 2025-01-04 00:00:00; the next dbt run "
        "recomputes it",
        f"Skipped fwd_keyed: forward_only: true (its restatement would rebuild its whole "
        f"history; {reached})",
        f"Skipped fwd_log: forward_only: true (its restatement would rebuild its whole "
        f"history; {reached})",
        "Warning: model 'open_log' (incremental_unmanaged) only supports full-history "
        "restatement: the requested range 2025-01-03 - 2025-01-03 was widened to the whole "
        "history from 1900-01-01 00:00:00",
        "Restated open_log: whole history; the next dbt run recomputes it",
    ]


@pytest.mark.parametrize("select", ["fwd_log", "fsrc+ fwd_log", "tag:fwd"])
def test_restate_refuses_a_named_forward_only_rebuild(select: str) -> None:
    """Named (by name or tag): refused before anything is recorded, naming the model, the
    key, its value and the fix."""
    with _GraphContext(FORWARD) as ctx, pytest.raises(CompilerError) as got:
        _H.call("vulcan_restate", select, "2025-01-03", "2025-01-04")
    assert str(got.value) == (
        "vulcan_restate refused:\n  - " + _forward_refusal("fwd_log", "incremental_unmanaged")
    )
    assert ctx.printed == []
    assert not any(is_state_append(s) for s in _H.statements)


@pytest.mark.parametrize("name", ["keyed_fwd", "log_fwd", "keyed_start", "keyed", "locked"])
def test_a_pending_full_restatement_rebuilds_unless_forward_only(name: str) -> None:
    """A whole-history restatement in the log (recorded before the model had forward_only, or
    by an earlier release) makes the next run a rebuild, as the oracle plans it; with
    forward_only the run is incremental (its history kept), the restatement stays pending and
    one line says why. The plan report agrees: no rebuild announced, nothing extra missing."""
    n = next(x for x in NODES if x["name"] == name)
    kind = n["config"]["materialized"]
    forward_only = bool(n["config"].get("forward_only"))
    key = operations.relation_key(n)
    day = timedelta(days=1)
    log = [
        StateRow(key, T0 + 4 * day, T0 + 6 * day, "processed", "f", "i1", RECORDED, 0),
        StateRow(key, T0 + 9 * day, T0 + 9 * day, "processed", "f", "i2", RECORDED + day, 0),
        StateRow(
            key,
            datetime(1900, 1, 1),
            datetime(9999, 12, 31),
            "removed",
            "",
            "i3",
            RECORDED + 2 * day,
            1,
            n["unique_id"],
            '{"restate": true, "full": true}',
        ),
    ]
    now = T0 + 8 * day
    expected = plan_model(
        model_config.settings(n, kind),
        n["raw_code"],
        RelationState(tuple(log)),
        RunVars(now),
        False,
    )
    assert expected.rebuild is not forward_only
    cfg = _H.call("vulcan_cfg_run", n, kind)["settings"]
    state = {
        "rows": by_key(log)[key],
        "cron": _H.call("vulcan_cron_parse", cfg["cron"]),
        "settings_key": None,
        "record": None,
    }
    logged: list[str] = []
    saved = _H.context["log"]
    _H.context["log"] = lambda message, info=False: logged.append(message) or ""
    try:
        relation = {"schema": n["schema"], "identifier": n["alias"]}
        run = {"execution_time": now, "start": None, "end": None}
        got = _H.call("vulcan_model_plan", cfg, relation, False, n, run, state)
    finally:
        _H.context["log"] = saved
    assert got["rebuild"] == expected.rebuild
    assert [(b["start"], b["end"]) for b in got["batches"]] == [
        (format_ts(b.start), format_ts(b.end)) for b in expected.batches
    ]
    held = (
        f"Model '{name}': a whole-history restatement is pending, but forward_only: true keeps "
        "its history: it runs incrementally (set forward_only: false to rebuild it)"
    )
    assert [m for m in logged if "restatement is pending" in m] == ([held] if forward_only else [])
    # the plan report: a rebuild announced only without forward_only
    situation = {"rows": log, "exists": {n["unique_id"]: True}, "execution": now, "nodes": [n]}
    [report] = py_reports(situation)[0]
    assert report.full_restatement is not forward_only
    assert report.pending_restatements  # still pending either way
    [jinja] = jinja_reports(situation, True)
    assert jinja_meaning(jinja) == py_meaning(report, True)


# --------------------------------------------------------------------------- render


def test_compiled_code_from_the_graph_or_rendered_or_refused() -> None:
    daily = NODES[0]
    assert _H.call("vulcan_compiled_code", {**daily, "compiled_code": "select 1"}) == ("select 1")
    with pytest.raises(CompilerError) as got:
        _H.call("vulcan_compiled_code", daily)
    assert str(got.value) == "No compiled SQL for model 'daily': run `dbt compile -s daily` first"
    rendered: list[str] = []
    _H.context["render"] = lambda text: rendered.append(text) or "compiled"
    try:
        assert _H.call("vulcan_compiled_code", daily) == "compiled"
    finally:
        _H.context.pop("render")
    assert rendered == [
        '{%- set this = api.Relation.create(database=none, schema="Sales", '
        "identifier=\"daily\", type='table') %}select * from src_daily"
    ]


@pytest.mark.parametrize(
    ("file_format", "partitioned"), [("parquet", True), ("delta", True), ("delta", False)]
)
def test_compact_replaces_the_log_with_its_compaction(file_format: str, partitioned: bool) -> None:
    """Parquet: the compacted rows are one new append, then exactly the appends the read's rows
    came from are dropped (one made meanwhile is kept). Delta/Iceberg: staged, then one
    overwrite (a table partitioned by relation; one created before is replaced by one that
    is). A relation with a restatement pending (s.b) is left as it is: on parquet neither
    appended nor dropped, on Delta/Iceberg staged with its rows as read; the summary names
    it."""
    day = timedelta(days=1)
    log = [
        StateRow("s.a", T0, T0 + day, "processed", "f", "i1", RECORDED, 0),
        StateRow("s.a", T0 + day, T0 + 2 * day, "processed", "f", "i2", RECORDED + day, 0),
        StateRow("s.b", T0, T0, "processed", "f", "i1", RECORDED, 1),
        StateRow("s.b", T0 + day, T0 + day, "processed", "f", "i2", RECORDED + day, 1),
        StateRow(
            "s.b",
            datetime(1900, 1, 1),
            datetime(9999, 12, 31),
            "removed",
            "",
            "i3",
            RECORDED + 2 * day,
            1,
            "model.p.b",
            '{"restate": true, "full": true}',
        ),
    ]
    state = "vulcan_state.vulcan_intervals"
    _H.statements.clear()
    read = by_key(log)
    for rows in read.values():
        for row in rows:
            row["append_id"] = f"{row['invocation_id']}-1"
    _H.query_results[f"describe table {state}"] = FakeResult(
        [
            ("relation", "string", None),
            ("# Partition Information", "", ""),
            ("relation", "string", None),
        ]
        if partitioned
        else [("relation", "string", None)]
    )
    saved = {k: _H.context[k] for k in ("vulcan_create_state_table", "vulcan_log_read", "print")}
    target = _H.context["target"]
    printed: list[str] = []
    _H.context["vulcan_create_state_table"] = lambda: ""
    _H.context["vulcan_log_read"] = lambda keys=None: read
    _H.context["print"] = printed.append
    _H.context["target"] = {**target, "state_file_format": file_format}
    try:
        _H.call("vulcan_compact")
    finally:
        _H.context.update(saved)
        _H.context["target"] = target
        _H.query_results.clear()
    assert kept_relations(log) == ["s.b"]
    assert compact(log)[1:] == sorted(log[2:], key=lambda r: r.recorded_at)
    assert printed[-1] == (
        "Compacted the state log: 5 rows -> 4 rows (1 relation left as it is while a "
        "restatement is pending: s.b)"
    )
    if file_format == "parquet":
        append, drop = _H.statements
        assert appended_values(append) == squash(values_sql(compact(log[:2])))
        assert drop == (
            f"alter table {state} drop if exists "
            "partition (relation = 's.a', append_id = 'i1-1'), "
            "partition (relation = 's.a', append_id = 'i2-1')"
        )
    else:
        stage = f"{state}__compact"
        assert _H.statements == [
            f"drop table if exists {stage}",
            "create schema if not exists vulcan_state",
            f"create table if not exists {stage} (relation string, model_id string, "
            "interval_start string, interval_end string, row_type string, fingerprint string, "
            "invocation_id string, recorded_at string, seq int, details string) using delta "
            "partitioned by (relation)",
            f"insert into {stage} values {squash(values_sql(compact(log)))}",
            f"describe table {state}",
            f"insert overwrite table {state} select * from {stage}"
            if partitioned
            else f"create or replace table {state} using delta partitioned by (relation) "
            f"as select * from {stage}",
            f"drop table if exists {stage}",
        ]


def test_compact_says_how_many_relations_it_left() -> None:
    """Nothing pending: the summary as before; two relations pending: both named."""
    day = timedelta(days=1)
    restate = '{"restate": true, "full": false}'
    done = [StateRow("s.a", T0, T0 + day, "processed", "f", "i1", RECORDED, 0)]
    pending = [
        StateRow(rel, T0, T0 + day, "removed", "", "i2", RECORDED + day, 1, "", restate)
        for rel in ("s.c", "s.b")
    ]
    for log, summary in [
        (done, "Compacted the state log: 1 rows -> 1 rows"),
        (
            [*done, *pending],
            "Compacted the state log: 3 rows -> 3 rows (2 relations left as they are while a "
            "restatement is pending: s.b, s.c)",
        ),
    ]:
        saved = {
            k: _H.context[k] for k in ("vulcan_create_state_table", "vulcan_log_read", "print")
        }
        printed: list[str] = []
        _H.context["vulcan_create_state_table"] = lambda: ""
        _H.context["vulcan_log_read"] = lambda keys=None, log=log: by_key(log)
        _H.context["print"] = printed.append
        try:
            _H.call("vulcan_compact")
        finally:
            _H.context.update(saved)
        assert printed == [summary]


# ----------------------------------------------------------------------------- state keys


@pytest.mark.parametrize(
    ("target", "catalog", "expected"),
    [
        ({}, None, "s.m"),  # type: spark: no catalogs
        ({"database": "main"}, "main", "s.m"),  # the target's own catalog
        ({"database": "Main"}, "MAIN", "s.m"),
        ({"database": "main"}, "other", "other.s.m"),  # another catalog's s.m
        ({"database": "hive_metastore"}, "main", "main.s.m"),
    ],
)
def test_state_key_names_a_catalog_other_than_the_targets(
    target: dict[str, str], catalog: str | None, expected: str
) -> None:
    h = Harness()
    h.context["target"] = {"state_schema": "vulcan_state", **target}
    node = {"database": catalog, "schema": "S", "alias": "M", "name": "m"}
    # a type: databricks relation (SparkRelation refuses a database)
    relation = SimpleNamespace(database=catalog, schema="S", identifier="M")
    assert h.call("vulcan_node_state_key", node) == expected
    assert h.call("vulcan_relation_key", relation) == expected
    assert operations.relation_key(node, target.get("database")) == expected
