"""The operations oracle (tests/oracle/operations.py): model selection, what vulcan_restate
records, and the plan report built from planning.plan_model's batches."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.oracle import operations
from tests.oracle.planning import RunVars
from tests.oracle.state import RelationState, merge_ranges
from tests.support.state_logs import row

NOW = datetime(2025, 1, 11, 3)


NODES = [
    {
        "resource_type": "model",
        "name": "a",
        "schema": "s",
        "alias": "a",
        "unique_id": "model.p.a",
        "tags": ["sales"],
        "config": {
            "materialized": "incremental_by_time_range",
            "time_column": "d",
            "start": "2025-01-01",
        },
    },
    {
        "resource_type": "model",
        "name": "b",
        "schema": "s",
        "alias": "b",
        "unique_id": "model.p.b",
        "tags": [],
        "config": {"materialized": "incremental_by_unique_key", "unique_key": "id"},
    },
    {
        "resource_type": "model",
        "name": "c",
        "schema": "s",
        "alias": "c",
        "unique_id": "model.p.c",
        "tags": ["sales"],
        "config": {"materialized": "table"},
    },
    {
        "resource_type": "model",
        "name": "h",
        "schema": "s",
        "alias": "h",
        "unique_id": "model.p.h",
        "tags": [],
        "config": {"materialized": "scd_type_2_by_time", "unique_key": "id"},
    },
]


def test_select_nodes_by_name_and_tag() -> None:
    names = lambda nodes: [n["name"] for n in nodes]  # noqa: E731
    assert names(operations.select_nodes(NODES, None)) == ["a", "b", "h"]
    assert names(operations.select_nodes(NODES, "tag:sales")) == ["a"]
    # in DAG order, then by name (these four do not depend on each other)
    assert names(operations.select_nodes(NODES, "b a")) == ["a", "b"]
    with pytest.raises(VulcanConfigError, match="no dbt-vulcan model matches c, zz"):
        operations.select_nodes(NODES, ["c", "zz"])


def _chained(name: str, parents: list[str], kind: str = "incremental_by_unique_key") -> Any:
    return {
        "resource_type": "model",
        "name": name,
        "schema": "s",
        "alias": name,
        "unique_id": f"model.p.{name}",
        "tags": [],
        "config": {"materialized": kind, "unique_key": "id"},
        "depends_on": {"nodes": [f"model.p.{p}" for p in parents]},
    }


# z -> v (a plain view) -> y -> x, and w on z; names against the DAG order
CHAIN = [
    _chained("x", ["y"]),
    _chained("y", ["v"]),
    _chained("v", ["z"], "view"),
    _chained("z", []),
    _chained("w", ["z"]),
]


def test_select_nodes_graph_operators() -> None:
    names = lambda select: [n["name"] for n in operations.select_nodes(CHAIN, select)]  # noqa: E731
    # DAG order (a plain view between two models keeps the chain), then by name
    assert names(None) == ["z", "w", "y", "x"]
    assert names("z+") == ["z", "w", "y", "x"]
    assert names("z+1") == ["z", "w"]  # the view is the first level
    assert names("z+2 x") == ["z", "w", "y", "x"]
    assert names("+y") == ["z", "y"]
    assert names("1+y") == ["y"]
    assert names("2+y+") == ["z", "y", "x"]
    assert names("@y") == ["z", "y", "x"]
    assert names("@w") == ["z", "w"]
    assert names("v+") == ["y", "x"]  # a term may start at a model of another kind
    assert operations.selection(CHAIN, "z+ x").named == {"model.p.z", "model.p.x"}
    with pytest.raises(
        VulcanConfigError, match="no dbt-vulcan model matches v, q\\+; models: w, x, y, z"
    ):
        names("v q+ y")
    with pytest.raises(VulcanConfigError, match="'@' and '\\+' cannot be combined in @y\\+"):
        names("@y+")


def test_restatements_widen_full_history_kinds_and_refuse_scd2() -> None:
    items = operations.restatements(NODES[:2], "2025-01-03", "2025-01-04")
    assert [(i.name, i.start, i.end, i.full) for i in items] == [
        ("a", "2025-01-03 00:00:00", "2025-01-05 00:00:00", False),
        ("b", "1900-01-01 00:00:00", "9999-12-31 00:00:00", True),
    ]
    assert items[1].warning and "widened to the whole history" in items[1].warning
    with pytest.raises(VulcanConfigError, match="disable_restatement"):
        operations.restatements(NODES, "2025-01-03", "2025-01-04")
    with pytest.raises(VulcanConfigError, match="both start and end"):
        operations.restatements(NODES[:1], None, "2025-01-04")
    # h (SCD type 2: disable_restatement by default) reached, not named: skipped
    items = operations.restatements(NODES, "2025-01-03", "2025-01-04", named={"model.p.a"})
    assert [(i.name, i.skipped) for i in items] == [
        ("a", None),
        ("b", None),
        ("h", "disable_restatement"),
    ]
    with pytest.raises(VulcanConfigError, match="disable_restatement"):
        operations.restatements(NODES, "2025-01-03", "2025-01-04", named={"model.p.h"})


def test_plan_report() -> None:
    state = RelationState((row("2025-01-01", "2025-01-04"),))
    reports = operations.build_reports(NODES[:1], {"s.a": state}, {"model.p.a": True}, RunVars(NOW))
    (report,) = reports
    assert report.processed == [(datetime(2025, 1, 1), datetime(2025, 1, 4))]
    assert merge_ranges(report.missing) == [(datetime(2025, 1, 4), datetime(2025, 1, 11))]
    assert [b["label"] for b in report.batches] == ["2025-01-04 - 2025-01-10"]
