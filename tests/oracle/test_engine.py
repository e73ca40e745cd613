"""The engine oracle (tests/oracle/engine.py): the config checked against the query's columns
and the time type a run takes from them, the schema-change decisions; the partition keys'
agreement (config.validate)."""

from __future__ import annotations

from typing import Any

import pytest

from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.oracle import engine
from tests.oracle.config import validate
from tests.oracle.engine import schema_change, time_type_from_columns
from tests.oracle.unique_key import UpsertSpec

TR = "incremental_by_time_range"
UK = "incremental_by_unique_key"
PART = "incremental_by_partition"
DAYS = [("order_date", "date"), ("n", "int"), ("region", "string")]


def time_range(**config: Any) -> Any:
    return validate("m", TR, {"time_column": "order_date", "start": "2025-01-01", **config})


@pytest.mark.parametrize(
    ("dtype", "declared", "expected"),
    [
        ("date", None, "date"),
        ("timestamp", None, "timestamp"),
        ("timestamp_ntz", None, "timestamp_ntz"),
        ("string", None, "string"),
        ("int", "int", "int"),
        ("bigint", "epoch_millis", "epoch_millis"),
        ("decimal(12,0)", "epoch", "epoch"),
        ("string", "date", "date"),
    ],
)
def test_time_types(dtype: str, declared: str | None, expected: str) -> None:
    cfg = time_range(**({"time_data_type": declared} if declared else {}))
    assert time_type_from_columns(cfg, {"order_date": dtype}) == expected


def test_an_int_time_column_needs_an_explicit_time_data_type() -> None:
    with pytest.raises(VulcanConfigError) as exc:
        time_type_from_columns(time_range(time_column="n"), dict(DAYS))
    assert str(exc.value) == (
        "Invalid config for model 'm' (incremental_by_time_range), 1 problem(s):\n"
        "  - time_column: 'n' has type int, which is not a time; a number is read as a time "
        "only when told how: set time_data_type: int, bigint or epoch (epoch seconds) or "
        "epoch_millis (epoch milliseconds)"
    )


@pytest.mark.parametrize(
    ("dtype", "declared", "message"),
    [
        ("bigint", "date", "has type bigint but time_data_type is 'date'; a numeric time column"),
        ("date", "int", "has type date but time_data_type is 'int' (epoch numbers)"),
        ("boolean", None, "has type boolean, which is not a time; a time column is a date"),
        ("double", None, "has type double, which is not a time; a number is read"),
    ],
)
def test_time_column_type_mismatches(dtype: str, declared: str | None, message: str) -> None:
    cfg = time_range(**({"time_data_type": declared} if declared else {}))
    time_type, problem = engine.time_column_type(cfg, {"order_date": dtype})
    assert time_type is None and problem is not None and message in problem


def test_every_problem_at_once() -> None:
    cfg = time_range(time_column="n", partition_by=["nope", "region"])
    with pytest.raises(VulcanConfigError) as exc:
        engine.check(cfg, DAYS, new_table=True, key="partition_by")
    assert str(exc.value) == (
        "Invalid config for model 'm' (incremental_by_time_range), 2 problem(s):\n"
        "  - time_column: 'n' has type int, which is not a time; a number is read as a time "
        "only when told how: set time_data_type: int, bigint or epoch (epoch seconds) or "
        "epoch_millis (epoch milliseconds)\n"
        "  - partition_by: 'nope' is not a column of the model's query, so a new table "
        "cannot be partitioned by it; its columns are: order_date, n, region"
    )


def test_partitions_are_checked_on_a_new_table_only() -> None:
    cfg = validate("m", PART, {"partitioned_by": ["Region", "nope"]})
    engine.check(cfg, DAYS, new_table=False)
    with pytest.raises(VulcanConfigError, match="partitioned_by: 'nope' is not a column"):
        engine.check(cfg, DAYS, new_table=True)


def test_a_missing_time_column_is_not_reported_again_as_a_partition() -> None:
    with pytest.raises(VulcanConfigError) as exc:
        engine.check(time_range(time_column="nope"), DAYS, new_table=True)
    assert "1 problem(s)" in str(exc.value) and "time_column: 'nope' is not" in str(exc.value)


def test_unique_key_target_is_unknown_on_an_existing_table_keeping_its_own_columns() -> None:
    cfg = validate(
        "m",
        UK,
        {"unique_key": "id", "merge_filter": "target.old > 0", "on_destructive_change": "ignore"},
    )
    spec = UpsertSpec.build(cfg)
    columns = [("id", "int")]
    engine.check(cfg, columns, new_table=False, upsert=spec)
    with pytest.raises(VulcanConfigError, match=r"names target\.old"):
        engine.check(cfg, columns, new_table=True, upsert=spec)


