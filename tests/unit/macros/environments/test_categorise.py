"""environments/categorise.sql and the lineage of environments/version.sql: which change of a
model's SQL is non-breaking (only columns added to its outermost SELECT), checked against
sqlglot's reading of the same queries (tests/oracle/environments.py, is_non_breaking), and the
versions that follow from it, against the oracle's: a non-breaking change versions the model
only, a breaking one the model and every model below it."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle import environments as oracle
from tests.support.macro_harness import Harness
from tests.unit.macros.environments.test_environment_macros import SEED, harness, model

_H = Harness()

# columns whose text sqlglot writes back as it reads them (so both readings compare alike)
COLUMNS = [
    "a",
    "b + 1 AS c",
    "UPPER(s) AS u",
    "COUNT(*) OVER () AS n",
    "SUM(x) AS total",
    "EXPLODE(arr) AS e",
    "*",
    "t.*",
    "COALESCE(a, 0) AS a0",
    "CASE WHEN a > 1 THEN 'x, y' ELSE 'z' END AS k",
    "(SELECT MAX(y) FROM u) AS m",
]


@st.composite
def queries(draw: Any, columns: list[str] | None = None, body: dict[str, Any] | None = None) -> str:
    """A query in a random style (keyword case, line breaks, comments), and its parts."""
    body = body if body is not None else draw(bodies())
    if columns is None:
        columns = draw(st.lists(st.sampled_from(COLUMNS), min_size=1, max_size=4))
    upper = draw(st.booleans())
    sep = draw(st.sampled_from([" ", "\n  ", "  "]))

    def kw(word: str) -> str:
        return word.upper() if upper else word.lower()

    parts = []
    if body["cte"]:
        parts.append(f"{kw('with')} c {kw('as')} ({kw('select')} a, b {kw('from')} t)")
    parts.append(kw("select") + (" " + kw("distinct") if body["distinct"] else ""))
    parts.append(("," + sep).join(columns))
    if draw(st.booleans()):
        parts.append("-- a comment, with a comma")
    parts.append(f"{kw('from')} {'c' if body['cte'] else 't'}")
    if body["where"]:
        parts.append(f"{kw('where')} x > {body['where']}")
    if body["group"]:
        parts.append(f"{kw('group by')} a")
    if body["union"]:
        parts.append(f"{kw('union all select')} a {kw('from')} u")
    return sep.join(parts)


@st.composite
def bodies(draw: Any) -> dict[str, Any]:
    return {
        "cte": draw(st.booleans()),
        "distinct": draw(st.integers(0, 5)) == 0,
        "where": draw(st.sampled_from([None, 1, 2])),
        "group": draw(st.booleans()),
        "union": draw(st.integers(0, 5)) == 0,
    }


@st.composite
def changes(draw: Any) -> tuple[str, str]:
    """A query and a change of it: columns added, removed or rewritten, the rest changed, or
    only its style."""
    body = draw(bodies())
    columns = draw(st.lists(st.sampled_from(COLUMNS), min_size=1, max_size=4))
    how = draw(st.sampled_from(["add", "add", "remove", "rewrite", "body", "style"]))
    new_columns, new_body = list(columns), dict(body)
    if how == "add":
        for _ in range(draw(st.integers(1, 3))):
            at = draw(st.integers(0, len(new_columns)))
            new_columns.insert(at, draw(st.sampled_from(COLUMNS)))
    elif how == "remove" and len(columns) > 1:
        new_columns.pop(draw(st.integers(0, len(columns) - 1)))
    elif how == "rewrite":
        new_columns[draw(st.integers(0, len(columns) - 1))] = draw(st.sampled_from(COLUMNS))
    elif how == "body":
        new_body = draw(bodies())
    return draw(queries(columns, body)), draw(queries(new_columns, new_body))


def jinja_non_breaking(old: str, new: str) -> bool:
    sig = [_H.call("vulcan_select_signature", q) for q in (old, new)]
    return bool(_H.call("vulcan_change_is_additive", sig[0], sig[1]))


@settings(max_examples=300, deadline=None)
@given(changes())
def test_the_categorisation_is_sqlglots(change: tuple[str, str]) -> None:
    old, new = change
    assert jinja_non_breaking(old, new) == oracle.is_non_breaking(old, new), (old, new)


def test_the_sql_as_written() -> None:
    base = (
        "select id, {{ dbt.safe_cast('v', 'int') }} as v from {{ ref('raw') }}\n"
        "{% if is_incremental() %} where d > 1 {% endif %}"
    )
    added = base.replace(" as v from", " as v, upper(name) as name_upper from")
    assert jinja_non_breaking(base, added)
    assert jinja_non_breaking(base, base.replace("{{ ref('raw') }}", "{{- ref('raw') -}}"))
    # a column that is Jinja may be anything (many columns, a generator): breaking
    assert not jinja_non_breaking(base, added.replace("upper(name)", "{{ my_columns() }}"))
    # a Jinja statement in the select list: unread, breaking
    assert not jinja_non_breaking(
        base, base.replace(" as v from", " as v {% if x %}, w{% endif %} from")
    )
    # the rest of the query changed: breaking
    assert not jinja_non_breaking(added, added.replace("d > 1", "d > 2"))
    # a string keeps its case and its commas
    assert not jinja_non_breaking("select 'a, b' as s from t", "select 'A, b' as s, c from t")
    assert _H.call("vulcan_select_signature", "(select a from t)") is None


def _pointer_rows(
    h: Harness, graph: dict[str, dict[str, Any]], env: str, state: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The pointer rows a run of every model in `env` records (environments/view.sql), its
    versions read from the rows `state`."""
    ctxs, by_key = {}, {}
    for uid, node in graph.items():
        if not oracle.is_virtual(node):
            continue
        ctx = h.call("vulcan_virtual_context", node, None)
        h.call("vulcan_virtual_versions", ctx, state or {})
        ctxs[uid] = ctx["nodes"][uid]
    for uid, info in ctxs.items():
        key = info["pointer_key"]
        details = {
            "environment": env,
            "physical": f"vulcan_physical.x__{info['version']}",
            "lineage": info["lineage"],
            "shape": info["record"]["shape"],
            "parents": info["record"]["parents"],
            "select": h.call("vulcan_select_signature", graph[uid]["raw_code"]),
        }
        by_key[key] = [
            {
                "relation": key,
                "row_type": "pointer",
                "details": json.dumps(details),
                "fingerprint": info["version"],
                "at": 1,
                "model_id": uid,
            }
        ]
    return by_key


