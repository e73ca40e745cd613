"""The package on stock adapters: each kind's SQL rendered under dbt's dispatch order for
`type: spark` (spark__, default__) and `type: databricks` (databricks__, spark__, default__),
with an adapter that has none of the `vulcan` adapter's Python methods: any `vulcan__` variant
or `adapter.vulcan_*` call on the run path would fail here. (No Databricks workspace is
reachable from this project's CI: Databricks is tested as far as parsing and rendering go.)"""

from __future__ import annotations

from typing import Any

import pytest
from dbt.context.base import get_context_modules

from tests.unit.macro_harness import CompilerError, Harness, relation

TR = "incremental_by_time_range"
BATCH = {
    "index": 1,
    "count": 1,
    "start": "2025-01-01 00:00:00",
    "end": "2025-01-03 00:00:00",
    "intervals": 2,
    "label": "2025-01-01 - 2025-01-02",
    "dirty": False,
    "tracked": True,
}
PLAN = {
    "batches": [BATCH],
    "fingerprint": "fp",
    "execution_time": "2025-01-05 00:00:00",
    "fingerprint_changed": False,
}
SQL = "select * from src where d between @start_ds and @end_ds"

_HARNESSES: dict[str, Harness] = {}


@pytest.fixture(params=["spark", "databricks"])
def h(request: pytest.FixtureRequest) -> Harness:
    adapter_type = str(request.param)
    if adapter_type not in _HARNESSES:
        _HARNESSES[adapter_type] = Harness(adapter_type=adapter_type)
    harness = _HARNESSES[adapter_type].reset()
    harness.context.update(
        {
            "compiled_code": SQL,
            "modules": get_context_modules(),
            "store_raw_result": lambda *a, **k: None,
            "model": {"name": "t", "unique_id": "model.p.t", "language": "sql", "config": {}},
        }
    )
    return harness


def cfg(kind: str, file_format: str, **extra: Any) -> dict[str, Any]:
    base = {"kind": kind, "model": "t", "file_format": file_format, "partition_cols": []}
    base.update({"audits": [], "grains": []})
    if kind == TR:
        base.update(time_column="d", partition_cols=["d"])
    return {**base, **extra}


def run_batches(h: Harness, kind: str, strategy: str, settings: dict[str, Any]) -> list[str]:
    time_type = "date" if kind == TR else None
    h.call("vulcan_run_batches", kind, strategy, relation(), PLAN, settings, time_type)
    return h.statements


@pytest.mark.parametrize("file_format", ["delta", "parquet", "iceberg"])
def test_time_range_batch_and_state_append(h: Harness, file_format: str) -> None:
    statements = run_batches(h, TR, "time_range", cfg(TR, file_format))
    filtered = (
        "(select * from src where d between '2025-01-01' and '2025-01-02') as vulcan_batch "
        "where `d` >= CAST('2025-01-01' AS DATE) AND `d` <= CAST('2025-01-02' AS DATE)"
    )
    head = {
        "delta": "insert into s.t replace where `d` >= CAST('2025-01-01' AS DATE)",
        "parquet": "insert overwrite table s.t by name select * from ",
        "iceberg": "insert into s.t select * from ",
    }[file_format]
    assert len(statements) == 2
    assert statements[0].startswith(head) and statements[0].endswith(filtered)
    # the state row: a plain INSERT (the vulcan adapter's lock is not there)
    assert statements[1].startswith("insert into vulcan_state.vulcan_intervals values ('s.t', ")
    assert "'2025-01-01 00:00:00', '2025-01-03 00:00:00', 'processed', 'fp'" in statements[1]


def test_unmanaged_appends_by_name(h: Harness) -> None:
    kind = "incremental_unmanaged"
    untracked = {**BATCH, "tracked": False}
    h.call(
        "vulcan_run_batches",
        kind,
        "unmanaged",
        relation(),
        {**PLAN, "batches": [untracked]},
        cfg(kind, "delta"),
        None,
    )
    assert h.statements == [
        "insert into s.t by name select * from "
        "(select * from src where d between '2025-01-01' and '2025-01-02') as vulcan_batch"
    ]  # untracked: nothing recorded


def test_stale_stages_are_asked_of_the_metastore(h: Harness) -> None:
    assert h.call("vulcan_stale_stages", relation()) == []
    assert h.statements == ["show tables in s like 't__vulcan_*'"]


@pytest.mark.parametrize(
    ("kind", "extra", "refused"),
    [
        ("incremental_by_unique_key", {}, "the kind incremental_by_unique_key"),
        ("scd_type_2_by_column", {}, "the kind scd_type_2_by_column"),
        (TR, {"language": "python"}, "Python models"),
    ],
)
def test_what_needs_the_adapter_is_refused_up_front(
    h: Harness, kind: str, extra: dict[str, Any], refused: str
) -> None:
    h.context["model"] = {**h.context["model"], **extra}
    with pytest.raises(CompilerError) as exc:
        h.call("vulcan_check_extras", cfg(kind, "delta"))
    message = str(exc.value)
    assert message.startswith(f"Model 't': {refused}")
    assert f"the dbt_vulcan package on type: {h.adapter_type} runs" in message
    assert h.statements == []


def test_the_time_range_kind_passes_the_extras_check(h: Harness) -> None:
    assert not str(h.call("vulcan_check_extras", cfg(TR, "delta"))).strip()
    assert h.statements == []


def test_safety_analysis_is_an_adapter_extra(h: Harness) -> None:
    h.call("vulcan_check_safety", cfg(TR, "delta"), "select 1 as d")
    assert h.statements == []
