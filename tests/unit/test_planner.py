"""Planner and operations logic: batches from config + state + vars, schema-change decisions,
partition filtering, model selection and restatements."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from dbt.adapters.vulcan import operations
from dbt.adapters.vulcan.config import validate
from dbt.adapters.vulcan.planner import (
    RunVars,
    partition_spec_sql,
    partitions_in_range,
    plan_model,
    schema_change,
)
from dbt.adapters.vulcan.state import StateRow
from dbt.adapters.vulcan.state_cache import RelationState
from dbt.adapters.vulcan.timeutil import VulcanConfigError

NOW = datetime(2025, 1, 11, 3)
SQL = "select 1"


def cfg(**extra: Any) -> Any:
    return validate(
        "m", "incremental_by_time_range", {"time_column": "d", "start": "2025-01-01", **extra}
    )


def row(start: str, end: str, kind: str = "processed", seq: int = 0, details: str = "") -> StateRow:
    return StateRow(
        "s.m",
        datetime.fromisoformat(start),
        datetime.fromisoformat(end),
        kind,
        "fp",
        "inv",
        datetime(2025, 1, 1, 0, 0, seq),
        seq,
        details=details,
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


def test_schema_change_decisions() -> None:
    table = [("d", "date"), ("n", "bigint")]
    added = [("d", "date"), ("n", "bigint"), ("x", "string")]
    dropped = [("d", "date")]
    retyped = [("d", "date"), ("n", "string")]
    assert not schema_change(cfg(), table, table).changed
    change = schema_change(cfg(), table, added)
    assert change.add_columns == ["`x` string"] and not change.errors
    change = schema_change(cfg(on_additive_change="error"), table, added)
    assert "on_additive_change is 'error'" in change.errors[0]
    change = schema_change(cfg(on_additive_change="ignore"), table, added)
    assert change.projection == ["`d`", "`n`"] and not change.add_columns
    change = schema_change(cfg(), table, dropped)
    assert "dropped n" in change.errors[0]
    change = schema_change(cfg(on_destructive_change="warn"), table, retyped)
    assert change.rewrite and "n: bigint -> string" in change.warnings[0]
    assert change.rewrite_select == "cast(`d` as date) as `d`, cast(`n` as string) as `n`"
    change = schema_change(cfg(on_destructive_change="ignore"), table, dropped)
    assert change.projection == ["`d`", "cast(null as bigint) as `n`"]


def test_partitions_in_range_and_spec_escaping() -> None:
    parts = [
        "d=2024-12-31/r=a",
        "d=2025-01-01/r=a",
        "d=2025-01-03/r=b%27c",
        "d=__HIVE_DEFAULT_PARTITION__/r=a",
        "d=2025-01-04/r=a",
    ]
    found = partitions_in_range(parts, cfg(), "date", "2025-01-01 00:00:00", "2025-01-04 00:00:00")
    assert found == [{"d": "2025-01-01", "r": "a"}, {"d": "2025-01-03", "r": "b'c"}]
    assert partition_spec_sql(found[1]) == "partition (`d` = '2025-01-03', `r` = 'b\\'c')"
    fmt = validate(
        "m", "incremental_by_time_range", {"time_column": ["ds", "%Y%m%d"], "start": "2025-01-01"}
    )
    assert partitions_in_range(
        ["ds=20250102", "ds=20250110"], fmt, "string", "2025-01-01 00:00:00", "2025-01-05 00:00:00"
    ) == [{"ds": "20250102"}]


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


def test_plan_report_text() -> None:
    state = RelationState((row("2025-01-01", "2025-01-04"),))
    reports = operations.build_reports(NODES[:1], {"s.a": state}, {"model.p.a": True}, RunVars(NOW))
    text = operations.format_plan(reports, NOW)
    assert "└── a: 2025-01-04 - 2025-01-10" in text
    assert "processed: 2025-01-01 - 2025-01-03" in text
    assert "next run: 1 batch\n      [1/1] 2025-01-04 - 2025-01-10" in text
