"""The package on stock adapters: each kind's SQL rendered under dbt's dispatch order for
`type: spark` (spark__, default__) and `type: databricks` (databricks__, spark__, default__),
with an adapter that has none of the `vulcan` adapter's Python methods: any `vulcan__` variant
or `adapter.vulcan_*` call on the run path would fail here. (`make databricks` runs the
package on stock dbt-databricks against a Databricks-protocol server.)"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.macro_harness import (
    CompilerError,
    FakeResult,
    Harness,
    appended_values,
    is_state_append,
    relation,
    stock_harness,
)

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


@pytest.fixture(params=["spark", "databricks"])
def h(request: pytest.FixtureRequest) -> Harness:
    return stock_harness(str(request.param), SQL)


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
        "where `d` >= CAST('2025-01-01' AS DATE) AND `d` < CAST('2025-01-03' AS DATE)"
    )
    head = {
        "delta": "insert into s.t replace where `d` >= CAST('2025-01-01' AS DATE)",
        "parquet": "insert overwrite table s.t by name select * from ",
        "iceberg": "insert into s.t by name select * from ",
    }[file_format]
    if file_format == "delta":
        # REPLACE WHERE matches by position: the rows in the table's order, read once per run
        assert statements.pop(0) == "describe s.t"
        assert "select `d`, `n` from (select * from (select * from src" in statements[0]
        filtered += ") as vulcan_by_name"
    if file_format == "iceberg":
        # a table the run did not create: the range is deleted first (a batch written but
        # not recorded by an earlier run is replaced, never doubled)
        assert statements.pop(0) == (
            "delete from s.t where `d` >= CAST('2025-01-01' AS DATE) "
            "AND `d` < CAST('2025-01-03' AS DATE)"
        )
    assert len(statements) == 2
    assert statements[0].startswith(head) and statements[0].endswith(filtered)
    # the state row: its own partition of the parquet log (safe under threads in both modes)
    assert appended_values(statements[1]).startswith("('s.t', ")
    assert "'2025-01-01 00:00:00', '2025-01-03 00:00:00', 'processed', 'fp'" in statements[1]
    # the order read is recorded with the batch, for the next run (engine/in_table_order.sql)
    recorded = '"table_columns": ["d", "n"]' in statements[1]
    assert recorded is (file_format == "delta"), statements[1]


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
    insert, recorded = h.statements
    assert insert == (
        "insert into s.t by name select * from "
        "(select * from src where d between '2025-01-01' and '2025-01-02') as vulcan_batch"
    )
    # untracked: the run is recorded as an empty range at the execution time
    assert appended_values(recorded).startswith(
        "('s.t', 'model.p.t', '2025-01-05 00:00:00', '2025-01-05 00:00:00', 'processed', 'fp', "
    )


def test_stale_stages_are_asked_of_the_metastore(h: Harness) -> None:
    assert h.call("vulcan_stale_stages", relation()) == []
    assert h.statements == ["show tables in s like 't__vulcan_*'"]


@pytest.mark.parametrize(
    ("kind", "extra", "refused"),
    [
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


def test_safety_analysis_runs_without_a_statement(h: Harness) -> None:
    # the package's token reading (macros/safety/) needs no Spark and no adapter method
    h.call("vulcan_check_safety", cfg(TR, "delta", safety_overrides=[]), "select 1 as d")
    assert h.statements == []


# --- incremental_by_unique_key ------------------------------------------------------------

UK = "incremental_by_unique_key"
UK_CONFIG = {
    "unique_key": ["id", "lower(email)"],
    "when_matched": [
        "WHEN MATCHED AND source.op = 'D' THEN DELETE",
        "WHEN MATCHED THEN UPDATE SET target.name = coalesce(source.name, target.name)",
    ],
    "merge_filter": "target.d >= @start_ds",
    "incremental_predicates": ["DBT_INTERNAL_DEST.region = 'eu'"],
}
UK_DESCRIBE = [("id", "bigint", None), ("email", "string", None), ("name", "string", None)]


def test_the_unique_key_kind_passes_the_extras_check(h: Harness) -> None:
    assert not str(h.call("vulcan_check_extras", cfg(UK, "delta"))).strip()
    assert h.statements == []


@pytest.mark.parametrize("file_format", ["delta", "iceberg", "parquet"])
def test_unique_key_batch_renders_without_the_adapter(h: Harness, file_format: str) -> None:
    settings = cfg(
        UK, file_format, **{k: v for k, v in UK_CONFIG.items() if k != "incremental_predicates"}
    )
    h.context["model"] = {**h.context["model"], "config": UK_CONFIG}
    h.query_results["describe table extended s.t"] = FakeResult(UK_DESCRIBE)
    extra = {"created": False, "per_run": {}}
    h.call(
        "vulcan_run_batches",
        UK,
        "unique_key",
        relation(),
        PLAN,
        settings,
        None,
        None,
        "upsert",
        extra,
    )
    on = (
        "on target.id = source.id and lower(target.email) = lower(source.email) "
        "and ((target.d >= '2025-01-01') and (target.region = 'eu'))"
    )
    duplicate = (
        "raise_error(concat('Model \\'t\\' (incremental_by_unique_key): duplicate unique_key"
    )
    if file_format == "parquet":
        stage, swap = h.statements[0], h.statements[1:]
        assert stage.startswith("describe table extended s.t")
        assert swap[0].startswith("create table s.t__vulcan_stage_")
        assert on in swap[0] and duplicate in swap[0]
        deleting = "where not coalesce(source.__vulcan_s and target.__vulcan_t and (case when "
        assert deleting + "source.op = 'D' then true" in swap[0]
        assert swap[1].startswith(
            "insert overwrite table s.t by name select `id`, `email`, `name` from "
            "s.t__vulcan_stage_"
        )
        assert swap[2].startswith("drop table if exists s.t__vulcan_stage_")
        rest = swap[3:]
    else:
        merge, rest = h.statements[0], h.statements[1:]
        assert merge.startswith("merge into s.t as target using (select __vulcan_row.* from (")
        assert on in merge and duplicate in merge
        assert merge.endswith(
            f"{on} WHEN MATCHED AND source.op = 'D' THEN DELETE WHEN MATCHED THEN UPDATE SET "
            "target.name = coalesce(source.name, target.name) when not matched then insert *"
        )
    assert len(rest) == 1 and is_state_append(rest[0])


def test_a_bad_unique_key_is_refused_in_package_mode(h: Harness) -> None:
    bad = cfg(UK, "delta", unique_key=["source.id"], when_matched=["WHEN MATCHED THEN INSERT *"])
    with pytest.raises(CompilerError) as exc:
        h.call("vulcan_unique_key_spec", bad, {}, [])
    assert str(exc.value) == (
        "Invalid config for model 't' (incremental_by_unique_key), 2 problem(s):\n"
        "  - unique_key: 'source.id' names a table; write the column alone (it is matched as "
        "source.<key> = target.<key>)\n"
        "  - when_matched clause 1 ('WHEN MATCHED THEN INSERT *'): the action must be UPDATE "
        "SET ... or DELETE"
    )


@pytest.mark.parametrize(
    ("adapter_type", "expected"), [("spark", "parquet"), ("databricks", "delta")]
)
def test_a_models_format_defaults_to_the_adapters_own(adapter_type: str, expected: str) -> None:
    """No `file_format`: parquet on Spark, Delta on Databricks (dbt-databricks' default); a
    model's own value wins on either."""
    h = stock_harness(adapter_type, "select 1")
    node = {"name": "t", "config": {"materialized": TR, "time_column": "d", "start": "2025-01-01"}}
    assert h.call("vulcan_settings", node)["file_format"] == expected
    assert h.call("vulcan_default_file_format") == expected
    node["config"]["file_format"] = "iceberg"
    assert h.call("vulcan_settings", node)["file_format"] == "iceberg"


@pytest.mark.parametrize(
    ("adapter_type", "expected"), [("spark", "parquet"), ("databricks", "delta")]
)
def test_state_format_defaults_to_the_targets_own(adapter_type: str, expected: str) -> None:
    """No var, no profile field: parquet on Spark; Delta on Databricks (a Unity Catalog managed
    table is Delta)."""
    h = stock_harness(adapter_type, "select 1")
    target = h.context["target"]
    h.context["target"] = {**target, "state_file_format": None}
    try:
        assert h.call("vulcan_state_file_format") == expected
        h.call("vulcan_record_intervals", "('s.t', 'm')")
    finally:
        h.context["target"] = target
    if expected == "delta":
        assert h.statements == ["insert into vulcan_state.vulcan_intervals values ('s.t', 'm')"]
    else:
        assert appended_values(h.statements[0]) == "('s.t', 'm')"
