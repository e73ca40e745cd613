"""environments/: a model's version (version.sql) and the physical table an environment
chooses for it (resolve.sql), checked against the Python oracle (tests/oracle/environments.py)
on random projects, and the properties the virtual layer rests on: the same code gives the same
version in every target; a change gives the changed model and every model below it a new
version; a forward_only model keeps its version."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle import environments as oracle
from tests.support.macro_harness import Harness

_H = Harness()
TR, UK = "incremental_by_time_range", "incremental_by_unique_key"


def harness(graph: dict[str, dict[str, Any]], target: str = "dev", **vars: Any) -> Harness:
    nodes = {k: v for k, v in graph.items() if v["resource_type"] != "source"}
    sources = {k: v for k, v in graph.items() if v["resource_type"] == "source"}
    _H.context["graph"] = {"nodes": nodes, "sources": sources}
    _H.context["target"] = {**_H.context["target"], "name": target}
    _H.context["var"] = lambda name, default=None: vars.get(name, default)
    return _H


def model(
    name: str,
    parents: list[str],
    kind: str = TR,
    code: str = "select 1",
    schema: str = "analytics",
    **cfg: Any,
) -> dict[str, Any]:
    meta = {"time_column": "d", "start": "2025-01-01", **cfg} if kind == TR else dict(cfg)
    return {
        "unique_id": f"model.p.{name}",
        "resource_type": "model",
        "name": name,
        "alias": name,
        "schema": schema,
        "database": None,
        "raw_code": code,
        "config": {"materialized": kind, "meta": meta},
        "depends_on": {"nodes": parents},
        "checksum": {"name": "sha256", "checksum": "c-" + name},
        "columns": {},
    }


def _context(h: Harness, node: dict[str, Any], at: Any) -> dict[str, Any]:
    """vulcan_virtual_context, then the versions (no pointer row records a lineage here)."""
    ctx = h.call("vulcan_virtual_context", node, at)
    h.call("vulcan_virtual_versions", ctx, {})
    return ctx


SEED = {
    "unique_id": "seed.p.raw",
    "resource_type": "seed",
    "name": "raw",
    "config": {},
    "checksum": {"checksum": "s1"},
    "depends_on": {"nodes": []},
}
SOURCE = {
    "unique_id": "source.p.app.events",
    "resource_type": "source",
    "name": "events",
    "source_name": "app",
    "config": {},
}


@st.composite
def projects(draw: Any) -> dict[str, dict[str, Any]]:
    """A random DAG: a seed, a source, then models (dbt-vulcan kinds, dbt's table) each reading
    some earlier nodes."""
    graph: dict[str, dict[str, Any]] = {SEED["unique_id"]: SEED, SOURCE["unique_id"]: SOURCE}
    for i in range(draw(st.integers(1, 7))):
        earlier = sorted(graph)
        parents = draw(st.lists(st.sampled_from(earlier), min_size=1, max_size=3, unique=True))
        kind = draw(st.sampled_from([TR, TR, UK, "incremental_unmanaged", "table"]))
        extra: dict[str, Any] = {}
        if kind != "table" and draw(st.booleans()):
            extra["forward_only"] = True
        code = draw(st.sampled_from(["select 1", "select 2", "select *  "]))
        node = model(f"m{i}", parents, kind, code, **extra)
        if kind == "table":
            node["config"] = {"materialized": "table"}
        graph[node["unique_id"]] = node
    return graph


def versions(graph: dict[str, dict[str, Any]], **target: Any) -> dict[str, str]:
    h = harness(graph, **target)
    return {
        uid: h.call("vulcan_node_version", node)
        for uid, node in graph.items()
        if node["resource_type"] == "model"
    }


@settings(max_examples=40, deadline=None)
@given(projects())
def test_versions_are_the_oracles(graph: dict[str, dict[str, Any]]) -> None:
    got = versions(graph)
    assert got == {uid: oracle.version(uid, graph) for uid in got}
    h = harness(graph)
    for uid in got:
        assert h.call("vulcan_node_identity", graph[uid]) == oracle.identity_hash(graph[uid])


@settings(max_examples=30, deadline=None)
@given(projects())
def test_same_code_same_version_in_every_target(graph: dict[str, dict[str, Any]]) -> None:
    moved = copy.deepcopy(graph)
    for node in moved.values():
        if node["resource_type"] == "model":
            node.update(
                {"schema": "dbt_alice", "database": "dev_catalog", "alias": "x_" + node["name"]}
            )
    assert versions(graph, target="prod") == versions(moved, target="dev")


@settings(max_examples=30, deadline=None)
@given(projects(), st.data())
def test_a_change_versions_the_model_and_below(graph: dict[str, dict[str, Any]], data: Any) -> None:
    models = sorted(uid for uid, n in graph.items() if n["resource_type"] == "model")
    changed = data.draw(st.sampled_from(models))
    edited = copy.deepcopy(graph)
    edited[changed]["raw_code"] += " -- edited"
    if edited[changed]["config"].get("materialized") == "table":
        edited[changed]["checksum"]["checksum"] += "-edited"
    before, after = versions(graph), versions(edited)
    if oracle.config(graph[changed]).get("forward_only") is True:
        assert before == after  # its change applies forward: no version moves
        return
    below = {changed}
    for uid in models:  # in creation order: parents first
        if set(graph[uid]["depends_on"]["nodes"]) & below:
            below.add(uid)
    for uid in models:
        forward_only = oracle.config(graph[uid]).get("forward_only") is True
        if forward_only:
            assert before[uid] == after[uid], uid  # keeps its version through any change
        elif uid in below and not _shielded(uid, changed, graph):
            assert before[uid] != after[uid], uid
        elif uid not in below:
            assert before[uid] == after[uid], uid


def _shielded(uid: str, changed: str, graph: dict[str, dict[str, Any]]) -> bool:
    """Whether every path from `changed` to `uid` passes a forward_only model (which keeps
    its version, so the models below it keep theirs)."""
    if uid == changed:
        return False
    parents = [p for p in graph[uid]["depends_on"]["nodes"] if p in graph]
    reaching = [p for p in parents if p == changed or _reaches(changed, p, graph)]
    return all(
        p != changed
        and (oracle.config(graph[p]).get("forward_only") is True or _shielded(p, changed, graph))
        for p in reaching
    )


def _reaches(source: str, uid: str, graph: dict[str, dict[str, Any]]) -> bool:
    if uid == source:
        return True
    return any(
        _reaches(source, p, graph)
        for p in graph[uid].get("depends_on", {}).get("nodes", [])
        if p in graph
    )


def _pointer_rows(
    graph: dict[str, dict[str, Any]], prod_uses: list[str]
) -> dict[str, list[dict[str, Any]]]:
    """The log as read: prod's pointer at the shared table of each model in `prod_uses`."""
    h = harness(graph)
    out: dict[str, list[dict[str, Any]]] = {}
    for uid in prod_uses:
        node = graph[uid]
        version = h.call("vulcan_node_version", node)
        shared = h.call("vulcan_relation_key", h.call("vulcan_physical_relation", node, version))
        key = h.call("vulcan_pointer_key", node)
        details = '{"environment": "prod", "physical": "' + shared + '"}'
        out[key] = [
            {
                "relation": key,
                "row_type": "pointer",
                "details": details,
                "fingerprint": version,
                "at": 1,
                "model_id": uid,
            }
        ]
    return out


@settings(max_examples=40, deadline=None)
@given(projects(), st.data())
def test_choices_are_the_oracles(graph: dict[str, dict[str, Any]], data: Any) -> None:
    models = sorted(uid for uid, n in graph.items() if oracle.is_virtual(n))
    if not models:
        return
    prod_uses = data.draw(st.lists(st.sampled_from(models), unique=True))
    target = data.draw(st.sampled_from(["prod", "dev"]))
    window = data.draw(st.booleans())
    by_key = _pointer_rows(graph, prod_uses)
    h = harness(graph, target, vulcan_dev_start="3 days" if window else None)
    from datetime import datetime

    deferred = data.draw(st.booleans()) and target != "prod"
    for uid in models:
        ctx = _context(h, graph[uid], datetime(2025, 1, 11, 1))
        if deferred:
            ctx["deferred"] = {"for": [uid]}
        got = h.call("vulcan_virtual_resolve", ctx, uid, dict(by_key))
        want = oracle.resolve(
            uid,
            graph,
            is_prod=target == "prod",
            window=window,
            prod_uses=prod_uses,
            deferred=deferred,
        )
        assert (got["own"], got["reuse"]) == (want.own, want.reuse), uid
        if got["own"]:
            assert got["key"].endswith("__" + target)


def test_a_windowed_unique_key_builds_its_own_table_and_so_do_its_children() -> None:
    graph = {
        SEED["unique_id"]: SEED,
        "model.p.dim": model("dim", ["seed.p.raw"], UK, start="2025-01-01", unique_key="id"),
        "model.p.fact": model("fact", ["model.p.dim"]),
        "model.p.other": model("other", ["seed.p.raw"]),
    }
    h = harness(graph, "dev", vulcan_dev_start="2025-01-08")
    from datetime import datetime

    ctx = _context(h, graph["model.p.fact"], datetime(2025, 1, 11))
    assert ctx["window"] == datetime(2025, 1, 8)
    fact = h.call("vulcan_virtual_resolve", ctx, "model.p.fact", {})
    dim = h.call("vulcan_virtual_resolve", ctx, "model.p.dim", {})
    assert dim["own"] and fact["own"]
    assert fact["key"] == f"vulcan_physical.fact__{ctx['nodes']['model.p.fact']['version']}__dev"
    other_ctx = _context(h, graph["model.p.other"], datetime(2025, 1, 11))
    assert not h.call("vulcan_virtual_resolve", other_ctx, "model.p.other", {})["own"]
    # without the window every kind's history is whole: shared
    h = harness(graph, "dev")
    ctx = _context(h, graph["model.p.fact"], datetime(2025, 1, 11))
    assert not h.call("vulcan_virtual_resolve", ctx, "model.p.fact", {})["own"]


def test_dev_start_forms() -> None:
    from datetime import datetime

    at = datetime(2025, 1, 11, 5, 30)
    assert harness({}, "dev", vulcan_dev_start="7 days").call("vulcan_dev_start", at) == datetime(
        2025, 1, 4
    )
    assert harness({}, "dev", vulcan_dev_start="2 hours").call("vulcan_dev_start", at) == datetime(
        2025, 1, 11, 3
    )
    assert harness({}, "dev", vulcan_dev_start="2025-01-02").call(
        "vulcan_dev_start", at
    ) == datetime(2025, 1, 2)
    assert harness({}, "prod", vulcan_dev_start="7 days").call("vulcan_dev_start", at) is None
    assert harness({}, "dev").call("vulcan_dev_start", at) is None
    import pytest

    from tests.support.macro_harness import CompilerError

    with pytest.raises(CompilerError, match="vulcan_dev_start"):
        harness({}, "dev", vulcan_dev_start="last week").call("vulcan_dev_start", at)


def test_physical_names_and_schema() -> None:
    node = model("Daily-Sales", [])
    h = harness({}, "dev", vulcan_physical_schema="phys")
    assert str(h.call("vulcan_physical_relation", node, "abc")) == "phys.daily_sales__abc"
    assert (
        str(h.call("vulcan_physical_relation", node, "abc", "PR-42"))
        == "phys.daily_sales__abc__pr_42"
    )
    assert h.call("vulcan_pointer_key", node) == "phys.daily_sales"
    # the table beside each, where a rebuild of a table some view shows is written
    assert (
        str(h.call("vulcan_physical_relation", node, "abc", aside=True))
        == "phys.daily_sales__abc_b"
    )
    assert (
        str(h.call("vulcan_physical_relation", node, "abc", "PR-42", True))
        == "phys.daily_sales__abc_b__pr_42"
    )
    import pytest

    from tests.support.macro_harness import CompilerError

    with pytest.raises(CompilerError, match="vulcan_physical_schema"):
        harness({}, "dev", vulcan_physical_schema="x; drop").call("vulcan_physical_schema")


def test_defer_reading_another_version_of_a_parent_builds_a_table_of_its_own() -> None:
    """dbt's --defer (the relation `ref()` gives): a parent read from prod's view is another
    version than this environment's when its code changed; the same version is harmless."""
    from datetime import datetime
    from types import SimpleNamespace

    daily = model("daily", ["seed.p.raw"], code="select 2")
    rollup = model("rollup", ["model.p.daily"])
    graph = {SEED["unique_id"]: SEED, "model.p.daily": daily, "model.p.rollup": rollup}
    old_daily = {**daily, "raw_code": "select 1"}
    h = harness(graph, "dev")
    prod_view = SimpleNamespace(database=None, schema="analytics_prod", identifier="daily")
    old = h.call("vulcan_node_version", old_daily)
    old_key = h.call("vulcan_relation_key", h.call("vulcan_physical_relation", old_daily, old))
    pointer = {
        "relation": h.call("vulcan_pointer_key", daily),
        "row_type": "pointer",
        "details": json.dumps(
            {"environment": "prod", "physical": old_key, "view": "analytics_prod.daily"}
        ),
        "fingerprint": old,
        "at": 1,
        "model_id": "model.p.daily",
    }
    by_key = {pointer["relation"]: [pointer], old_key: []}
    h.context["ref"] = lambda package, name, v=None: prod_view
    try:
        ctx = _context(h, rollup, datetime(2025, 1, 11))
        # without --defer only this environment's own view is looked at (dev has none)
        h.context["invocation_args_dict"] = {}
        assert h.call("vulcan_virtual_deferred", ctx, rollup, by_key, {}) == {}
        h.context["invocation_args_dict"] = {"defer": True}
        assert h.call("vulcan_virtual_deferred", ctx, rollup, by_key, {}) == {
            "model.p.daily": old_key
        }
        ctx["deferred"] = {"for": ["model.p.rollup"]}
        chosen = h.call("vulcan_virtual_resolve", ctx, "model.p.rollup", by_key)
        assert chosen["own"] and chosen["key"].endswith("__dev")
        # prod's view on this environment's version of the parent: nothing to set apart
        same = h.call("vulcan_node_version", daily)
        same_key = h.call("vulcan_relation_key", h.call("vulcan_physical_relation", daily, same))
        pointer["details"] = pointer["details"].replace(old_key, same_key)
        ctx = _context(h, rollup, datetime(2025, 1, 11))
        assert h.call("vulcan_virtual_deferred", ctx, rollup, by_key, {}) == {}
        # prod never builds from another environment's version
        pointer["details"] = pointer["details"].replace(same_key, old_key)
        h = harness(graph, "prod")
        ctx = _context(h, rollup, datetime(2025, 1, 11))
        try:
            h.call("vulcan_virtual_deferred", ctx, rollup, by_key, {})
        except Exception as error:  # dbt's compiler error, raised through the harness
            assert "with --defer, prod" in str(error) and "Nothing was written" in str(error)
        else:
            raise AssertionError("prod built from another environment's version")
    finally:
        h.context.pop("ref", None)
        h.context["invocation_args_dict"] = {}


def _pointer(key: str, env: str, physical: str, version: str) -> dict[str, Any]:
    """A pointer row of model.p.daily: `env`'s view (analytics.daily) on `physical`."""
    details = {"environment": env, "physical": physical, "view": "analytics.daily"}
    return {
        "relation": key,
        "row_type": "pointer",
        "details": json.dumps(details),
        "fingerprint": version,
        "at": 1,
        "model_id": "model.p.daily",
    }


def test_a_view_of_this_environment_on_an_old_version_of_a_parent_is_read_as_such() -> None:
    """Without --defer: the parent's view in this environment still shows the version of its
    last run here (its code changed since, it is not selected). Dev builds the child into a
    table of its own (never the shared one prod would take); prod refuses, naming the fix."""
    from datetime import datetime

    from tests.support.macro_harness import CompilerError

    daily = model("daily", ["seed.p.raw"], code="select 2")
    rollup = model("rollup", ["model.p.daily"])
    graph = {SEED["unique_id"]: SEED, "model.p.daily": daily, "model.p.rollup": rollup}
    old_daily = {**daily, "raw_code": "select 1"}
    for target in ("dev", "prod"):
        h = harness(graph, target)
        h.context["invocation_args_dict"] = {}
        key = h.call("vulcan_pointer_key", daily)
        old = h.call("vulcan_node_version", old_daily)
        old_key = h.call("vulcan_relation_key", h.call("vulcan_physical_relation", old_daily, old))
        new = h.call("vulcan_node_version", daily)
        new_key = h.call("vulcan_relation_key", h.call("vulcan_physical_relation", daily, new))
        ctx = _context(h, rollup, datetime(2025, 1, 11))
        # the view on the parent's version of its code: nothing set apart
        by_key = {key: [_pointer(key, target, new_key, new)], new_key: []}
        assert h.call("vulcan_virtual_deferred", ctx, rollup, by_key, {}) == {}
        # another target's view on the old version: not what this target reads
        by_key = {key: [_pointer(key, "ci", old_key, old)], new_key: []}
        assert h.call("vulcan_virtual_deferred", ctx, rollup, by_key, {}) == {}
        # this target's view on the old version
        by_key = {key: [_pointer(key, target, old_key, old)], new_key: []}
        if target == "prod":
            try:
                h.call("vulcan_virtual_deferred", ctx, rollup, by_key, {})
            except CompilerError as error:
                assert "prod's views of its parents show" in str(error), error
                assert "-s +rollup" in str(error) and "Nothing was written" in str(error)
            else:
                raise AssertionError("prod built a version from an old parent")
            continue
        assert h.call("vulcan_virtual_deferred", ctx, rollup, by_key, {}) == {
            "model.p.daily": old_key
        }
        # its rows read too, for the upstream waits
        assert any(f"'{old_key}'" in sql for sql in h.statements), h.statements
        ctx["deferred"] = {"for": ["model.p.rollup"]}
        chosen = h.call("vulcan_virtual_resolve", ctx, "model.p.rollup", by_key)
        assert chosen["own"] and chosen["key"].endswith("__dev")


@settings(max_examples=60, deadline=None)
@given(
    prod_on=st.sampled_from(["first", "aside", "other", None]),
    first_at=st.sampled_from([0, 5, 9]),
    aside_at=st.sampled_from([0, 5, 9]),
    target=st.sampled_from(["prod", "dev"]),
)
def test_the_table_of_a_version_is_the_oracles(
    prod_on: str | None, first_at: int, aside_at: int, target: str
) -> None:
    """A version's two tables: a run reading prod's version takes the one prod's view shows;
    a run writing takes the one whose log is newer (a rebuild's, finished or not)."""
    from datetime import datetime

    daily = model("daily", ["seed.p.raw"])
    graph = {SEED["unique_id"]: SEED, "model.p.daily": daily}
    h = harness(graph, target)
    version = h.call("vulcan_node_version", daily)
    first, aside = (
        h.call("vulcan_relation_key", h.call("vulcan_physical_relation", daily, version, aside=a))
        for a in (False, True)
    )
    pointer = h.call("vulcan_pointer_key", daily)
    shown = {"first": first, "aside": aside, "other": "vulcan_physical.daily__0123456789"}
    by_key: dict[str, list[dict[str, Any]]] = {pointer: []}
    if prod_on is not None:
        by_key[pointer] = [_pointer(pointer, "prod", shown[prod_on], version)]
    for key, at in ((first, first_at), (aside, aside_at)):
        if at:
            by_key[key] = [{"relation": key, "row_type": "processed", "details": "", "at": at}]
    ctx = _context(h, daily, datetime(2025, 1, 11))
    got = h.call("vulcan_virtual_resolve", ctx, "model.p.daily", by_key)
    reuse = target != "prod" and prod_on in ("first", "aside")
    assert got["reuse"] == reuse
    want = oracle.current_table(
        shown[prod_on] if reuse and prod_on else None, [(first, first_at), (aside, aside_at)]
    )
    assert got["key"] == want
    assert {got["key"], got["aside_key"]} == {first, aside}
