"""Macro rendering: the exact SQL each strategy and helper issues (no database)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.macro_harness import (
    INVOCATION_ID,
    STAGE,
    CompilerError,
    FakeResult,
    Harness,
    appended_values,
    is_state_append,
    relation,
    squash,
)
from tests.support.macro_harness import TIME_RANGE_CFG as CFG


@pytest.fixture
def h() -> Harness:
    """One harness per test module (loading every macro takes seconds), reset per test."""
    return Harness.of_module(__name__)


BATCH = {"index": 1, "count": 1, "start": "2025-01-01 00:00:00", "end": "2025-01-08 00:00:00"}
FILTER = "`order_date` >= CAST('2025-01-01' AS DATE) AND `order_date` < CAST('2025-01-08' AS DATE)"
SQL = "select * from (select 1) as vulcan_batch where " + FILTER


def args(harness: Harness, dirty: bool = False, **cfg: Any) -> dict[str, Any]:
    model = {"name": "t", "config": {"time_column": "order_date", "start": "2025-01-01"}}
    removed = None
    if dirty:
        harness.context["model"] = {**harness.context["model"], "unique_id": "model.p.t"}
        removed = harness.call(
            "vulcan_state_values", relation(), [[BATCH["start"], BATCH["end"]]], "removed", "fp"
        )
    return {
        "relation": relation(),
        "model": model,
        "cfg": {**CFG, **cfg},
        "batch": BATCH,
        "sql": SQL,
        "filter": FILTER,
        "time_type": "date",
        "dirty": dirty,
        "per_run": {},
        "removed_rows": removed,
    }


def test_delta_replaces_the_range_in_one_statement(h: Harness) -> None:
    h.call("vulcan_time_range_delta", args(h))
    # REPLACE WHERE matches columns by position: the rows in the table's order, by name
    assert h.statements == [
        "describe s.t",
        f"insert into s.t replace where {FILTER} select `d`, `n` from ({SQL}) as vulcan_by_name",
    ]


def test_parquet_new_range_is_one_dynamic_overwrite(h: Harness) -> None:
    h.call("vulcan_time_range_parquet", args(h))
    assert h.statements == [f"insert overwrite table s.t by name {SQL}"]


def test_parquet_dirty_range_marks_removed_then_drops_its_partitions(h: Harness) -> None:
    h.query_results["show partitions s.t"] = FakeResult(
        [
            ("order_date=2024-12-31",),
            ("order_date=2025-01-02",),
            ("order_date=2025-01-07",),
            ("order_date=2025-01-08",),
        ]
    )
    h.call("vulcan_time_range_parquet", args(h, dirty=True))
    assert is_state_append(h.statements[0])
    assert "'removed'" in h.statements[0]
    assert h.statements[1:] == [
        "show partitions s.t",
        "alter table s.t drop if exists partition (`order_date` = '2025-01-02'), "
        "partition (`order_date` = '2025-01-07')",
        f"insert overwrite table s.t by name {SQL}",
    ]


def test_parquet_not_partitioned_by_time_is_a_staged_rewrite(h: Harness) -> None:
    h.call("vulcan_time_range_parquet", args(h, partition_cols=[]))
    assert h.statements == [
        f"create table s.t{STAGE} using parquet as select * from s.t "
        f"where not coalesce({FILTER}, false)",
        f"insert into s.t{STAGE} by name {SQL}",
        f"alter table s.t{STAGE} set tblproperties ('vulcan.replay' = 'overwrite')",
        f"insert overwrite table s.t by name select * from s.t{STAGE}",
        f"drop table if exists s.t{STAGE}",
    ]


def test_iceberg_dirty_range_deletes_then_inserts(h: Harness) -> None:
    h.call("vulcan_time_range_iceberg", args(h, dirty=True, file_format="iceberg"))
    assert "'removed'" in h.statements[0]
    assert h.statements[1:] == [f"delete from s.t where {FILTER}", f"insert into s.t by name {SQL}"]


def test_iceberg_range_of_a_created_table_only_inserts(h: Harness) -> None:
    h.call("vulcan_time_range_iceberg", {**args(h, file_format="iceberg"), "created": True})
    assert h.statements == [f"insert into s.t by name {SQL}"]


def test_iceberg_range_the_log_does_not_know_is_deleted_first(h: Harness) -> None:
    """A batch written by a run that stopped before recording it: the rerun replaces it."""
    h.call("vulcan_time_range_iceberg", {**args(h, file_format="iceberg"), "created": False})
    assert h.statements == [f"delete from s.t where {FILTER}", f"insert into s.t by name {SQL}"]


@pytest.mark.parametrize(
    ("fmt", "replace", "head", "options"),
    [
        (
            "parquet",
            False,
            "create table s.t (`order_date` date, `v` string) using parquet",
            "options ('partitionOverwriteMode' = 'dynamic')",
        ),
        (
            "delta",
            True,
            "create or replace table s.t (`order_date` date, `v` string) using delta",
            "",
        ),
        ("delta", False, "create table s.t (`order_date` date, `v` string) using delta", ""),
        ("iceberg", False, "create table s.t (`order_date` date, `v` string) using iceberg", ""),
    ],
)
def test_create_empty_table(h: Harness, fmt: str, replace: bool, head: str, options: str) -> None:
    """A column list from the query's columns, no AS SELECT: no job runs (parquet), no empty
    data file is in the folder when the metastore registers the table (and records its size:
    Delta, Iceberg)."""
    h.reset(config={"tblproperties": {"delta.appendOnly": "false"}} if fmt == "delta" else {})
    query = "select 1 as order_date, 'x' as v"
    h.query_results[f"describe query {query}"] = FakeResult(
        [("order_date", "date", None), ("v", "string", None)]
    )
    cfg = {**CFG, "file_format": fmt}
    h.call("vulcan_create_empty_table", relation(), query, cfg, replace)
    sql = squash(h.statements[-1])
    assert sql.startswith(head)
    assert options in sql
    assert "partitioned by (`order_date`)" in sql
    assert h.statements[:-1] == [f"describe query {query}"]
    assert " as select " not in sql
    if fmt == "delta":  # dbt-spark's own clause, reached through the spark__ fallback
        assert "tblproperties ('delta.appendOnly' = 'false')" in sql


def test_create_empty_table_takes_the_columns_the_caller_described(h: Harness) -> None:
    """A rebuild's columns were read by the kind's check: not described a second time."""
    cfg = {**CFG, "file_format": "parquet"}
    columns = [{"name": "order_date", "dtype": "date"}, {"name": "v", "dtype": "decimal(10,2)"}]
    h.call("vulcan_create_empty_table", relation(), "select 1", cfg, False, columns)
    assert len(h.statements) == 1
    assert squash(h.statements[0]).startswith(
        "create table s.t (`order_date` date, `v` decimal(10,2)) using parquet"
    )


def test_create_empty_parquet_table_under_location_root_replaces_the_folder(h: Harness) -> None:
    """An external parquet table's folder keeps a dropped table's files: created AS SELECT of
    no rows, which replaces them (a column list would read them as its rows)."""
    h.reset(config={"location_root": "/lake"})
    h.query_results["set spark.sql.legacy.allowNonEmptyLocationInCTAS"] = FakeResult(
        [("spark.sql.legacy.allowNonEmptyLocationInCTAS", "false")]
    )
    query = "select 1 as order_date, 'x' as v"
    cfg = {**CFG, "file_format": "parquet", "location_root": "/lake"}
    h.call("vulcan_create_empty_table", relation(), query, cfg, False)
    create = next(squash(s) for s in h.statements if s.lstrip().startswith("create"))
    assert create.startswith("create table s.t using parquet")
    assert create.endswith(f"as select * from ({query}) as vulcan_schema where 1 = 0")
    assert not any(s.startswith("describe query") for s in h.statements)


def test_state_table_ddl_and_relation(h: Harness) -> None:
    assert str(h.call("vulcan_state_relation")) == "vulcan_state.vulcan_intervals"
    create_schema, create_table = (squash(s) for s in h.call("vulcan_create_state_table_sql"))
    assert create_schema == "create schema if not exists vulcan_state"
    assert create_table.startswith("create table if not exists vulcan_state.vulcan_intervals (")
    # parquet: every append its own partition; Hive's DDL, whose create-if-not-exists a
    # lost race cannot fail
    assert create_table.endswith(
        "seq int, details string) partitioned by (relation string, append_id string) "
        "stored as parquet"
    )
    assert "relation string, model_id" not in create_table
    h.context["target"] = {**h.context["target"], "state_file_format": "iceberg"}
    try:
        _, create_iceberg = (squash(s) for s in h.call("vulcan_create_state_table_sql"))
        h.context["target"] = {**h.context["target"], "state_file_format": "delta"}
        _, create_delta = (squash(s) for s in h.call("vulcan_create_state_table_sql"))
        h.call("vulcan_record_intervals", "('s.t', 'm')")
    finally:
        h.context["target"] = {**h.context["target"], "state_file_format": "parquet"}
    assert create_delta.endswith(
        "(relation string, model_id string, interval_start string, "
        "interval_end string, row_type string, fingerprint string, "
        "invocation_id string, recorded_at string, seq int, "
        "details string) using delta partitioned by (relation)"
    )
    assert h.statements == ["insert into vulcan_state.vulcan_intervals values ('s.t', 'm')"]
    # Iceberg retries a commit that lost a race with another append, more than its default 4
    # partitioned by relation: a fold deletes in its own relation's partition (state/fold.sql)
    assert create_iceberg.endswith(
        "details string) using iceberg partitioned by (relation) "
        "tblproperties ('commit.retry.num-retries' = '30')"
    )


def test_parquet_appends_each_get_their_own_partition(h: Harness) -> None:
    h.call("vulcan_record_intervals", "('s.t', 'm')")
    h.call("vulcan_record_intervals", "('s.t', 'm')")
    first, second = h.statements
    assert appended_values(first) == "('s.t', 'm')"
    ids = [s.split("relation, '", 1)[1].split("'", 1)[0] for s in (first, second)]
    assert ids[0] != ids[1] and all(i.startswith(INVOCATION_ID + "-") for i in ids)


def test_appends_committed_together_are_one_insert_of_their_bodies(h: Harness) -> None:
    """The `vulcan` adapter joins the appends its threads make together (group_commit.py):
    the head they share, each append's body (on parquet with its own id)."""
    import sqlglot
    from sqlglot import exp

    from dbt.adapters.vulcan.group_commit import group_sql

    for file_format in ("parquet", "delta"):
        h.context["target"] = {**h.context["target"], "state_file_format": file_format}
        try:
            head = h.call("_vulcan_state_insert_head")
            bodies = [
                h.call("_vulcan_state_insert_body", f"('s.{t}', 'm', {n})", f"id-{t}")
                for n, t in enumerate("ab")
            ]
            h.call("vulcan_record_intervals", "('s.a', 'm', 0)", "id-a")
        finally:
            h.context["target"] = {**h.context["target"], "state_file_format": "parquet"}
        assert squash(head + bodies[0]) == h.statements[-1]  # an append alone: as before
        if file_format == "delta":  # Spark's VALUES is a query term (sqlglot parses none)
            assert squash(group_sql(head, bodies)) == (
                "insert into vulcan_state.vulcan_intervals values ('s.a', 'm', 0) "
                "union all values ('s.b', 'm', 1)"
            )
            continue
        insert = sqlglot.parse_one(group_sql(head, bodies), read="spark")
        assert isinstance(insert, exp.Insert) and isinstance(insert.expression, exp.Union)
        assert insert.args.get("overwrite")
        assert insert.this.sql("spark").startswith("vulcan_state.vulcan_intervals")
        joined = insert.expression.sql("spark")
        assert "'s.a'" in joined and "'s.b'" in joined
        assert "'id-a'" in joined and "'id-b'" in joined


