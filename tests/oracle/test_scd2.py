"""The SCD type 2 oracle's SQL building (tests/oracle/scd2.py); the semantics run on Spark in
tests/functional/kinds/test_scd2.py."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
import sqlglot

from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.oracle.config import validate
from tests.oracle.scd2 import Scd2Model, detection_time, quote

MENU = [("id", "int"), ("name", "string"), ("price", "double"), ("updated_at", "timestamp")]
AT = datetime(2020, 1, 2, 11)


def build(kind: str = "scd_type_2_by_time", query: Any = None, **config: Any) -> Scd2Model:
    config.setdefault("unique_key", "id")
    if kind == "scd_type_2_by_column":
        config.setdefault("columns", "*")
    return Scd2Model.build(validate("m", kind, config), query or MENU)


def parses(sql: str) -> None:
    """The statement is well-formed Spark SQL (sqlglot's spark dialect)."""
    sqlglot.parse_one(sql, read="spark")


def test_table_columns_are_the_query_then_valid_from_and_valid_to() -> None:
    model = build(valid_from_name="vf", valid_to_name="vt", time_data_type="timestamp_ntz")
    assert model.table_columns() == [
        {"name": "id", "dtype": "int"},
        {"name": "name", "dtype": "string"},
        {"name": "price", "dtype": "double"},
        {"name": "updated_at", "dtype": "timestamp"},
        {"name": "vf", "dtype": "timestamp_ntz"},
        {"name": "vt", "dtype": "timestamp_ntz"},
    ]
    create = model.create_sql("select 1")
    assert create.startswith(
        "SELECT `id`, `name`, `price`, `updated_at`, CAST(NULL AS TIMESTAMP_NTZ) AS `vf`"
    )


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(VulcanConfigError) as err:
        build(
            "scd_type_2_by_column",
            [*MENU, ("valid_to", "timestamp")],
            unique_key=["id", "region"],
            columns=["name", "colour"],
            updated_at_name="changed",
        )
    text = str(err.value)
    assert "Invalid config for model 'm' (scd_type_2_by_column), 4 problem(s)" in text
    assert "unique_key: 'region' is not a column of the model's query" in text
    assert "columns: 'colour' is not a column" in text
    assert "updated_at_name: 'changed' is not a column" in text
    assert "valid_to_name: the model's query already has a column 'valid_to'" in text


def test_by_time_needs_its_updated_at_column() -> None:
    with pytest.raises(VulcanConfigError, match="updated_at_name: 'updated_at' is not a column"):
        build(query=MENU[:3])
    with pytest.raises(VulcanConfigError, match="also the valid_from_name"):
        build(valid_from_name="x", valid_to_name="X")


def test_names_resolve_case_insensitively_and_star_skips_keys_and_change_time() -> None:
    model = build(
        "scd_type_2_by_column",
        [("ID", "int"), ("Name", "string"), ("ds", "date")],
        unique_key="id",
        updated_at_name="DS",
    )
    assert model.keys == ("`ID`",)
    assert model.updated_at == "ds"
    assert model.watched == ("Name",)
    listed = build("scd_type_2_by_column", columns=["PRICE"])
    assert listed.watched == ("price",)


def test_unique_key_expressions_are_kept_and_columns_quoted() -> None:
    model = build(unique_key=["`id`", "lower(name)"])
    assert model.keys == ("`id`", "lower(name)")
    merge = model.merge_sql("db.t", "db.t__vulcan_changes")
    # plain keys are qualified with the target; expressions see only the target's columns
    assert "vulcan_target.`id` <=> vulcan_changes._vulcan_k0" in merge
    assert "lower(name) <=> vulcan_changes._vulcan_k1" in merge
    changes = model.changes_sql("db.t", "select 1", AT)
    assert "`id` AS _vulcan_k0, lower(name) AS _vulcan_k1" in changes
    assert quote("we`ird") == "`we``ird`"


def test_merge_closes_current_rows_and_inserts_new_versions() -> None:
    model = build(invalidate_hard_deletes=True)
    changes = model.changes_sql("db.menu", "select * from src", AT)
    parses(changes)
    merge = model.merge_sql("db.menu", f"({changes})")
    parses(merge)
    assert merge.startswith("MERGE INTO db.menu AS vulcan_target\nUSING (WITH vulcan_rows AS")
    assert (
        "ON vulcan_changes._vulcan_action = 'close' AND vulcan_target.`valid_to` IS NULL" in merge
    )
    update = (
        "WHEN MATCHED THEN UPDATE SET vulcan_target.`valid_to` = vulcan_changes._vulcan_close_at"
    )
    assert update in merge
    assert "THEN INSERT (`id`, `name`, `price`, `updated_at`, `valid_from`, `valid_to`)" in merge
    assert "VALUES (vulcan_changes._vulcan_c0, vulcan_changes._vulcan_c1," in merge
    # one row per action: closes carry the key, inserts the columns
    assert "SELECT IF(_vulcan_is_source, 'insert', 'close') AS _vulcan_action" in changes
    assert "WHERE _vulcan_close OR _vulcan_insert" in changes
    # deletes are seen at the detection time; the first load starts in 1970
    assert "ELSE CAST('2020-01-02 11:00:00+00:00' AS TIMESTAMP) END" in changes
    assert "THEN CAST('1970-01-01 00:00:00+00:00' AS TIMESTAMP)" in changes
    # hard deletes need closed rows (for a returning key's last valid_to): all rows are read
    assert "FROM db.menu AS vulcan_table\n)" in changes


def test_merge_reads_only_current_rows_without_hard_deletes() -> None:
    changes = build().changes_sql("db.menu", "select * from src", AT)
    assert "FROM db.menu AS vulcan_table\n  WHERE `valid_to` IS NULL" in changes
    assert "AND FALSE)" in changes  # a missing key is never closed


def test_rewrite_keeps_every_stored_row_in_table_column_order() -> None:
    sql = build().rewrite_sql("db.menu", "select * from src", AT)
    parses(sql)
    tail = sql[sql.rindex("SELECT `id`") :]
    assert tail.startswith(
        "SELECT `id`, `name`, `price`, `updated_at`,\n"
        "  IF(_vulcan_is_source, _vulcan_valid_from, `valid_from`) AS `valid_from`,"
    )
    assert "WHERE NOT _vulcan_is_source OR _vulcan_insert" in tail
    assert "FROM db.menu AS vulcan_table\n)" in sql  # history is kept: no filter


def test_known_empty_table_is_not_read() -> None:
    sql = build().rewrite_sql("db.menu", "select * from src", AT, empty=True)
    parses(sql)
    assert "db.menu" not in sql
    assert "WHEN TRUE THEN CAST('1970-01-01 00:00:00+00:00' AS TIMESTAMP)" in sql


def test_first_load_options() -> None:
    by_time = build(updated_at_as_valid_from=True).rewrite_sql("t", "s", AT)
    assert "THEN coalesce(CAST(`updated_at` AS TIMESTAMP), CAST('1970-01-01" in by_time
    by_column = build("scd_type_2_by_column", execution_time_as_valid_from=True)
    assert "= 0 THEN _vulcan_change_time" in by_column.rewrite_sql("t", "s", AT)


def test_by_column_compares_null_safely_and_history_sources_use_their_time() -> None:
    model = build("scd_type_2_by_column", columns=["name", "price"])
    sql = model.rewrite_sql("t", "s", AT)
    assert "NOT (`name` <=> _vulcan_current.c0 AND `price` <=> _vulcan_current.c1)" in sql
    assert "CAST('2020-01-02 11:00:00+00:00' AS TIMESTAMP) AS _vulcan_change_time" in sql
    history = build(
        "scd_type_2_by_column",
        [("id", "int"), ("v", "int"), ("ds", "date")],
        columns=["v"],
        updated_at_name="ds",
        invalidate_hard_deletes=True,
    ).rewrite_sql("t", "s", AT)
    assert (
        "coalesce(CAST(`ds` AS TIMESTAMP), CAST('2020-01-02 11:00:00+00:00' AS TIMESTAMP))"
        in history
    )
    # a key missing from a snapshot is gone as of the batch's latest snapshot
    assert "SELECT max(CAST(`ds` AS TIMESTAMP)) FROM vulcan_rows WHERE _vulcan_is_source" in history


def test_date_valid_columns() -> None:
    sql = build(time_data_type="date").rewrite_sql("t", "s", AT)
    assert "CAST('1970-01-01' AS DATE)" in sql
    assert "CAST('2020-01-02' AS DATE) AS _vulcan_change_time" not in sql  # by time: updated_at
    assert "CAST(`updated_at` AS DATE)" in sql


def test_duplicate_key_error_names_model_key_and_is_escaped() -> None:
    model = Scd2Model.build(
        validate("it's", "scd_type_2_by_column", {"unique_key": ["id", "name"], "columns": "*"}),
        MENU,
    )
    sql = model.rewrite_sql("t", "s", AT)
    parses(sql)
    assert "raise_error(concat('Model \\'it\\'s\\' (scd_type_2_by_column): '" in sql
    assert "share unique_key (id, name) = (" in sql
    assert "deduplicate the query" in sql
    # by column without updated_at_name: any second row of a key is a duplicate
    assert "_vulcan_source_rows AS _vulcan_dups" in sql
    by_time = build().rewrite_sql("t", "s", AT)
    assert "count(IF(_vulcan_is_source AND `updated_at` <=> _vulcan_latest" in by_time
    assert "and the same latest updated_at" in by_time


@pytest.mark.parametrize(
    ("batch", "expected"),
    [
        ({"index": 1, "count": 1, "end": "2020-01-02", "tracked": False}, datetime(2020, 1, 5)),
        ({"index": 3, "count": 3, "end": "2020-01-04", "tracked": True}, datetime(2020, 1, 5)),
        ({"index": 1, "count": 3, "end": "2020-01-02", "tracked": True}, datetime(2020, 1, 2)),
        ({"index": 1, "count": 3, "end": "2020-01-09", "tracked": True}, datetime(2020, 1, 5)),
    ],
)
def test_detection_time(batch: dict[str, Any], expected: datetime) -> None:
    assert detection_time("2020-01-05 00:00:00", batch) == expected


class _Java:
    """A stand-in for a py4j JVM exception."""

    def __init__(self, message: str, cause: _Java | None = None) -> None:
        self.message, self.cause = message, cause

    def getMessage(self) -> str:  # the JVM method names
        return self.message

    def getCause(self) -> _Java | None:
        return self.cause


@pytest.mark.parametrize(
    "wrapper",
    ["[TASK_WRITE_FAILED] Task failed while writing rows", "Exception thrown in awaitResult: "],
)
def test_a_duplicate_key_error_raised_inside_a_write_shows_its_cause(wrapper: str) -> None:
    from dbt.adapters.vulcan.session import jvm_message

    root = _Java("[USER_RAISED_EXCEPTION] Model 'm' (scd_type_2_by_time): 2 rows ...")
    error = RuntimeError("py4j")
    error.java_exception = _Java(wrapper, _Java("java.util.concurrent.ExecutionException", root))  # type: ignore[attr-defined]
    assert jvm_message(error) == f"{wrapper.strip()} Cause: {root.message}"


def test_unique_key_expressions_must_name_query_columns() -> None:
    with pytest.raises(VulcanConfigError) as exc:
        build(unique_key=["concat(id, nope)", "missing"])
    assert str(exc.value) == (
        "Invalid config for model 'm' (scd_type_2_by_time), 2 problem(s):\n"
        "  - unique_key: 'concat(id, nope)' names nope, which is not a column of the model's "
        "query; its columns are: id, name, price, updated_at\n"
        "  - unique_key: 'missing' is not a column of the model's query; its columns are: "
        "id, name, price, updated_at"
    )
    assert build(unique_key="concat(ID, name)").keys == ("concat(ID, name)",)
