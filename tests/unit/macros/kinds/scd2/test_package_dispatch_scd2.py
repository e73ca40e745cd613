"""SCD type 2 on stock adapters: the kinds' checks and write statements rendered under dbt's
dispatch order for `type: spark` and `type: databricks`, with an adapter that has none of the
`vulcan` adapter's Python methods (tests/unit/macros/kinds/test_package_dispatch.py has the
other kinds).
The statements must hold the SQL of the Python oracle (tests/oracle/scd2.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle.config import validate
from tests.oracle.scd2 import Scd2Model, detection_time
from tests.support.macro_harness import (
    STAGE,
    CompilerError,
    Harness,
    is_state_append,
    relation,
    squash,
    stock_harness,
)

BY_TIME = "scd_type_2_by_time"
BY_COLUMN = "scd_type_2_by_column"
QUERY = [("id", "int"), ("name", "string"), ("updated_at", "timestamp")]
SQL = "select id, name, updated_at from src"
BATCH = {
    "index": 1,
    "count": 1,
    "start": "1970-01-01 00:00:00",
    "end": "2025-01-05 00:00:00",
    "intervals": 0,
    "label": "all",
    "dirty": False,
    "tracked": False,
}
PLAN = {
    "batches": [BATCH],
    "fingerprint": "fp",
    "execution_time": "2025-01-05 00:00:00",
    "fingerprint_changed": False,
}
CONFIGS = {
    BY_TIME: {"unique_key": "id", "invalidate_hard_deletes": True},
    BY_COLUMN: {"unique_key": "id", "columns": ["name"]},
}


@pytest.fixture(params=["spark", "databricks"])
def h(request: pytest.FixtureRequest) -> Harness:
    return stock_harness(str(request.param), SQL)


def settings(kind: str, file_format: str) -> dict[str, Any]:
    return validate("t", kind, {**CONFIGS[kind], "file_format": file_format}).as_dict()


def oracle(kind: str, file_format: str) -> Scd2Model:
    return Scd2Model.build(
        validate("t", kind, {**CONFIGS[kind], "file_format": file_format}), QUERY
    )


def run_scd2(h: Harness, kind: str, file_format: str, created: bool) -> list[str]:
    cfg = settings(kind, file_format)
    found = h.call("vulcan_scd_type_2_model", cfg, [{"name": n, "dtype": t} for n, t in QUERY])
    assert found["problems"] == []
    extra = {"scd2": found["spec"], "created": created}
    h.call("vulcan_run_batches", kind, "scd2", relation(), PLAN, cfg, None, None, "merge", extra)
    # the untracked batch's run is recorded last (an empty range at the execution time)
    *writes, recorded = h.statements
    assert is_state_append(recorded)
    assert f"'{PLAN['execution_time']}', '{PLAN['execution_time']}', 'processed'" in recorded
    return writes


def query_sql() -> str:
    """The batch's query as the strategies get it (no time filter on SCD2)."""
    return f"select * from ({SQL}) as vulcan_batch"


@pytest.mark.parametrize("kind", [BY_TIME, BY_COLUMN])
@pytest.mark.parametrize("file_format", ["delta", "parquet", "iceberg"])
def test_a_created_table_is_filled_with_the_first_versions(
    h: Harness, kind: str, file_format: str
) -> None:
    statements = run_scd2(h, kind, file_format, created=True)
    detected = detection_time(PLAN["execution_time"], BATCH)
    content = squash(oracle(kind, file_format).rewrite_sql("s.t", "SRC", detected, empty=True))
    assert len(statements) == 1
    head = "insert into s.t by name " if file_format == "parquet" else "insert into s.t "
    assert statements[0].startswith(head)
    # the oracle's statement with the batch's query in place of SRC
    source = squash(
        h.call(
            "vulcan_batch_query",
            SQL,
            settings(kind, file_format),
            BATCH,
            None,
            PLAN["execution_time"],
        )["sql"]
    )
    assert statements[0][len(head) :] == content.replace("SRC", source)
    assert "s.t AS vulcan_table" not in statements[0]  # a known-empty table is not read


