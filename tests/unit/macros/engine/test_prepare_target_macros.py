"""engine/prepare_target.sql: a rebuild records one `removed` row (`reset`) before it touches
the table; an existing Delta or Iceberg table is replaced atomically, anything else is dropped
and created; a write that is not idempotent gets a second row (`rebuilt`) once the table is
empty."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.macro_harness import TIME_RANGE_CFG as CFG
from tests.support.macro_harness import (
    FakeResult,
    Harness,
    appended_values,
    is_state_append,
    relation,
)


def plan(has_state: bool = True) -> dict[str, Any]:
    return {
        "has_state": has_state,
        "layout": {"file_format": "parquet", "partitioned_by": ["order_date"]},
        "fingerprint": "fp",
        "all_time": ["1900-01-01 00:00:00", "9999-12-31 00:00:00"],
    }


@pytest.fixture
def h(monkeypatch: pytest.MonkeyPatch) -> Harness:
    harness = Harness.of_module(__name__)
    # the adapter's DROP, as a statement in order
    drop = lambda rel: harness.statements.append(f"drop table if exists {rel}")  # noqa: E731
    monkeypatch.setattr(harness.context["adapter"], "drop_relation", drop, raising=False)
    return harness


def prepare(h: Harness, file_format: str, accumulating: bool = False, **kw: Any) -> list[str]:
    cfg = {**CFG, "file_format": file_format}
    # the query's columns, as the kind's check read them
    checked = {
        "extra": {"write_check": accumulating},
        "query_columns": [{"name": "order_date", "dtype": "date"}],
        **kw.get("checked", {}),
    }
    created = h.call(
        "vulcan_prepare_target",
        relation(),
        kw.get("existing", relation()),
        True,
        plan(kw.get("has_state", True)),
        cfg,
        "select 1 as order_date",
        checked,
    )
    assert created is True
    return [" ".join(s.split()).lower() for s in h.statements]


def appends(statements: list[str]) -> list[str]:
    return [appended_values(s) for s in statements if is_state_append(s)]


def test_parquet_table_is_dropped_and_created_after_one_removed_row(h: Harness) -> None:
    statements = prepare(h, "parquet")
    assert is_state_append(statements[0]), statements
    (reset,) = appends(statements)
    assert "'removed'" in reset and '{"reset": true}' in reset
    rest = statements[1:]
    assert rest[0].startswith("drop table if exists s.t"), rest
    assert rest[1].startswith("create table s.t (`order_date` date) using parquet"), rest
    # nothing read to decide or create (no DESCRIBE: the check's columns), nothing truncated
    assert not [s for s in statements if s.startswith(("describe", "truncate"))]


@pytest.mark.parametrize("file_format", ["delta", "iceberg"])
def test_delta_and_iceberg_tables_are_replaced_not_dropped(h: Harness, file_format: str) -> None:
    statements = prepare(h, file_format)
    assert len(appends(statements)) == 1
    assert not [s for s in statements if s.startswith("drop")], statements
    assert [s for s in statements if s.startswith("create or replace table s.t")], statements


@pytest.mark.parametrize("file_format", ["parquet", "delta"])
def test_an_accumulating_write_gets_the_rebuilt_row_once_the_table_is_empty(
    h: Harness, file_format: str
) -> None:
    statements = prepare(h, file_format, accumulating=True)
    reset, rebuilt = appends(statements)
    assert '{"reset": true}' in reset
    assert '{"reset": true, "rebuilt": true}' in rebuilt
    # the second row after the table is created
    created = next(i for i, s in enumerate(statements) if s.startswith("create"))
    assert is_state_append(statements[-1]) and created < len(statements) - 1


def test_a_first_build_without_state_records_nothing(h: Harness) -> None:
    statements = prepare(h, "parquet", existing=None, has_state=False)
    assert appends(statements) == []
    assert statements[0].startswith("create table s.t"), statements


def test_a_kind_creating_from_its_own_sql_gets_that_sql_described(h: Harness) -> None:
    """The check's columns are the query's; a kind's `create_sql` (SCD type 2, tracked) adds
    its own columns, so the table's are read from that SQL."""
    own = "select 1 as order_date, cast(null as string) as h"
    h.query_results[f"describe query {own}"] = FakeResult(
        [("order_date", "date", None), ("h", "string", None)]
    )
    cfg = {**CFG, "file_format": "parquet"}
    checked = {"query_columns": [{"name": "order_date", "dtype": "date"}], "create_sql": own}
    h.call("vulcan_prepare_target", relation(), None, True, plan(False), cfg, own, checked)
    statements = [" ".join(s.split()).lower() for s in h.statements]
    assert statements[0] == f"describe query {own}"
    assert statements[1].startswith(
        "create table s.t (`order_date` date, `h` string) using parquet"
    )
