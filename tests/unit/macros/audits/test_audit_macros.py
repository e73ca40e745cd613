"""Audits in Jinja (macros/audits/audit_parse.sql, macros/audits/audits.sql) against their Python
oracle, tests/oracle/audits.py: the same audits (name, arguments with their types,
blocking, label) or the same message for every parsing case of tests/oracle/test_audits.py and
for random audit lists (valid and invalid items, call strings, grains, grains_audit), the same
SQL for every built-in audit, the same evaluation statements and the same report (errors,
warnings, samples). Then the check before any write (vulcan_check_extras) in both modes."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import date, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tests.oracle.test_audits as unit_cases
from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.oracle import audits as oracle
from tests.support.macro_harness import CompilerError, FakeResult, Harness, shared_harness

STAGE = unit_cases.STAGE


def harness() -> Harness:
    """The module's macro harness: the `vulcan` adapter's dispatch, shared per process."""
    return shared_harness("vulcan")


def _as_dict(audit: oracle.Audit) -> dict[str, Any]:
    return {
        "name": audit.name,
        "args": audit.args,
        "blocking": audit.blocking,
        "builtin": audit.builtin,
        "from_grains": audit.from_grains,
        "macro": audit.macro,
        "label": audit.label,
    }


def python_parse(
    items: Any, grains: Any = None, grains_audit: Any = None, known: set[str] | None = None
) -> Any:
    exists = None if known is None else (lambda name: name in known)
    try:
        return [_as_dict(a) for a in oracle.parse_audits("m", items, grains, grains_audit, exists)]
    except VulcanConfigError as error:
        return str(error)


def jinja_parse(
    items: Any, grains: Any = None, grains_audit: Any = None, known: set[str] | None = None
) -> Any:
    found = harness().call("_vulcan_audit_parse", "m", items, grains, grains_audit, known)
    if found["error"] is not None:
        assert found["audits"] is None
        return found["error"]
    return found["audits"]


def same_parse(
    items: Any, grains: Any = None, grains_audit: Any = None, known: set[str] | None = None
) -> Any:
    expected = python_parse(items, grains, grains_audit, known)
    got = jinja_parse(items, grains, grains_audit, known)
    # repr: the same types too (1, 1.0 and True are equal in Python) and the same key order
    assert repr(got) == repr(expected)
    if isinstance(expected, list):
        for audit in expected:
            if audit["builtin"]:
                sql = harness().call("_vulcan_audit_sql", audit, STAGE)
                assert sql == oracle.Audit(audit["name"], audit["args"]).violations_sql(STAGE)
    return expected


def same_call(text: str) -> Any:
    try:
        name, args = oracle.parse_call(text)
        expected: Any = {"name": name, "args": args, "error": None}
    except VulcanConfigError as error:
        expected = {"error": str(error)}
    assert repr(harness().call("_vulcan_audit_parse_call", text)) == repr(expected)
    return expected


def _params(test: Any) -> list[Any]:
    """The parameter sets of a parametrized test of tests/oracle/test_audits.py."""
    (mark,) = [m for m in test.pytestmark if m.name == "parametrize"]
    return list(mark.args[1])


# --- the cases of tests/oracle/test_audits.py --------------------------------------------------


@pytest.mark.parametrize("item", _params(unit_cases.test_every_form_gives_the_same_audit))
def test_every_form(item: Any) -> None:
    assert same_parse([item])[0]["args"] == {"columns": ["a", "b"]}


@pytest.mark.parametrize(
    "item",
    [
        {"name": "not_null", "column": "a"},
        "unique_values(columns := (a))",
        "positive_values(column=(total))",
        "accepted_values(column=s, is_in=['x', 'y'])",
        "accepted_range(column=p, min_v=-1.5, max_v=100, inclusive=false)",
        {"name": "number_of_rows", "threshold": "10"},
        "not_null(columns=[a])",
        "not_null(columns=[a], blocking=false)",
        {"name": "not_null", "columns": "a", "blocking": "false"},
        {"name": "not_null", "blocking": "maybe"},
        {"name": "accepted_range", "column": "d", "min": date(2025, 1, 1)},
        {"name": "accepted_range", "column": "d", "max": datetime(2025, 1, 2, 3, 4, 5)},
        {"name": "accepted_values", "column": "d", "values": (date(2025, 1, 1), True, 2.0)},
        {"NOT_NULL": None},
        {" Not_Null ": {"COLUMNS": [" a "], " Blocking": "TRUE"}},
        {"name": "unique_combination_of_columns", "columns": ["Row_Count", "x`y", "my col"]},
        {"name": "unique_values", "columns": ["a", "b"]},
        {"name": "number_of_rows", "threshold": 2.0},
        {"name": "number_of_rows", "threshold": 2.5},
        {"name": "number_of_rows", "threshold": True},
        {"name": "number_of_rows", "threshold": " +1_000 "},
        {"name": "number_of_rows", "threshold": float("nan")},
        {"name": "number_of_rows", "threshold": [1]},
        {"name": "accepted_values", "column": "s", "values": "x"},
        {"name": "accepted_values", "column": "s", "values": [None]},
        {"name": "accepted_values", "column": "s", "values": [{"a": 1}]},
        {"name": "accepted_range", "column": "x", "min": None, "max": 3, "inclusive": "no"},
        {"name": 5},
        {"a": 1, "b": 2},
        {"not_null": "columns"},
        {"name": "1abc"},
        {"name": "no-dash"},
        {"name": "not_null", "columns": []},
        {"name": "not_null", "columns": ["a", " "]},
        {"name": "not_null", "columns": ("a", "b")},
        {"name": "not_null", "column": "a", "columns": "b"},
        {"name": "positive_values", "column": [" x "]},
        {"name": "positive_values", "column": ""},
        {"name": "x" * 100, "columns": ["a"] * 30},
    ],
)
def test_arguments_and_problems(item: Any) -> None:
    same_parse([item])


def test_user_defined_audits() -> None:
    item = {
        "name": "no_future",
        "column": "d",
        "days": 3,
        "tags": ["a", 1],
        "when": date(2025, 1, 1),
    }
    assert same_parse([item], known={"audit_no_future"})[0]["builtin"] is False
    assert same_parse(["no_future"])[0]["macro"] == "audit_no_future"
    assert "unknown audit 'no_future'" in same_parse(["no_future"], known=set())
    same_parse(
        ["No_Future(x='y', Column=ab, columns=[a, 'b c'], n=null)"], known={"audit_no_future"}
    )


def test_every_problem_at_once() -> None:
    items = [
        {"name": "not_null", "colums": ["a"]},
        {"name": "accepted_range", "column": "x"},
        "number_of_rows(threshold=-1)",
        "number_of_rows",
        {"columns": ["a"], "blocking": False},
        42,
        "not_null(columns=[a]",
        {"name": "accepted_values", "column": "s", "values": []},
        {"name": "positive_values", "column": ["a", "b"]},
    ]
    text = same_parse(items, grains_audit="sometimes")
    assert "Invalid audits for model 'm', 10 problem(s)" in text
    assert "unknown audit 'mine'" in same_parse([*items, "mine(x=1)"], known=set())


@pytest.mark.parametrize(
    "text",
    [
        *_params(unit_cases.test_call_form_errors),
        "f",
        "f()",
        "f(a=1, b=-2.5, c='it''s', d=\"x\\\"y\", e=true, f=NULL, g=[], h=[1, [2]])",
        "",
        "   ",
        "f(x=[1, (2, [3,]),], y := `a``b`, z='\\n')",
        "f(x=[1 2])",
        "f(x=[1, 2)",
        "f(x=(1, 2])",
        "f(x=[",
        "f(x=[1",
        "f(x=[,])",
        "f(,)",
        "f((",
        "f(x==1)",
        "f(x=1e5, y=-0, z=1.5E-3, w=007)",
        "f(x=a.b.c, y=None, z=FALSE)",
        "f)",
        "(x=1)",
        "f(x=1) ",
        "f(x=@)",
        "f(x='a' 'b')",
        "f.g(x=1)",
    ],
)
def test_call_form(text: str) -> None:
    same_call(text)
    same_parse([text])


@pytest.mark.parametrize(
    ("items", "grains", "grains_audit"),
    [
        ([], ["a", "b"], None),
        ([], ["a", "b"], False),
        ([], ["a", "b"], "false"),
        ([], ["a", "b"], " TRUE "),
        (None, None, None),
        (None, None, 3),
        ([], [], True),
        (["unique_combination_of_columns(columns=[B, a])"], ["a", "b"], None),
        (["unique_combination_of_columns(columns=[a])"], ["a", "b"], None),
        (["unique_values(columns=[id, x], blocking=false)"], ["id"], None),
        (["unique_values(columns=[ID])"], ["id"], None),
        (["unique_values(columns=[a])"], ["a", "b"], None),
        (["mine(columns=[a])"], ["a"], None),
        (["not_null(columns=[a])", 5], ["a"], None),
        (["unique_values(columns=[a]"], ["a"], "x"),
    ],
)
def test_grains(items: Any, grains: Any, grains_audit: Any) -> None:
    same_parse(items, grains, grains_audit)


@pytest.mark.parametrize(("item", "sql"), _params(unit_cases.test_builtin_sql))
def test_builtin_sql(item: Any, sql: str) -> None:
    (audit,) = same_parse([item])
    assert harness().call("_vulcan_audit_sql", audit, STAGE) == sql


@pytest.mark.parametrize(
    "value",
    [
        "a\\b'c",
        date(2025, 1, 2),
        datetime(2025, 1, 2, 3),
        datetime(2025, 1, 2, 3, 4, 5, 6),
        False,
        True,
        0,
        -7,
        1.5,
        1e16,
        -0.0,
        "",
        "it's",
    ],
)
def test_literals(value: Any) -> None:
    assert harness().call("_vulcan_audit_literal", value) == oracle.literal(value)


def test_evaluation_statements() -> None:
    h = harness()
    sqls = ["select * from x where a is null", "select 1", "select 2"]
    assert h.call("_vulcan_audit_count_query", sqls) == oracle.count_query(sqls)
    assert h.call("_vulcan_audit_count_query", sqls[:1]) == oracle.count_query(sqls[:1])
    for failing in ([1], [0, 2], ["2"]):
        assert h.call("_vulcan_audit_sample_query", sqls, failing) == oracle.sample_query(
            sqls, failing
        )
    for counts in ([(0, 0), (1, 3), (2, None)], FakeResult([(2, 1), (0, 5)]), [], None):
        assert h.call("_vulcan_audit_failures", counts) == oracle.failures(counts)


def described(*items: Any) -> list[dict[str, Any]]:
    return [a.as_dict(STAGE) for a in oracle.parse_audits("m", list(items))]


@pytest.mark.parametrize(
    ("found", "batch", "counts", "samples"),
    [
        (
            described(
                "not_null(columns=[order_id])",
                "accepted_values(column=status, values=['a', 'b'], blocking=false)",
                "number_of_rows(threshold=0)",
            ),
            unit_cases.BATCH,
            [(0, 2), (1, 1), (2, 0)],
            [
                (0, '{"order_id":null,"status":"a","n":1.5}'),
                (0, '{"order_id":null,"status":null,"n":[1,2]}'),
                (1, '{"order_id":7,"status":"zz","n":2}'),
            ],
        ),
        (
            described("not_null(columns=[a], blocking=false)"),
            {"index": 1, "count": 1, "label": "1970-01-01 - 2025-01-03", "tracked": False},
            [(0, 1)],
            [(0, '{"a":"' + "x" * 500 + '"}')],
        ),
        (described("not_null(columns=[a], blocking=false)"), {}, [(0, 0)], []),
        (
            described("not_null(columns=[a])", "unique_values(columns=[a])"),
            {"label": ""},
            FakeResult([(1, 3), (0, 1)]),
            FakeResult(
                [
                    (0, "not json"),
                    (1, "null"),
                    (1, "[1, 2]"),
                    (1, '{"a": {"b": [true, false, null]}, "c": true, "d": 1e400}'),
                    (0, None),
                ]
            ),
        ),
    ],
)
def test_report(found: Any, batch: Any, counts: Any, samples: Any) -> None:
    expected = oracle.report("daily_sales", found, batch, counts, samples)
    got = harness().call("_vulcan_audit_report", "daily_sales", found, batch, counts, samples)
    assert got == expected


# --- random audit lists ----------------------------------------------------------------------

_COLUMN = st.sampled_from(["a", "b", "id", "ID", " a ", "Row_Count", "x`y", "my col", "", " "])
_KEYS = st.sampled_from(
    [
        "columns",
        "column",
        "values",
        "is_in",
        "min",
        "max",
        "min_v",
        "max_v",
        "min_value",
        "max_value",
        "inclusive",
        "threshold",
        "blocking",
        "Blocking ",
        "COLUMNS",
        "days",
        "colums",
        "x",
    ]
)
_NAMES = st.sampled_from(
    [*oracle.BUILTINS, "NOT_NULL", " unique_values ", "mine", "Mine", "other", "1abc", "a-b", ""]
)
_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 2000),
    st.floats(allow_nan=True, allow_infinity=False, width=32),
    _COLUMN,
    st.sampled_from(["true", "FALSE", " 7 ", "1.5", "-1", "1_0", "it's", 'q"q', "a\\b", "x" * 90]),
    st.dates(min_value=date(2000, 1, 1), max_value=date(2030, 1, 1)),
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2030, 1, 1)),
)
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
    ),
    max_leaves=6,
)
_ARGS = st.dictionaries(_KEYS, _VALUE, max_size=4)


def _call_value(value: Any, quote: str) -> str:
    """A value in the call form (strings quoted, names bare when they can be)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if not (isinstance(value, float) and math.isnan(value)) else "nan"
    if isinstance(value, list | tuple):
        opening, closing = ("[", "]") if isinstance(value, list) else ("(", ")")
        return opening + ", ".join(_call_value(v, quote) for v in value) + closing
    text = str(value)
    if quote == "`":
        return "`" + text.replace("`", "``") + "`"
    if quote == "":
        return text
    escaped = text.replace("\\", "\\\\").replace(quote, "\\" + quote)
    return quote + escaped + quote