def test_record_intervals_appends_escaped_rows(h: Harness) -> None:
    rows = h.call(
        "vulcan_state_values",
        relation(),
        [["2025-01-01 00:00:00", "2025-01-02 00:00:00"], ["2025-01-03 00:00:00", "2025-01-04"]],
        "processed",
        "fp",
        '{"time_type": "date"}',
        "model.p.it's",
    )
    h.call("vulcan_record_intervals", rows)
    assert len(h.statements) == 1
    statement = appended_values(h.statements[0])
    assert statement.startswith("('s.t', ")
    assert "'model.p.it\\'s'" in statement
    assert "'2025-01-01 00:00:00', '2025-01-02 00:00:00', 'processed', 'fp'" in statement
    # one row per interval, numbered in the statement; details escaped
    assert statement.count("('s.t', ") == 2
    assert ', 1, \'{"time_type": "date"}\')' in statement
    assert statement.endswith(', 2, \'{"time_type": "date"}\')')


def test_strategy_lookup_lists_available_formats(h: Harness) -> None:
    assert (
        h.call("vulcan_strategy_macro", "time_range", "delta")
        is h.context["vulcan_time_range_delta"]
    )
    with pytest.raises(CompilerError, match=r'"hudi".*available: delta, iceberg, parquet'):
        h.call("vulcan_strategy_macro", "time_range", "hudi")