@st.composite
def projects(draw: Any) -> dict[str, dict[str, Any]]:
    """A chain-or-tree of time-range models (and a dbt table model) over a seed, each query
    drawn from COLUMNS."""
    graph: dict[str, dict[str, Any]] = {SEED["unique_id"]: SEED}
    for i in range(draw(st.integers(2, 5))):
        parents = draw(
            st.lists(st.sampled_from(sorted(graph)), min_size=1, max_size=2, unique=True)
        )
        code = draw(
            queries(
                body={"cte": False, "distinct": False, "where": 1, "group": False, "union": False}
            )
        )
        node = model(f"m{i}", parents, code=code)
        if i > 0 and draw(st.integers(0, 4)) == 0:
            node["config"] = {"materialized": "table"}
        graph[node["unique_id"]] = node
    return graph


@settings(max_examples=60, deadline=None)
@given(projects(), st.data())
def test_versions_after_a_change_are_the_oracles(
    graph: dict[str, dict[str, Any]], data: Any
) -> None:
    models = sorted(uid for uid, n in graph.items() if oracle.is_virtual(n))
    changed = data.draw(st.sampled_from(models))
    edited = copy.deepcopy(graph)
    old, new = data.draw(changes())
    edited[changed]["raw_code"] = new
    graph[changed]["raw_code"] = old
    by_key = _pointer_rows(harness(graph, "prod"), graph, "prod")
    before = oracle.versions(graph)
    h = harness(edited, "dev")
    memo: dict[str, Any] = {}
    got = {uid: h.call("vulcan_node_version", edited[uid], memo, by_key) for uid in models}
    prod = {
        uid: oracle.Shown(v.version, v.lineage, v.shape, v.parents, str(graph[uid]["raw_code"]))
        for uid, v in before.items()
        if uid in models
    }
    want = oracle.versions(edited, prod)
    assert got == {uid: want[uid].version for uid in models}
    # the changed model has a new version unless only its style changed; below it, the
    # versions stay exactly when the change is non-breaking
    below = [uid for uid in models if uid != changed and want[uid].version != before[uid].version]
    if oracle.is_non_breaking(old, new):
        assert below == [] and want[changed].lineage == before[changed].lineage
    elif want[changed].version != before[changed].version:
        assert want[changed].lineage == want[changed].version


def test_a_recorded_lineage_is_kept() -> None:
    """Once a version's lineage is recorded, it is that version's in every environment, even
    after prod moved on (here: prod shows the version itself, a later breaking one)."""
    daily = model("daily", ["seed.p.raw"], code="select a from t")
    rollup = model("rollup", ["model.p.daily"], code="select a from {{ ref('daily') }}")
    graph = {SEED["unique_id"]: SEED, "model.p.daily": daily, "model.p.rollup": rollup}
    prod_rows = _pointer_rows(harness(graph, "prod"), graph, "prod")
    wide = copy.deepcopy(graph)
    wide["model.p.daily"]["raw_code"] = "select a, b from t"
    h = harness(wide, "dev")
    wide_rows = _pointer_rows(h, wide, "dev", prod_rows)  # against prod's: non-breaking
    v_rollup = h.call("vulcan_node_version", rollup, {}, prod_rows)
    key = h.call("vulcan_pointer_key", daily)
    # dev recorded the wide version's lineage: rollup keeps its version
    by_key = {
        key: prod_rows[key] + wide_rows[key],
        **{k: v for k, v in prod_rows.items() if k != key},
    }
    assert h.call("vulcan_node_version", wide["model.p.rollup"], {}, by_key) == v_rollup
    # prod then deploys a breaking change; the wide version's lineage stays the recorded one
    moved = json.loads(by_key[key][0]["details"])
    moved.update({"lineage": "0000000000", "select": None})
    by_key[key] = by_key[key] + [
        {**by_key[key][0], "details": json.dumps(moved), "fingerprint": "0000000000", "at": 2}
    ]
    assert h.call("vulcan_node_version", wide["model.p.rollup"], {}, by_key) == v_rollup
    # without any state, every lineage is its version: rollup's version moves with daily's
    assert h.call("vulcan_node_version", wide["model.p.rollup"], {}, {}) != v_rollup