@st.composite
def _call_string(draw: st.DrawFn) -> str:
    name = draw(_NAMES)
    args = draw(
        st.dictionaries(_KEYS, _VALUE.filter(lambda v: not isinstance(v, dict)), max_size=3)
    )
    quote = draw(st.sampled_from(["'", '"', "`", ""]))
    assign = draw(st.sampled_from(["=", " := ", " = "]))
    inside = ", ".join(f"{k}{assign}{_call_value(v, quote)}" for k, v in args.items())
    text = name if not args and draw(st.booleans()) else f"{name}({inside})"
    if draw(st.integers(0, 9)) == 0:  # a damaged call
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.sampled_from(["", ")", ",", "(", "]", "'", "=", " x"]))
    return text


_ARG_VALUES = {
    "columns": st.one_of(_COLUMN, st.lists(_COLUMN, max_size=3), st.integers()),
    "column": st.one_of(_COLUMN, st.lists(_COLUMN, max_size=2), st.none()),
    "values": st.one_of(st.lists(_SCALAR, max_size=3), _SCALAR, st.lists(_VALUE, max_size=2)),
    "is_in": st.lists(_SCALAR, max_size=3),
    "min": _SCALAR,
    "max_v": _SCALAR,
    "inclusive": st.sampled_from([True, False, "false", " TRUE", "no", None, 1]),
    "threshold": st.one_of(
        st.integers(-3, 10**6),
        st.floats(-2, 5, width=16),
        st.sampled_from(["5", " 7 ", "-1", "1.5", "x", "1_000", "+3", "", None]),
    ),
    "blocking": st.sampled_from([True, False, "false", "maybe", None]),
}