class _Col:
    def __init__(self, name: str) -> None:
        self.name = name


def _stale_stages(
    h: Harness, monkeypatch: pytest.MonkeyPatch, stages: list[Any], columns: list[str]
) -> None:
    """What the adapter reports in recovery: the stale stages and the first one's columns."""
    adapter = h.context["adapter"]
    monkeypatch.setattr(adapter, "vulcan_stale_stages", lambda rel: stages, raising=False)
    columns_of = lambda rel: [_Col(c) for c in columns]  # noqa: E731
    monkeypatch.setattr(adapter, "get_columns_in_relation", columns_of, raising=False)
    drop = lambda rel: h.statements.append(f"drop table if exists {rel}")  # noqa: E731
    monkeypatch.setattr(adapter, "drop_relation", drop, raising=False)


def test_recovery_replays_a_marked_stage_and_drops_an_unmarked_one(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    marked = relation(identifier=f"t{STAGE}")
    unmarked = relation(identifier="t__vulcan_changes_99aa00bb11cc")
    _stale_stages(h, monkeypatch, [marked, unmarked], ["id", "amount", "__vulcan_marker"])
    h.query_results[f"show tblproperties s.t{STAGE}"] = FakeResult(
        [("transient_lastDdlTime", "1"), ("vulcan.replay", "overwrite")]
    )
    h.call("vulcan_recover_interrupted_write", relation(), CFG)
    assert h.statements == [
        f"show tblproperties s.t{STAGE}",
        # a stage with marker rows: the table's partition columns read first (none here: no
        # partition a batch emptied to drop)
        "describe table extended s.t",
        f"insert overwrite table s.t by name select `id`, `amount` from s.t{STAGE} "
        "where not __vulcan_marker",
        f"drop table if exists s.t{STAGE}",
        "show tblproperties s.t__vulcan_changes_99aa00bb11cc",
        "drop table if exists s.t__vulcan_changes_99aa00bb11cc",
    ]


def test_recovery_without_stale_stages_issues_nothing(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    _stale_stages(h, monkeypatch, [], [])
    h.call("vulcan_recover_interrupted_write", relation(), CFG)
    assert h.statements == []


def test_recovery_replays_only_the_stages_the_log_names(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model that looks for stages only while a `staging` row is pending (engine/stage.sql):
    the stage that row names is replayed; another marked stage found then (a stopped run's of
    long ago) is dropped, never replayed over newer rows."""
    named = relation(identifier=f"t{STAGE}")
    other = relation(identifier="t__vulcan_stage_00000000beef")
    _stale_stages(h, monkeypatch, [named, other], ["id", "amount"])
    h.query_results[f"show tblproperties s.t{STAGE}"] = FakeResult([("vulcan.replay", "overwrite")])
    replayed = h.call("vulcan_recover_interrupted_write", relation(), CFG, [f"t{STAGE}"])
    assert replayed == [f"t{STAGE}"]
    assert h.statements == [
        f"show tblproperties s.t{STAGE}",
        f"insert overwrite table s.t by name select `id`, `amount` from s.t{STAGE}",
        f"drop table if exists s.t{STAGE}",
        "drop table if exists s.t__vulcan_stage_00000000beef",
    ]


PARTITION = {"kind": "incremental_by_partition", "file_format": "parquet"}


@pytest.mark.parametrize(
    ("cfg", "query", "every_run"),
    [
        # the kinds that stage every batch
        ({"kind": "incremental_by_unique_key", "file_format": "parquet"}, "s.src", True),
        ({"kind": "scd_type_2_by_time", "file_format": "parquet"}, "s.src", True),
        ({"kind": "scd_type_2_by_column", "file_format": "delta"}, "s.src", True),
        ({"kind": "tracked", "file_format": "iceberg"}, "s.src", True),
        ({**CFG, "partition_cols": []}, "s.src", True),  # parquet not partitioned by time
        (PARTITION, "s.t", True),  # a partition query reading its own table
        ({"kind": "incremental_unmanaged", "file_format": "delta", "audits": ["x"]}, "s.src", True),
        # the kinds that stage only for a schema change's rewrite
        (CFG, "s.src", False),
        ({**CFG, "file_format": "delta"}, "s.src", False),
        ({"kind": "incremental_by_unique_key", "file_format": "iceberg"}, "s.src", False),
        ({"kind": "scd_type_2_by_time", "file_format": "iceberg"}, "s.src", False),
        (PARTITION, "s.src", False),
        ({"kind": "incremental_unmanaged", "file_format": "parquet"}, "s.src", False),
    ],
)
def test_which_models_look_for_stages_every_run(
    h: Harness, cfg: dict[str, Any], query: str, every_run: bool
) -> None:
    h.context.update({"this": relation(), "compiled_code": f"select * from {query}"})
    try:
        assert h.call("vulcan_lists_stages", cfg) is every_run
    finally:
        del h.context["this"], h.context["compiled_code"]


def test_stage_of_one_table_only() -> None:
    from dbt.adapters.vulcan.impl import is_stage_of

    assert is_stage_of("Orders", "orders__vulcan_stage_0123abcd4567")
    assert is_stage_of("orders", "orders__vulcan_changes_0123abcd4567")
    assert is_stage_of("orders", "orders__vulcan_audit_0123abcd4567")
    assert not is_stage_of("orders", "orders__vulcan_stage")  # no run id
    assert not is_stage_of("orders", "orders_v2__vulcan_stage_0123abcd4567")
    assert not is_stage_of("ord", "orders__vulcan_stage_0123abcd4567")
    assert not is_stage_of("orders", "orders__vulcan_stage_01_x")


def _columns(h: Harness, pairs: list[tuple[str, str]]) -> list[Any]:
    return [h.context["api"].Column.create(name, dtype) for name, dtype in pairs]


def test_a_schema_change_check_reads_the_table_unless_the_last_run_recorded_its_columns(
    h: Harness,
) -> None:
    cfg = {"model": "m", "on_additive_change": "allow", "on_destructive_change": "error"}
    query = _columns(h, [("id", "string"), ("note", "string")])
    digest = h.call("vulcan_columns_digest", query)
    assert digest == h.call(
        "vulcan_columns_digest", _columns(h, [("ID", "STRING"), ("Note", "string")])
    )
    assert digest != h.call(
        "vulcan_columns_digest", _columns(h, [("id", "string"), ("note", "int")])
    )
    target = relation("t")

    # no digest recorded: the table is described; equal columns: this run records the digest
    h.table_columns = ["id", "note"]
    plan: dict[str, Any] = {"fingerprint_changed": False, "previous_details": {}}
    assert h.call("vulcan_apply_schema_change", target, query, cfg, plan) is None
    assert h.statements == [f"describe query select * from {target}"]
    assert plan["columns"] == digest

    # the last run recorded these columns: nothing is read
    h.statements.clear()
    plan = {"fingerprint_changed": False, "previous_details": {"columns": digest}}
    assert h.call("vulcan_apply_schema_change", target, query, cfg, plan) is None
    assert h.statements == []
    assert plan["columns"] == digest

    # a changed definition, or a query with other columns, reads the table again; a change
    # applied records nothing (the next run compares once more)
    for plan in (
        {"fingerprint_changed": True, "previous_details": {"columns": digest}},
        {"fingerprint_changed": False, "previous_details": {"columns": "another"}},
    ):
        h.statements.clear()
        h.table_columns = ["id"]
        h.call("vulcan_apply_schema_change", target, query, cfg, plan)
        assert h.statements[0] == f"describe query select * from {target}"
        assert any("add columns" in s for s in h.statements), h.statements
        assert "columns" not in plan


@pytest.mark.parametrize(
    ("plan", "extra", "described", "order"),
    [
        # nothing recorded: the table is described
        ({"previous_details": {}}, {}, True, ["d", "n"]),
        # the last run recorded the table's order, the table is the one it wrote
        ({"previous_details": {"table_columns": ["n", "d"]}}, {}, False, ["n", "d"]),
        # a changed definition, a schema change of this run, a table this run created
        (
            {"previous_details": {"table_columns": ["n"]}, "fingerprint_changed": True},
            {},
            True,
            ["d", "n"],
        ),
        (
            {"previous_details": {"table_columns": ["n"]}, "schema_changed": True},
            {},
            True,
            ["d", "n"],
        ),
        ({"previous_details": {"table_columns": ["n"]}}, {"created": True}, True, ["d", "n"]),
        # the kind's own check read the table (the partition kind's layout check)
        ({"previous_details": {}}, {"table_columns": ["n", "d"]}, False, ["n", "d"]),
        ({"schema_changed": True}, {"table_columns": ["n"]}, True, ["d", "n"]),
    ],
)
def test_the_table_s_column_order_is_read_once_and_recorded(
    h: Harness, plan: dict[str, Any], extra: dict[str, Any], described: bool, order: list[str]
) -> None:
    h.table_columns = ["d", "n"]
    a = {**args(h), "plan": plan, **extra}
    h.call("vulcan_time_range_delta", a)
    assert (h.statements[0] == "describe s.t") is described, h.statements
    select = ", ".join(f"`{c}`" for c in order)
    assert (
        h.statements[-1]
        == f"insert into s.t replace where {FILTER} select {select} from ({SQL}) as vulcan_by_name"
    )
    assert a["per_run"]["table_columns"] == order