# the table was built before the query added `region`
TABLE = [("id", "bigint"), ("name", "string"), ("updated_at", "timestamp")]
QUERY = [("id", "bigint"), ("name", "string"), ("region", "string"), ("updated_at", "timestamp")]


def unique_key(**config: Any) -> Any:
    return validate("m", UK, {"unique_key": "id", **config})


def test_unique_key_target_is_the_existing_table_as_the_schema_change_leaves_it() -> None:
    cfg = unique_key(on_additive_change="ignore", merge_filter="target.region = 'eu'")
    spec = UpsertSpec.build(cfg)
    with pytest.raises(VulcanConfigError) as exc:
        engine.check(cfg, QUERY, new_table=False, upsert=spec, table=TABLE)
    assert str(exc.value) == (
        "Invalid config for model 'm' (incremental_by_unique_key), 1 problem(s):\n"
        "  - merge_filter: \"target.region = 'eu'\" names target.region, which is not a "
        "column of the table (target); its columns are: id, name, updated_at"
    )
    # a new table has the query's columns
    engine.check(cfg, QUERY, new_table=True, upsert=spec, table=TABLE)
    # on_additive_change 'allow' (the default): the run adds region before it merges
    allowed = unique_key(merge_filter="target.region = 'eu'")
    engine.check(allowed, QUERY, new_table=False, upsert=UpsertSpec.build(allowed))
    # the table keeps updated_at (dropped from the query) and gains region
    kept = unique_key(
        on_destructive_change="ignore",
        merge_filter="target.region = 'eu' and target.updated_at is not null",
    )
    query = QUERY[:3]
    engine.check(kept, query, False, UpsertSpec.build(kept), table=TABLE)
    # on_destructive_change 'allow': the run rewrites the table to the query's columns
    dropped = unique_key(merge_filter=kept.merge_filter, on_destructive_change="allow")
    with pytest.raises(VulcanConfigError, match=r"names target\.updated_at, which is not a"):
        engine.check(dropped, query, False, UpsertSpec.build(dropped), table=TABLE)


def test_when_matched_is_checked_against_the_existing_table() -> None:
    cfg = unique_key(
        on_additive_change="ignore",
        when_matched=(
            "WHEN MATCHED AND target.region <> source.region THEN DELETE "
            "WHEN MATCHED THEN UPDATE SET region = source.region, name = upper(target.region)"
        ),
    )
    with pytest.raises(VulcanConfigError) as exc:
        engine.check(cfg, QUERY, False, UpsertSpec.build(cfg), table=TABLE)
    listed = "which is not a column of the table (target); its columns are: id, name, updated_at"
    assert str(exc.value).splitlines()[1:] == [
        f"  - when_matched clause 1: 'target.region <> source.region' names target.region, "
        f"{listed}",
        "  - when_matched clause 2: UPDATE SET region = ...: 'region' is not a column of the "
        "table (target); its columns are: id, name, updated_at",
        f"  - when_matched clause 2: 'upper(target.region)' names target.region, {listed}",
    ]


@pytest.mark.parametrize(
    ("additive", "destructive", "table", "query", "after"),
    [
        ("ignore", "error", TABLE, QUERY, ["id", "name", "updated_at"]),
        ("allow", "ignore", TABLE, QUERY, ["id", "name", "updated_at", "region"]),
        ("allow", "ignore", QUERY, TABLE, ["id", "name", "region", "updated_at"]),
        ("ignore", "allow", QUERY, TABLE, ["id", "name", "updated_at"]),  # rewritten
        ("ignore", "warn", TABLE, [("id", "string"), ("region", "string")], ["id", "region"]),
        ("error", "ignore", TABLE, QUERY, ["id", "name", "updated_at"]),  # refused: unchanged
        ("ignore", "ignore", TABLE, [("ID", "bigint")], ["id", "name", "updated_at"]),
    ],
)
def test_table_after_change(
    additive: str,
    destructive: str,
    table: list[tuple[str, str]],
    query: list[tuple[str, str]],
    after: list[str],
) -> None:
    cfg = unique_key(on_additive_change=additive, on_destructive_change=destructive)
    assert engine.table_after_change(cfg, table, query) == after


def test_partition_key_names_what_the_model_set() -> None:
    assert engine.partition_key({"partition_by": "a"}) == "partition_by"
    assert engine.partition_key({"partitioned_by": "a", "partition_by": "a"}) == ("partitioned_by")
    assert engine.partition_key({}) == "partitioned_by"


