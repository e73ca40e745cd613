"""planning/invocation_reads.sql: what the `vulcan` adapter's one read of an invocation covers
is what every selected model's own read asks for (planning/model_state.sql), with and without
the virtual layer; the package reads per model (none)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.macro_harness import Harness

TR = "incremental_by_time_range"


def node(name: str, parents: list[str], materialized: str = TR) -> dict[str, Any]:
    config: dict[str, Any] = {"materialized": materialized}
    if materialized == TR:
        config["meta"] = {"time_column": "d", "start": "2025-01-01"}
    return {
        "unique_id": f"model.p.{name}",
        "resource_type": "model",
        "name": name,
        "alias": name,
        "schema": "s",
        "database": None,
        "raw_code": f"select 1 as {name}",
        "config": config,
        "depends_on": {"nodes": [f"model.p.{p}" for p in parents]},
        "checksum": {"name": "sha256", "checksum": "c-" + name},
        "columns": {},
    }


# a -> b -> v (a view) -> d; e -> d; f unrelated
GRAPH = {
    n["unique_id"]: n
    for n in (
        node("a", []),
        node("b", ["a"]),
        node("v", ["b"], "view"),
        node("d", ["v", "e"]),
        node("e", []),
        node("f", []),
    )
}


def harness(adapter_type: str, selected: list[str], virtual: bool) -> Harness:
    h = Harness.of_module(f"{__name__}.{adapter_type}") if adapter_type == "vulcan" else None
    h = h or Harness(adapter_type=adapter_type)
    h.context["graph"] = {"nodes": GRAPH, "sources": {}}
    h.context["selected_resources"] = [f"model.p.{s}" for s in selected]
    h.context["var"] = lambda name, default=None: (
        True if name == "vulcan_virtual" and virtual else default
    )
    h.context["target"] = {**h.context["target"], "name": "prod"}
    h.context["adapter"].wide_read_done = False
    return h


def asked(h: Harness, uid: str, virtual: bool) -> tuple[set[str], set[str]]:
    """What model `uid`'s own read asks for (planning/model_state.sql)."""
    n = GRAPH[uid]
    own = h.call("vulcan_node_state_key", n)
    if virtual:
        ctx = h.call("vulcan_virtual_context", n, None)
        return {*ctx["keys"], own}, set(ctx["prefixes"])
    parents = h.call("vulcan_upstream_models", n)
    return {own, *h.call("vulcan_upstream_keys", parents)}, set()


@pytest.mark.parametrize("virtual", [False, True])
@pytest.mark.parametrize("selected", [["b", "d"], ["d"], ["a", "b", "v", "d", "e", "f"]])
def test_the_invocations_read_covers_every_selected_models_read(
    selected: list[str], virtual: bool
) -> None:
    h = harness("vulcan", selected, virtual)
    wide = h.call("vulcan_invocation_reads")
    keys, prefixes = set(wide["keys"]), set(wide["prefixes"])
    for name in selected:
        want_keys, want_prefixes = asked(h, f"model.p.{name}", virtual)
        assert want_keys <= keys, name
        assert want_prefixes <= prefixes, name
    # nothing of an unrelated model
    if "f" not in selected:
        f_keys, f_prefixes = asked(h, "model.p.f", virtual)
        assert not f_keys & keys
        assert not f_prefixes & prefixes


def test_the_expected_keys_by_example() -> None:
    h = harness("vulcan", ["d"], False)
    wide = h.call("vulcan_invocation_reads")
    assert sorted(wide["keys"]) == ["s.b", "s.d", "s.e"]
    assert wide["prefixes"] == []
    h = harness("vulcan", ["d"], True)
    wide = h.call("vulcan_invocation_reads")
    # d and every dbt-vulcan model above it: their pointer keys and their tables' range
    names = {k.rsplit(".", 1)[-1] for k in wide["keys"]}
    assert {"d", "b", "e", "a"} <= names
    assert len(wide["prefixes"]) == 4 and all(p.endswith("__") for p in wide["prefixes"])


def test_none_once_read_and_in_the_package() -> None:
    h = harness("vulcan", ["d"], False)
    h.context["adapter"].wide_read_done = True
    assert h.call("vulcan_invocation_reads") is None
    assert harness("spark", ["d"], False).call("vulcan_invocation_reads") is None
