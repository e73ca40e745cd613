"""The operations oracle (tests/oracle/operations.py): model selection, what vulcan_restate
records, and the plan report built from planning.plan_model's batches."""

from __future__ import annotations

from datetime import datetime

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
    assert names(operations.select_nodes(NODES, "b a")) == ["b", "a"]
    with pytest.raises(VulcanConfigError, match="no dbt-vulcan model matches c, zz"):
        operations.select_nodes(NODES, ["c", "zz"])


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


def test_plan_report() -> None:
    state = RelationState((row("2025-01-01", "2025-01-04"),))
    reports = operations.build_reports(NODES[:1], {"s.a": state}, {"model.p.a": True}, RunVars(NOW))
    (report,) = reports
    assert report.processed == [(datetime(2025, 1, 1), datetime(2025, 1, 4))]
    assert merge_ranges(report.missing) == [(datetime(2025, 1, 4), datetime(2025, 1, 11))]
    assert [b["label"] for b in report.batches] == ["2025-01-04 - 2025-01-10"]