@pytest.mark.parametrize("kind", [BY_TIME, BY_COLUMN])
def test_parquet_rewrites_through_a_stage(h: Harness, kind: str) -> None:
    statements = run_scd2(h, kind, "parquet", created=False)
    stage = f"s.t{STAGE}"
    assert len(statements) == 3
    create, swap, drop = statements
    assert create.startswith(
        f"create table {stage} using parquet tblproperties ('vulcan.replay' = 'overwrite') "
        "as WITH vulcan_rows AS"
    )
    detected = detection_time(PLAN["execution_time"], BATCH)
    expected = squash(oracle(kind, "parquet").rewrite_sql("s.t", "SRC", detected))
    body = create[create.index(" as WITH ") + len(" as ") :]
    assert squash(body.replace(squash(query_sql()), "SRC")) == expected
    assert swap == f"insert overwrite table s.t by name select * from {stage}"
    assert drop == f"drop table if exists {stage}"


@pytest.mark.parametrize("kind", [BY_TIME, BY_COLUMN])
def test_delta_stages_the_changes_then_merges(h: Harness, kind: str) -> None:
    statements = run_scd2(h, kind, "delta", created=False)
    changes_stage = "s.t__vulcan_changes_0123abcd4567"
    assert len(statements) == 3
    create, merge, drop = statements
    detected = detection_time(PLAN["execution_time"], BATCH)
    spec = oracle(kind, "delta")
    assert create.startswith(f"create table {changes_stage} using parquet as WITH vulcan_rows AS")
    body = create[create.index(" as WITH ") + len(" as ") :]
    assert squash(body.replace(squash(query_sql()), "SRC")) == squash(
        spec.changes_sql("s.t", "SRC", detected)
    )
    assert merge == squash(spec.merge_sql("s.t", changes_stage))
    assert drop == f"drop table if exists {changes_stage}"


@pytest.mark.parametrize("kind", [BY_TIME, BY_COLUMN])
def test_iceberg_merges_the_changes_query(h: Harness, kind: str) -> None:
    statements = run_scd2(h, kind, "iceberg", created=False)
    assert len(statements) == 1
    detected = detection_time(PLAN["execution_time"], BATCH)
    spec = oracle(kind, "iceberg")
    expected = squash(spec.merge_sql("s.t", "(" + spec.changes_sql("s.t", "SRC", detected) + ")"))
    assert squash(statements[0].replace(squash(query_sql()), "SRC")) == expected


@pytest.mark.parametrize("kind", [BY_TIME, BY_COLUMN])
def test_scd2_kinds_pass_the_extras_check(h: Harness, kind: str) -> None:
    assert not str(h.call("vulcan_check_extras", settings(kind, "delta"))).strip()
    assert h.statements == []


def test_config_problems_are_raised_by_the_column_check(h: Harness) -> None:
    cfg = validate("t", BY_TIME, {"unique_key": "nope"}).as_dict()
    found = h.call("vulcan_scd_type_2_model", cfg, [{"name": n, "dtype": t} for n, t in QUERY])
    columns = h.call("vulcan_scd_type_2_table_columns", found["spec"])
    assert [c["name"] for c in columns] == ["id", "name", "updated_at", "valid_from", "valid_to"]
    with pytest.raises(CompilerError) as exc:
        h.call("vulcan_check_columns", cfg, columns, True, "partitioned_by", found["problems"])
    assert str(exc.value) == (
        "Invalid config for model 't' (scd_type_2_by_time), 1 problem(s):\n"
        "  - unique_key: 'nope' is not a column of the model's query; its columns are: "
        "id, name, updated_at"
    )
    assert h.statements == []


def test_the_scd2_strategies_are_the_three_formats(h: Harness) -> None:
    """The kind's own macros are not mistaken for write strategies (vulcan_scd2_<format>)."""
    with pytest.raises(CompilerError) as exc:
        h.call("vulcan_strategy_macro", "scd2", "orc")
    assert str(exc.value).endswith("available: delta, iceberg, parquet")
