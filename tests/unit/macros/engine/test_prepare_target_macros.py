"""engine/prepare_target.sql: a rebuild of a parquet table that keeps its layout truncates it in
place after one `removed` row; anything the CREATE would give differently drops and creates."""

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

LAYOUT = {"file_format": "parquet", "partitioned_by": ["order_date"]}
QUERY = [
    {"name": "order_date", "dtype": "date"},
    {"name": "orders", "dtype": "bigint"},
]
DESCRIBE = "describe table extended s.t"


def described(
    columns: list[tuple[str, str]] | None = None, kind: str = "MANAGED", dynamic: bool = True
) -> FakeResult:
    columns = columns or [("orders", "bigint"), ("order_date", "date")]
    options = "[partitionOverwriteMode=dynamic]" if dynamic else "[]"
    return FakeResult(
        [
            *[(name, dtype, None) for name, dtype in columns],
            ("# Partition Information", "", ""),
            ("# col_name", "data_type", "comment"),
            ("order_date", "date", None),
            ("", "", ""),
            ("# Detailed Table Information", "", ""),
            ("Type", kind, ""),
            ("Provider", "parquet", ""),
            ("Storage Properties", options, ""),
        ]
    )


def plan(layout: Any = LAYOUT) -> dict[str, Any]:
    return {
        "has_state": True,
        "layout": layout,
        "fingerprint": "fp",
        "all_time": ["1900-01-01 00:00:00", "9999-12-31 00:00:00"],
    }


@pytest.fixture
def h() -> Harness:
    return Harness.of_module(__name__)


def test_unchanged_parquet_table_is_truncated_after_one_removed_row(h: Harness) -> None:
    h.query_results[DESCRIBE] = described()
    created = h.call(
        "vulcan_prepare_target",
        relation(),
        relation(),
        True,
        plan(),
        CFG,
        "select 1",
        {"query_columns": QUERY},
    )
    assert created is True
    first, append, last = h.statements
    assert first == DESCRIBE and last == "truncate table s.t"
    assert is_state_append(append)
    assert "'removed'" in appended_values(append) and '{"reset": true}' in append


@pytest.mark.parametrize(
    "change",
    ["external", "columns", "options", "layout", "no_layout", "location", "no_columns"],
)
def test_anything_the_create_would_change_is_not_kept(h: Harness, change: str) -> None:
    h.query_results[DESCRIBE] = described(
        columns=[("orders", "int"), ("order_date", "date")] if change == "columns" else None,
        kind="EXTERNAL" if change == "external" else "MANAGED",
        dynamic=change != "options",
    )
    layout = {
        "layout": {**LAYOUT, "partitioned_by": []},
        "no_layout": None,
    }.get(change, LAYOUT)
    cfg = {**CFG, "location_root": "/x"} if change == "location" else CFG
    query = None if change == "no_columns" else QUERY
    kept = h.call("_vulcan_parquet_keeps_table", relation(), plan(layout), cfg, query)
    assert kept is False
    # nothing is read when the log or the config already says so
    reads = h.statements
    if change in ("layout", "no_layout", "location", "no_columns"):
        assert reads == []
    else:
        assert reads == [DESCRIBE]