@st.composite
def _builtin_item(draw: st.DrawFn) -> Any:
    """A built-in audit with arguments of mostly the right kind (in any of the three forms)."""
    name = draw(st.sampled_from(list(oracle.BUILTINS)))
    required, optional = oracle.BUILTINS[name]
    keys = list(required) + draw(
        st.lists(st.sampled_from([*optional, "blocking", "is_in", "max_v"]), max_size=2)
    )
    if "columns" in keys and draw(st.booleans()):
        keys[keys.index("columns")] = "column"
    args = {}
    for key in keys:
        args[key] = draw(_ARG_VALUES.get(key, _SCALAR))
    form = draw(st.integers(0, 2))
    if form == 0:
        return {"name": name, **args}
    if form == 1:
        return {name: args}
    quote = draw(st.sampled_from(["'", '"', "`", ""]))
    plain = {k: v for k, v in args.items() if not isinstance(v, dict)}
    return f"{name}({', '.join(f'{k}={_call_value(v, quote)}' for k, v in plain.items())})"


_GARBAGE = st.text(alphabet="ab_1.-(),[]=:'\"` \\eE", max_size=20)


@st.composite
def _item(draw: st.DrawFn) -> Any:
    form = draw(st.integers(0, 8))
    if form >= 7:
        return draw(_builtin_item())
    if form == 0:
        return {"name": draw(_NAMES), **draw(_ARGS)}
    if form == 1:
        return {draw(_NAMES): draw(st.one_of(st.none(), _ARGS))}
    if form == 2:
        return draw(_call_string())
    if form == 3:
        return draw(_GARBAGE)
    if form == 4:
        return draw(st.one_of(st.integers(), st.none(), st.lists(st.integers(), max_size=2)))
    if form == 5:
        return draw(st.dictionaries(st.sampled_from(["columns", "a", "name"]), _VALUE, max_size=3))
    return draw(st.sampled_from(["not_null(columns=[a, b])", "number_of_rows(threshold := 3)"]))