def test_partitioned_by_and_partition_by_must_agree() -> None:
    with pytest.raises(VulcanConfigError) as exc:
        validate("m", PART, {"partitioned_by": "region", "partition_by": ["name"]})
    assert str(exc.value) == (
        "Invalid config for model 'm' (incremental_by_partition), 1 problem(s):\n"
        "  - partitioned_by: 'region' differs from partition_by: ['name']; partitioned_by is "
        "an alias of dbt's partition_by: set one of them (or both to the same columns)"
    )
    same = validate("m", PART, {"partitioned_by": "region", "partition_by": ["REGION"]})
    assert same.partition_cols == ["region"]


def test_a_bad_partition_value_is_one_problem() -> None:
    with pytest.raises(VulcanConfigError) as exc:
        validate("m", PART, {"partitioned_by": 5})
    assert "1 problem(s)" in str(exc.value) and "partitioned_by: 5 is not" in str(exc.value)


ALL_PARTITIONS = [
    # the time column alone, partitioned by it (parquet's default)
    (
        TR,
        {"time_column": "order_date", "start": "2025-01-01"},
        [("order_date", "date")],
        "partition_by_time_column: every column of the query (order_date) would be a partition "
        "column of the new table, and Spark needs at least one that is not: add a column to the "
        "query, or set partition_by_time_column: false",
    ),
    # the time column and a partition_by column
    (
        TR,
        {"time_column": "order_date", "start": "2025-01-01", "partitioned_by": "region"},
        [("order_date", "date"), ("Region", "string")],
        "partitioned_by: every column of the query (order_date, Region) would be a partition "
        "column of the new table, and Spark needs at least one that is not: add a column to the "
        "query, or set partition_by_time_column: false",
    ),
    (
        PART,
        {"partitioned_by": ["region", "n"]},
        [("n", "int"), ("region", "string")],
        "partitioned_by: every column of the query (n, region) would be a partition column of "
        "the new table, and Spark needs at least one that is not: add a column to the query, or "
        "partition by fewer columns",
    ),
]


@pytest.fixture(scope="module")
def harness() -> Any:
    """The package's macros, loaded once for this module's cases (loading takes seconds)."""
    from tests.support.macro_harness import Harness

    return Harness()


@pytest.mark.parametrize(("kind", "config", "columns", "problem"), ALL_PARTITIONS)
def test_a_table_of_partition_columns_only_is_refused_in_both_implementations(
    harness: Any, kind: str, config: dict[str, Any], columns: list[tuple[str, str]], problem: str
) -> None:
    """Spark cannot create a table whose every column is a partition column: the check says
    so before anything is created, in the oracle and in the package's macro alike."""
    from tests.support.macro_harness import CompilerError

    cfg = validate("m", kind, config)
    with pytest.raises(VulcanConfigError) as expected:
        engine.check(cfg, columns, new_table=True)
    assert str(expected.value) == (
        f"Invalid config for model 'm' ({kind}), 1 problem(s):\n  - {problem}"
    )
    as_dicts = [{"name": n, "dtype": t} for n, t in columns]
    with pytest.raises(CompilerError) as got:
        harness.call("vulcan_check_columns", cfg.as_dict(), as_dicts, True, "partitioned_by")
    assert str(got.value) == str(expected.value)
    # an existing table is not created: nothing to refuse; one more column is enough
    engine.check(cfg, columns, new_table=False)
    harness.call("vulcan_check_columns", cfg.as_dict(), as_dicts, False, "partitioned_by")
    engine.check(cfg, [*columns, ("amount", "double")], new_table=True)
    more = [*as_dicts, {"name": "amount", "dtype": "double"}]
    harness.call("vulcan_check_columns", cfg.as_dict(), more, True, "partitioned_by")


def test_schema_change_decisions() -> None:
    table = [("d", "date"), ("n", "bigint")]
    added = [("d", "date"), ("n", "bigint"), ("x", "string")]
    dropped = [("d", "date")]
    retyped = [("d", "date"), ("n", "string")]
    assert not schema_change(time_range(), table, table).changed
    change = schema_change(time_range(), table, added)
    assert change.add_columns == ["`x` string"] and not change.errors
    change = schema_change(time_range(on_additive_change="error"), table, added)
    assert "on_additive_change is 'error'" in change.errors[0]
    change = schema_change(time_range(on_additive_change="ignore"), table, added)
    assert change.projection == ["`d`", "`n`"] and not change.add_columns
    change = schema_change(time_range(), table, dropped)
    assert "dropped n" in change.errors[0]
    change = schema_change(time_range(on_destructive_change="warn"), table, retyped)
    assert change.rewrite and "n: bigint -> string" in change.warnings[0]
    assert change.rewrite_select == "cast(`d` as date) as `d`, cast(`n` as string) as `n`"
    change = schema_change(time_range(on_destructive_change="ignore"), table, dropped)
    assert change.projection == ["`d`", "cast(null as bigint) as `n`"]
