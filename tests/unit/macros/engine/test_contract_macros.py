"""dbt model contracts on dbt-vulcan's kinds (macros/engine/contract.sql): the contract's part of
the fingerprint (tests/oracle/planning.py as the oracle), the check and the table's query, the batch
projection and the constraints a Delta table gets."""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle.config import validate
from tests.oracle.planning import contract_signature, fingerprint
from tests.support.macro_harness import Harness

_H = Harness()
COLUMNS = {
    "id": {"name": "id", "data_type": "bigint", "constraints": [{"type": "not_null"}]},
    "Day": {"name": "Day", "data_type": "date", "constraints": []},
}


def node(enforced: bool | None, columns: dict[str, Any] | None = None, **extra: Any) -> dict:
    config = {} if enforced is None else {"contract": {"enforced": enforced, "alias_types": True}}
    return {
        "name": "m",
        "config": config,
        "columns": COLUMNS if columns is None else columns,
        **extra,
    }


@pytest.mark.parametrize("enforced", [None, False, True])
def test_signature_and_fingerprint_equal_the_oracle(enforced: bool | None) -> None:
    n = node(enforced)
    signature = _H.call("vulcan_contract_signature", n)
    assert signature == contract_signature(n)
    assert signature == ([["id", "bigint"], ["Day", "date"]] if enforced else None)
    cfg = validate("m", "incremental_by_time_range", {"time_column": "Day", "start": "2025-01-01"})
    code = "select 1 as id, current_date() as Day"
    got = _H.call("vulcan_fingerprint", code, cfg.as_dict(), signature)
    assert got == fingerprint(code, cfg, signature)
    # a model without an enforced contract keeps the hash it had before contracts counted
    if not enforced:
        assert got == fingerprint(code, cfg)
    else:
        assert got != fingerprint(code, cfg)
        changed = [["id", "int"], ["Day", "date"]]
        assert _H.call("vulcan_fingerprint", code, cfg.as_dict(), changed) != got


def test_without_a_contract_the_query_and_projection_are_unchanged() -> None:
    _H.reset()
    _H.context["model"] = node(None)
    assert _H.call("vulcan_contract_query", "select 1 as id") == "select 1 as id"
    assert _H.call("vulcan_contract_projection", "s.t", True, None) is None
    assert (
        _H.call("vulcan_contract_constraints", "s.t", {"model": "m", "file_format": "delta"})
        is None
    )
    assert _H.statements == []


def test_a_new_table_s_batches_select_the_contract_s_columns_in_its_order() -> None:
    _H.reset()
    _H.context["model"] = node(True)
    assert _H.call("vulcan_contract_projection", "s.t", True, None) == ["`id`", "`Day`"]
    # a projection the schema change decided (on_*_change: ignore) is kept
    assert _H.call("vulcan_contract_projection", "s.t", False, ["`x`"]) == ["`x`"]


CONSTRAINED = node(
    True,
    {
        "id": {"name": "id", "data_type": "bigint", "constraints": [{"type": "not_null"}]},
        "amount": {
            "name": "amount",
            "data_type": "int",
            "constraints": [{"type": "check", "expression": "amount >= 0", "name": "non_negative"}],
        },
        "code": {"name": "code", "data_type": "string", "constraints": [{"type": "unique"}]},
    },
    constraints=[{"type": "check", "expression": "id > 0", "name": None}, {"type": "primary_key"}],
)


def test_delta_gets_check_and_not_null_as_check_constraints() -> None:
    _H.reset()
    _H.context["model"] = CONSTRAINED
    _H.call("vulcan_contract_constraints", "s.t", {"model": "m", "file_format": "delta"})
    assert _H.statements == [
        "alter table s.t add constraint `check_1` check (id > 0)",
        "alter table s.t add constraint `id_not_null` check (`id` is not null)",
        "alter table s.t add constraint `non_negative` check (amount >= 0)",
    ]


@pytest.mark.parametrize("file_format", ["parquet", "iceberg"])
def test_other_formats_get_no_constraints(file_format: str) -> None:
    _H.reset()
    _H.context["model"] = CONSTRAINED
    _H.call("vulcan_contract_constraints", "s.t", {"model": "m", "file_format": file_format})
    assert _H.statements == []