_SETTINGS = settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


@_SETTINGS
@given(
    items=st.one_of(st.none(), st.lists(_item(), max_size=4)),
    grains=st.one_of(st.none(), st.lists(st.sampled_from(["a", "b", "id", "ID", "x"]), max_size=2)),
    grains_audit=st.sampled_from([None, True, False, "false", " True", "maybe", 0]),
    known=st.sampled_from([None, set(), {"audit_mine", "audit_other"}]),
)
def test_random_audit_lists(items: Any, grains: Any, grains_audit: Any, known: Any) -> None:
    same_parse(items, grains, grains_audit, known)


@_SETTINGS
@given(
    items=st.lists(_builtin_item(), min_size=1, max_size=2),
    grains=st.one_of(st.none(), st.lists(st.sampled_from(["a", "b", "id", "ID"]), max_size=2)),
)
def test_random_builtin_audits(items: list[Any], grains: Any) -> None:
    """Mostly well-formed built-in audits: their arguments, labels and SQL, or the message."""
    same_parse(items, grains)


@_SETTINGS
@given(text=st.one_of(_call_string(), _GARBAGE))
def test_random_call_strings(text: str) -> None:
    same_call(text)


_SAMPLE_VALUE = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=8),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=2)
    ),
    max_leaves=5,
)


@settings(max_examples=100, deadline=None, database=None)
@given(
    blocking=st.lists(st.booleans(), min_size=1, max_size=4),
    counts=st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=4, max_size=4),
    samples=st.lists(
        st.tuples(
            st.integers(0, 3),
            st.one_of(
                st.dictionaries(st.text(max_size=5), _SAMPLE_VALUE, max_size=4).map(json.dumps),
                _SAMPLE_VALUE.map(json.dumps),
                st.text(max_size=400),
            ),
        ),
        max_size=6,
    ),
    batch=st.fixed_dictionaries(
        {},
        optional={
            "index": st.integers(1, 3),
            "count": st.integers(1, 3),
            "label": st.sampled_from(["", "2025-01-01 - 2025-01-02"]),
            "tracked": st.booleans(),
        },
    ),
)
def test_random_reports(
    blocking: list[bool], counts: list[Any], samples: list[Any], batch: dict[str, Any]
) -> None:
    found = [
        oracle.Audit("not_null", {"columns": [f"c{i}"]}, blocking=b).as_dict(STAGE)
        for i, b in enumerate(blocking)
    ]
    rows = list(enumerate(counts))
    expected = oracle.report("m", found, batch, rows, samples)
    assert harness().call("_vulcan_audit_report", "m", found, batch, rows, samples) == expected
    assert harness().call("_vulcan_audit_failures", rows) == oracle.failures(rows)


# --- the check before any write, in both modes ---------------------------------------------


@pytest.fixture
def h() -> Iterator[Harness]:
    h = harness()
    saved = {k: h.context.get(k) for k in ("model", "audit_mine")}
    yield h
    for key, value in saved.items():
        if value is None:
            h.context.pop(key, None)
        else:
            h.context[key] = value


def check(h: Harness, variant: str, cfg: dict[str, Any], config: dict[str, Any]) -> str:
    h.context["model"] = {"name": "daily", "config": config}
    try:
        h.call(f"{variant}__vulcan_check_extras", {"model": "daily", **cfg})
    except CompilerError as error:
        return str(error)
    return ""


@pytest.mark.parametrize("variant", ["default", "vulcan"])
def test_audits_are_checked_before_any_write(h: Harness, variant: str) -> None:
    cfg = {"kind": "incremental_by_time_range", "audits": ["mine(x=1)"], "grains": []}
    h.context["audit_mine"] = lambda relation, **args: ""
    assert check(h, variant, cfg, {}) == ""
    del h.context["audit_mine"]
    message = check(h, variant, cfg, {})
    assert message == python_parse(["mine(x=1)"], known=set()).replace("'m'", "'daily'")
    assert "unknown audit 'mine'" in message
    # grains_audit alone is checked too
    no_audits = {"kind": "incremental_by_time_range", "audits": [], "grains": []}
    assert "grains_audit: 3 is not a boolean" in check(
        h, variant, {**no_audits, "grains_audit": 3}, {"grains_audit": 3}
    )
    assert check(h, variant, no_audits, {}) == ""
    assert check(h, variant, {**no_audits, "grains": ["id"]}, {}) == ""


def test_package_mode_refuses_the_other_extras_first(h: Harness) -> None:
    cfg = {"kind": "incremental_by_unique_key", "audits": ["nope"], "grains": ["id"]}
    h.context["model"] = {"name": "daily", "config": {}, "language": "python"}
    try:
        h.call("default__vulcan_check_extras", {"model": "daily", **cfg})
    except CompilerError as error:
        message = str(error)
    assert message.startswith("Model 'daily': Python models need the `vulcan`")
    assert "audits" not in message
    # the unique key kind itself runs in package mode: its audits are checked
    assert "unknown audit 'nope'" in check(h, "default", cfg, {})
