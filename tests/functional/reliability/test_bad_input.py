"""Bad input through real dbt runs: a catalogue of invalid configs across every kind (one dbt
invocation for all of them) and of invalid `--vars`. Each must fail with a clear error naming
the model, the key and what is allowed, before anything is written: tables that existed keep
their rows, new ones are not created, and the state log gains no row. Values from --vars never
reach SQL: injection attempts are refused as malformed values, and a canary table survives.

Runs on the embedded session (parquet): validation happens before any SQL, so the target
does not matter and the session is the cheapest. The check of merge_filter / when_matched
against an existing table's own columns runs on every target (a real MERGE on Delta and
Iceberg)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from dbt.tests.util import run_dbt, run_dbt_and_capture, write_file
from dbt_common.exceptions import CompilationError

from dbt.adapters.vulcan import config_keys
from tests.support.functional import STATE, model_message, rows, run

EXEC = {"vulcan_execution_time": "2025-01-06"}
TR = "incremental_by_time_range"
UK = "incremental_by_unique_key"
PART = "incremental_by_partition"
UM = "incremental_unmanaged"
SCDT = "scd_type_2_by_time"
SCDC = "scd_type_2_by_column"

DAYS_SQL = (
    "select d as order_date, 1 as n from "
    "(select explode(sequence(date'2025-01-01', date'2025-01-10')) as d)\n"
    "where d between @start_ds and @end_ds"
)
ROWS_SQL = (
    "select * from values (1, 'ann', 'eu', timestamp'2025-01-01 00:00:00'), "
    "(2, 'bob', 'us', timestamp'2025-01-02 00:00:00') as t(id, name, region, updated_at)"
)
BODY = {TR: DAYS_SQL, UK: ROWS_SQL, PART: ROWS_SQL, UM: ROWS_SQL, SCDT: ROWS_SQL, SCDC: ROWS_SQL}
GOOD: dict[str, dict[str, Any]] = {
    TR: {"time_column": "order_date", "start": "2025-01-01"},
    UK: {"unique_key": "id"},
    PART: {"partitioned_by": ["region"]},
    UM: {},
    SCDT: {"unique_key": "id"},
    SCDC: {"unique_key": "id", "columns": ["name"]},
}
DROP = object()  # a key removed from the kind's good config
RANGE = "times must lie between 1900-01-01 and 3000-01-01"
ROW_COLUMNS = "its columns are: id, name, region, updated_at"
# model SQL other than the kind's BODY
BODIES = {
    "tr_time_column_int": (
        "select id, 1 as n from (select explode(sequence(1, 10)) as id)\n"
        "where id >= 1 or @start_ds is null"
    ),
    "tr_existing_int": DAYS_SQL.replace("1 as n", "cast(1 as bigint) as n"),
    "tr_time_column_absent": (
        "select n, count(*) as orders from (" + DAYS_SQL + ") as days group by n"
    ),
    "tr_time_column_only": DAYS_SQL.replace(", 1 as n", ""),
}

# name: (kind, config changes, substrings the error must contain: the key and what is allowed;
# one starting with "!" must be absent)
CATALOGUE: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    # incremental_by_time_range
    "tr_no_time_column": (TR, {"time_column": DROP}, ["time_column: required for " + TR]),
    "tr_no_start": (TR, {"start": DROP}, ["start: required for " + TR]),
    "tr_start_word": (TR, {"start": "soon"}, ["start", "'soon'"]),
    "tr_start_feb_30": (TR, {"start": "2025-02-30"}, ["start", "2025-02-30"]),
    "tr_end_before_start": (TR, {"end": "2024-12-01"}, ["is not before end"]),
    "tr_batch_size_zero": (TR, {"batch_size": 0}, ["batch_size: 0 is not an integer >= 1"]),
    "tr_batch_size_text": (TR, {"batch_size": "ten"}, ["batch_size: 'ten' is not an integer"]),
    "tr_lookback_negative": (TR, {"lookback": -1}, ["lookback: -1 is not an integer >= 0"]),
    "tr_cron_words": (TR, {"cron": "every day"}, ["cron", "every day"]),
    "tr_interval_unit": (TR, {"interval_unit": "fortnight"}, ["interval_unit", "fortnight"]),
    "tr_week_start": (TR, {"week_start": "funday"}, ["week_start", "funday"]),
    "tr_time_column_number": (TR, {"time_column": 123}, ["time_column: 123 is not a column"]),
    "tr_time_data_type": (TR, {"time_data_type": "float"}, ["time_data_type: 'float'", "date"]),
    "tr_allow_partials": (TR, {"allow_partials": "maybe"}, ["allow_partials", "true or false"]),
    "tr_forward_only": (TR, {"forward_only": "sometimes"}, ["forward_only", "true or false"]),
    "tr_file_format": (TR, {"file_format": "orc"}, ["'orc' is not one of: parquet, delta"]),
    "tr_destructive": (
        TR,
        {"on_destructive_change": "explode"},
        ["on_destructive_change: 'explode' is not one of: allow, warn, error, ignore"],
    ),
    "tr_when_matched": (
        TR,
        {"when_matched": "WHEN MATCHED THEN DELETE"},
        ["when_matched: not an option of " + TR, "belongs to " + UK],
    ),
    "tr_typo": (TR, {"time_colum": "order_date"}, ["time_colum", "did you mean `time_column`"]),
    "tr_safety_override": (TR, {"safety_overrides": ["everything"]}, ["everything", "limit"]),
    "tr_unknown_column": (
        TR,
        {"time_column": "no_such_col"},
        ["'no_such_col' is not a column of the model's query", "order_date"],
    ),
    "tr_time_column_int": (
        TR,
        {"time_column": "id"},
        ["time_column: 'id' has type int, which is not a time", "set time_data_type: int, bigint"],
    ),
    "tr_time_column_absent": (
        TR,
        {},
        ["time_column: 'order_date' is not a column of the model's query", "n, orders", "!safety"],
    ),
    "tr_time_column_only": (
        TR,
        {},
        [
            "partition_by_time_column: every column of the query (order_date) would be a "
            "partition column",
            "set partition_by_time_column: false",
        ],
    ),
    "tr_start_far_past": (
        TR,
        {"start": "0001-01-01"},
        ["start: '0001-01-01' is out of range", RANGE],
    ),
    "tr_end_far_future": (TR, {"end": "9999-12-31"}, ["end: '9999-12-31' is out of range", RANGE]),
    "tr_partition_by_column": (
        TR,
        {"partition_by": ["nope"]},
        ["partition_by: 'nope' is not a column of the model's query", "order_date, n"],
    ),
    "tr_three_problems": (
        TR,
        {"start": DROP, "batch_size": 0, "file_format": "csv"},
        ["3 problem(s)", "start: required", "batch_size: 0", "'csv' is not one of"],
    ),
    # incremental_by_unique_key
    "uk_no_key": (UK, {"unique_key": DROP}, ["unique_key: required for " + UK]),
    # (dbt itself refuses a non-string unique_key when parsing the project)
    "uk_key_expression": (UK, {"unique_key": "id +"}, ["unique_key: 'id +' is not a column"]),
    "uk_when_matched": (
        UK,
        {"when_matched": "update everything"},
        ["when_matched: 'update everything' does not start with 'WHEN MATCHED'"],
    ),
    "uk_merge_filter": (UK, {"merge_filter": 42}, ["merge_filter: 42 is not a SQL predicate"]),
    "uk_skip_unchanged": (
        UK,
        {"skip_unchanged_rows": "maybe"},
        ["skip_unchanged_rows: 'maybe' is not a boolean (true or false)"],
    ),
    "tr_location_partitioned": (
        TR,
        {"location_root": "/tmp/vulcan-catalogue-location"},
        [
            "location_root: '/tmp/vulcan-catalogue-location' with a parquet table partitioned by",
            "partition_by_time_column: false",
        ],
    ),
    "uk_tags_text": (
        UK,
        {"databricks_tags": "finance"},
        ["databricks_tags: 'finance' is not a mapping of tag names to values"],
    ),
    # Unity Catalog tags on a target without Unity Catalog (type: spark, type: vulcan); on
    # type: databricks' Hive metastore: tests/functional/kinds/test_table_configs.py
    "uk_tags_no_unity_catalog": (
        UK,
        {"databricks_tags": {"team": "finance"}},
        ["databricks_tags {'team': 'finance'}", "tags are a Unity Catalog feature", "has no Unity"],
    ),
    "uk_time_column": (
        UK,
        {"time_column": "updated_at"},
        ["time_column: not an option of " + UK, "belongs to " + TR],
    ),
    "uk_batch_size": (UK, {"start": "2025-01-01", "batch_size": -3}, ["batch_size: -3"]),
    "uk_key_not_column": (
        UK,
        {"unique_key": "nope"},
        ["unique_key: 'nope' is not a column of the model's query", ROW_COLUMNS],
    ),
    "uk_key_expression_column": (
        UK,
        {"unique_key": ["id", "concat(region, nope)"]},
        ["unique_key: 'concat(region, nope)' names nope", ROW_COLUMNS],
    ),
    "uk_merge_filter_column": (
        UK,
        {"merge_filter": "target.nope > 0"},
        ["merge_filter: 'target.nope > 0' names target.nope", "not a column of the table"],
    ),
    "uk_when_matched_column": (
        UK,
        {"when_matched": "WHEN MATCHED AND source.nope > 0 THEN UPDATE SET name = source.name"},
        ["when_matched clause 1: 'source.nope > 0' names source.nope", "model's query"],
    ),
    "uk_partition_keys_differ": (
        UK,
        {"partitioned_by": "region", "partition_by": "name"},
        ["partitioned_by: 'region' differs from partition_by: 'name'", "set one of them"],
    ),
    "uk_partition_column": (
        UK,
        {"partitioned_by": "nope"},
        ["partitioned_by: 'nope' is not a column of the model's query", ROW_COLUMNS],
    ),
    # incremental_by_partition
    "part_no_partition": (PART, {"partitioned_by": DROP}, ["partitioned_by: required for " + PART]),
    "part_partition_number": (
        PART,
        {"partitioned_by": 5},
        ["partitioned_by: 5 is not a column", "!required"],
    ),
    "part_partition_column": (
        PART,
        {"partitioned_by": ["region", "nope"]},
        ["partitioned_by: 'nope' is not a column of the model's query", ROW_COLUMNS],
    ),
    "part_lookback": (PART, {"lookback": 2}, ["lookback: not an option of " + PART]),
    # incremental_unmanaged
    "um_batch_size": (UM, {"batch_size": 5}, ["batch_size", "has no batches"]),
    "um_unique_key": (UM, {"unique_key": "id"}, ["unique_key: not an option of " + UM]),
    "um_partition_column": (
        UM,
        {"partition_by": "nope"},
        ["partition_by: 'nope' is not a column of the model's query", ROW_COLUMNS],
    ),
    # scd_type_2_by_time
    "scdt_no_key": (SCDT, {"unique_key": DROP}, ["unique_key: required for " + SCDT]),
    "scdt_valid_from_flag": (
        SCDT,
        {"updated_at_as_valid_from": "sometimes"},
        ["updated_at_as_valid_from", "true or false"],
    ),
    "scdt_time_data_type": (
        SCDT,
        {"time_data_type": "int"},
        ["time_data_type: 'int' is not one of: timestamp, timestamp_ntz, date"],
    ),
    "scdt_columns": (SCDT, {"columns": ["name"]}, ["columns: not an option of " + SCDT]),
    "scdt_key_not_column": (
        SCDT,
        {"unique_key": "nope"},
        ["unique_key: 'nope' is not a column of the model's query", ROW_COLUMNS],
    ),
    "scdt_start_far_future": (
        SCDT,
        {"start": "9999-12-31"},
        ["start: '9999-12-31' is out of range", RANGE],
    ),
    # scd_type_2_by_column
    "scdc_no_columns": (SCDC, {"columns": DROP}, ["columns: required for " + SCDC]),
    "scdc_columns_number": (SCDC, {"columns": 5}, ["columns: 5 is not a column name"]),
    "scdc_valid_from_name": (
        SCDC,
        {"valid_from_name": ""},
        ["valid_from_name: '' is not a column"],
    ),
    "scdc_hard_deletes": (
        SCDC,
        {"invalidate_hard_deletes": "yes please"},
        ["invalidate_hard_deletes", "true or false"],
    ),
    "scdc_merge_filter": (SCDC, {"merge_filter": "id > 0"}, ["merge_filter: not an option of"]),
    "scdc_key_expression_column": (
        SCDC,
        {"unique_key": "concat(id, nope)"},
        ["unique_key: 'concat(id, nope)' names nope", ROW_COLUMNS],
    ),
    "scdc_partition_column": (
        SCDC,
        {"partitioned_by": "nope"},
        ["partitioned_by: 'nope' is not a column of the model's query"],
    ),
}

# existing models built with `start`, so that their state log records their fingerprint
TRACKED = {"uk_existing_key", "uk_existing_filter", "uk_existing_when_matched"}

# models built good first, then given a bad config: their table and state must not change
EXISTING: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "tr_existing": (TR, {"batch_size": "x", "lookback": -2}, ["batch_size: 'x'", "lookback: -2"]),
    "uk_existing": (UK, {"when_matched": 7}, ["when_matched: 7 is not a string"]),
    "part_existing": (PART, {"partitioned_by": DROP}, ["partitioned_by: required"]),
    "um_existing": (UM, {"end": "2025-01-01"}, ["end: not an option of " + UM]),
    "scdt_existing": (SCDT, {"valid_to_name": 3}, ["valid_to_name: 3 is not a column name"]),
    "scdc_existing": (SCDC, {"columns": []}, ["columns: required for " + SCDC]),
    # the definition changed: the new config is checked against the query's columns (a
    # change is known from the fingerprint the state log keeps: these unique-key models have
    # a `start`, see TRACKED)
    "tr_existing_int": (
        TR,
        {"time_column": "n"},
        ["time_column: 'n' has type bigint, which is not a time", "time_data_type"],
    ),
    "tr_existing_absent": (
        TR,
        {"time_column": "nope"},
        ["time_column: 'nope' is not a column of the model's query", "order_date, n"],
    ),
    "tr_existing_end": (TR, {"end": "9999-12-31"}, ["end: '9999-12-31' is out of range", RANGE]),
    "uk_existing_key": (
        UK,
        {"unique_key": "nope"},
        ["unique_key: 'nope' is not a column of the model's query", ROW_COLUMNS],
    ),
    "uk_existing_filter": (
        UK,
        {"merge_filter": "source.nope = target.id"},
        ["merge_filter: 'source.nope = target.id' names source.nope", ROW_COLUMNS],
    ),
    "uk_existing_when_matched": (
        UK,
        {"when_matched": "WHEN MATCHED THEN UPDATE SET nope = source.name"},
        ["when_matched clause 1: UPDATE SET nope", "not a column of the table", ROW_COLUMNS],
    ),
    "part_existing_keys_differ": (
        PART,
        {"partition_by": "name"},
        ["partitioned_by: ['region'] differs from partition_by: 'name'"],
    ),
    "scdt_existing_key": (
        SCDT,
        {"unique_key": "concat(id, nope)"},
        ["unique_key: 'concat(id, nope)' names nope", ROW_COLUMNS],
    ),
}


def model_sql(kind: str, changes: dict[str, Any] | None = None, body: str | None = None) -> str:
    config: dict[str, Any] = {"materialized": kind, **GOOD[kind]}
    for key, value in (changes or {}).items():
        if value is DROP:
            config.pop(key, None)
        else:
            config[key] = value
    args = ", ".join(f"{k}={v!r}" for k, v in config.items())
    return "{{ config(" + args + ") }}\n" + (body or BODY[kind]) + "\n"


def tracked(name: str) -> dict[str, Any]:
    return {"start": "2025-01-01"} if name in TRACKED else {}


def state_count(project: Any) -> int:
    schema = project.test_schema.lower()
    return int(
        rows(project, f"select count(*) from {STATE} where relation like '{schema}.%'")[0][0]
    )


def tables(project: Any) -> set[str]:
    """The schema's tables and views; not the session's temporary views, which SHOW TABLES
    lists in every schema (other tests of the process leave some, e.g. dbt's `__dbt_tmp`)."""
    found = rows(project, f"show tables in {project.test_schema}")
    return {str(r[1]).lower() for r in found if not r[2]}


def contents(project: Any, names: list[str]) -> dict[str, list[tuple[Any, ...]]]:
    return {n: sorted(rows(project, f"select * from {project.test_schema}.{n}")) for n in names}


@pytest.mark.profile_only("parquet")
class TestBadConfigCatalogue:
    """In package mode (stock type: spark) keys declared for the adapter only would be left
    out; their config errors are the validator's, whose Jinja equals the Python on this
    catalogue (tests/unit/macros/config/test_validate_macros.py). Today every key runs in both
    modes."""

    @pytest.fixture(scope="class")
    def cases(self, request: pytest.FixtureRequest) -> tuple[dict[str, Any], dict[str, Any]]:
        package_mode = request.config.getoption("--mode") == "package"

        def adapter_only(kind: str, changes: dict[str, Any]) -> bool:
            keys = [k for k in config_keys.config_keys() if k.modes == "adapter"]
            return bool({n for k in keys for n in k.names} & set(changes))

        def keep(entries: dict[str, Any]) -> dict[str, Any]:
            return {
                n: e for n, e in entries.items() if not (package_mode and adapter_only(e[0], e[1]))
            }

        return keep(CATALOGUE), keep(EXISTING)

    @pytest.fixture(scope="class")
    def models(self, cases: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, str]:
        catalogue, existing = cases
        out = {
            f"{name}.sql": model_sql(kind, changes, BODIES.get(name))
            for name, (kind, changes, _) in catalogue.items()
        }
        out.update(
            {
                f"{name}.sql": model_sql(kind, tracked(name), BODIES.get(name))
                for name, (kind, _, _) in existing.items()
            }
        )
        return out

    def test_every_bad_config_fails_clearly_and_touches_nothing(
        self, project: Any, cases: tuple[dict[str, Any], dict[str, Any]]
    ) -> None:
        catalogue, existing_cases = cases
        assert len(CATALOGUE) + len(EXISTING) >= 30
        existing = sorted(existing_cases)
        run("run", "-s", *existing, vars=EXEC)
        before = contents(project, existing)
        assert all(before.values())
        state_before = state_count(project)
        for name, (kind, changes, _) in existing_cases.items():
            sql = model_sql(kind, {**tracked(name), **changes}, BODIES.get(name))
            write_file(sql, project.project_root, "models", f"{name}.sql")

        # every model of the catalogue in ONE invocation
        result = run("run", "--threads", "4", vars=EXEC, expect_pass=False)
        by_name = {r.node.name: r for r in result.results if r.node.resource_type == "model"}
        expectations = {**catalogue, **existing_cases}
        assert set(by_name) == set(expectations)
        problems = []
        for name, (_, _, needles) in expectations.items():
            res = by_name[name]
            message = str(res.message)
            missing = [n for n in [f"'{name}'", *needles] if not found(n, message)]
            if res.status != "error" or missing:
                problems.append(f"{name}: {res.status}, lacks {missing}:\n{message}")
        assert not problems, "\n\n".join(problems)

        # nothing was written: no new table, the old ones unchanged, no state row
        assert tables(project) == set(existing)
        assert contents(project, existing) == before
        assert state_count(project) == state_before


# The table's own columns: merge_filter and when_matched are checked against what the table
# has when the MERGE runs. A model whose table keeps columns of its own (on_*_change 'ignore')
# and names one the table lacks fails naming the key, before anything is written; where the
# run's schema change adds the column first, the same names run.
NARROW_SQL = "select id, name, updated_at from (" + ROWS_SQL + ") as r"
NO_TIME_SQL = "select id, name, region from (" + ROWS_SQL + ") as r"
TABLE_COLUMNS = "its columns are: id, name, updated_at"
# name: (config of both runs, body of the first run, config changes and body of the second,
# substrings of the error; None: the second run succeeds)
TARGET_CASES: dict[str, tuple[dict[str, Any], str, dict[str, Any], str, list[str] | None]] = {
    "uk_target_filter": (
        {"on_additive_change": "ignore"},
        NARROW_SQL,
        {"merge_filter": "target.region = 'eu'"},
        ROWS_SQL,
        [
            "merge_filter: \"target.region = 'eu'\" names target.region, which is not a column "
            "of the table (target); " + TABLE_COLUMNS
        ],
    ),
    "uk_target_condition": (
        {"on_additive_change": "ignore"},
        NARROW_SQL,
        {
            "when_matched": "WHEN MATCHED AND target.region <> source.region "
            "THEN UPDATE SET name = source.name"
        },
        ROWS_SQL,
        [
            "when_matched clause 1: 'target.region <> source.region' names target.region, "
            "which is not a column of the table (target); " + TABLE_COLUMNS
        ],
    ),
    "uk_target_value": (
        {"on_additive_change": "ignore"},
        NARROW_SQL,
        {"when_matched": "WHEN MATCHED THEN UPDATE SET name = concat(source.name, target.region)"},
        ROWS_SQL,
        [
            "when_matched clause 1: 'concat(source.name, target.region)' names target.region, "
            "which is not a column of the table (target); " + TABLE_COLUMNS
        ],
    ),
    "uk_target_assignment": (
        {"on_additive_change": "ignore"},
        NARROW_SQL,
        {"when_matched": "WHEN MATCHED THEN UPDATE SET region = source.region"},
        ROWS_SQL,
        [
            "when_matched clause 1: UPDATE SET region = ...: 'region' is not a column of the "
            "table (target); " + TABLE_COLUMNS
        ],
    ),
    # the table keeps updated_at, which the query dropped; regoin is nobody's
    "uk_target_typo": (
        {"on_destructive_change": "ignore"},
        ROWS_SQL,
        {"merge_filter": "target.regoin = source.region and target.updated_at is not null"},
        NO_TIME_SQL,
        [
            "merge_filter: 'target.regoin = source.region and target.updated_at is not null' "
            "names target.regoin, which is not a column of the table (target); its columns "
            "are: id, name, region, updated_at",
            "!names target.updated_at",
        ],
    ),
    # the run's schema change adds region (on_additive_change: allow) before the MERGE
    "uk_target_added": ({}, NARROW_SQL, {"merge_filter": "target.region is null"}, ROWS_SQL, None),
    # the table keeps updated_at and gains region
    "uk_target_kept_and_added": (
        {"on_destructive_change": "ignore"},
        NARROW_SQL,
        {"merge_filter": "target.region is null and target.updated_at is not null"},
        NO_TIME_SQL,
        None,
    ),
}


def state_counts(project: Any) -> dict[str, int]:
    schema = project.test_schema.lower()
    found = rows(
        project,
        f"select relation, count(*) from {STATE} where relation like '{schema}.%' "
        "group by relation",
    )
    return {str(r).split(".", 1)[1]: int(n) for r, n in found}


class TestTargetColumnsOfAnExistingTable:
    """Runs on every target: on Delta and Iceberg the batch is a real MERGE."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            f"{name}.sql": model_sql(UK, config, body)
            for name, (config, body, _, _, _) in TARGET_CASES.items()
        }

    def test_columns_the_table_lacks_fail_before_anything_is_written(self, project: Any) -> None:
        run("run", vars=EXEC)
        names = sorted(TARGET_CASES)
        bad = sorted(n for n, case in TARGET_CASES.items() if case[4] is not None)
        before = contents(project, names)
        assert all(before.values())
        state_before = state_counts(project)
        for name, (config, _, changes, body, _) in TARGET_CASES.items():
            write_file(
                model_sql(UK, {**config, **changes}, body),
                project.project_root,
                "models",
                f"{name}.sql",
            )

        result = run("run", "--threads", "4", vars=EXEC, expect_pass=False)
        by_name = {r.node.name: r for r in result.results if r.node.name in TARGET_CASES}
        assert set(by_name) == set(TARGET_CASES)
        problems = []
        for name, (_, _, _, _, needles) in TARGET_CASES.items():
            res = by_name[name]
            message = str(res.message)
            if needles is None:
                if res.status != "success":
                    problems.append(f"{name}: {res.status}:\n{message}")
                continue
            missing = [n for n in [f"'{name}'", *needles] if not found(n, message)]
            if res.status != "error" or missing or "UNRESOLVED_COLUMN" in message:
                problems.append(f"{name}: {res.status}, lacks {missing}:\n{message}")
        assert not problems, "\n\n".join(problems)

        # the failing ones: rows and state as they were; the others merged
        assert contents(project, bad) == {n: before[n] for n in bad}
        state_after = state_counts(project)
        assert {n: state_after[n] for n in bad} == {n: state_before[n] for n in bad}
        for name in ("uk_target_added", "uk_target_kept_and_added"):
            assert state_after[name] == state_before[name] + 1
            got = rows(project, f"select id, region from {project.test_schema}.{name} order by id")
            assert got == [(1, "eu"), (2, "us")], name


@pytest.mark.profile_only("parquet")
class TestBadVars:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"daily.sql": model_sql(TR, {"batch_size": 2})}

    # (vars, what the error must say, a fragment of an injection attempt that no SQL may hold)
    BAD_VARS = [
        (
            {"vulcan_start": "x", "vulcan_end": "2025-01-02"},
            ["vulcan_start", "'x'", "!vulcan_start: required"],  # reported once
            None,
        ),
        (
            {"vulcan_execution_time": "9999-12-31"},
            ["vulcan_execution_time: '9999-12-31' is out of range", RANGE],
            None,
        ),
        (
            {"vulcan_start": "0001-01-01", "vulcan_end": "2025-01-03"},
            ["vulcan_start: '0001-01-01' is out of range", RANGE],
            None,
        ),
        (
            {"vulcan_start": "2025-01-01", "vulcan_end": "9999-12-31"},
            ["vulcan_end: '9999-12-31' is out of range", RANGE],
            None,
        ),
        (
            {"vulcan_start": "2025-01-01' OR 1=1 --", "vulcan_end": "2025-01-03"},
            ["vulcan_start", "OR 1=1"],
            "1=1",
        ),
        (
            {"vulcan_execution_time": "2025-01-06'; drop table {canary}; --"},
            ["vulcan_execution_time", "drop table"],
            "drop table",
        ),
        (
            {"vulcan_start": "2025-01-04", "vulcan_end": "2025-01-02"},
            ["is not before vulcan_end"],
            None,
        ),
        ({"vulcan_end": "2025-01-03"}, ["vulcan_start: required when vulcan_end is given"], None),
        (
            {"vulcan_start": "2025-02-30", "vulcan_end": "2025-03-01"},
            ["vulcan_start", "02-30"],
            None,
        ),
        (
            {"vulcan_state_schema": "vulcan_state.vulcan_intervals where 1=0 union all select *"},
            ["state_schema", "is not a schema name"],
            "1=0",
        ),
        (
            {"vulcan_state_file_format": "delta location '/tmp/x'"},
            ["state_file_format", "is not one of: parquet, delta, iceberg"],
            "/tmp/x",
        ),
    ]

    def test_bad_vars_fail_clearly_and_never_reach_sql(self, project: Any) -> None:
        run("run", vars=EXEC)
        canary = f"{project.test_schema}.canary"
        project.run_sql(f"create table {canary} as select 1 as alive")
        before = contents(project, ["daily"])
        state_before = state_count(project)
        # every event of a run, as the lines of its debug log
        lines: list[str] = []
        callbacks = [lambda event: lines.append(f"00:00:00  {event.info.msg}")]
        for bad, needles, probe in self.BAD_VARS:
            bad = {k: v.format(canary=canary) for k, v in bad.items()}
            lines.clear()
            args = ["--debug", "run", "--vars", json.dumps({**EXEC, **bad})]
            if any(key.startswith("vulcan_state_") for key in bad):
                # the state's vars are the project's, not a model's: the package's on-run-start
                # hook refuses them once, before any model runs, and dbt stops there
                with pytest.raises(CompilationError) as refused:
                    run_dbt(args, expect_pass=False, callbacks=callbacks)
                message = str(refused.value)
                assert "dbt_vulcan-on-run-start" in message, message
            else:
                message = model_message(run_dbt(args, expect_pass=False, callbacks=callbacks))
                assert "daily" in message, message
            for needle in needles:
                assert found(needle, message), (bad, needle, message)
            statements = sql_statements("\n".join(lines))
            assert statements, "no SQL seen in the debug log"
            if probe:
                assert not [q for q in statements if probe in q], bad
            assert contents(project, ["daily"]) == before
            assert state_count(project) == state_before
            assert rows(project, f"select alive from {canary}") == [(1,)]


@pytest.mark.profile_only("parquet")
class TestConfigErrorPrintedOnce:
    """A config error is on the console once: in the run's summary (the materialization
    raises it; nothing else prints it), one problem on one line."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "bad_config.sql": model_sql(TR, {"batch_size": 0}),
            "bad_column.sql": model_sql(TR, {"time_column": "id"}, BODIES["tr_time_column_int"]),
            "bad_vars.sql": model_sql(TR),
        }

    def test_each_error_appears_once(self, project: Any) -> None:
        bad = {**EXEC, "vulcan_start": "x", "vulcan_end": "2025-01-02"}
        runs = [
            (["bad_config", "bad_column"], EXEC, []),
            (["bad_vars"], bad, ["vulcan_start: required"]),
        ]
        lines = {
            "bad_config": "batch_size: 0 is not an integer >= 1",
            "bad_column": "time_column: 'id' has type int, which is not a time",
            "bad_vars": "vulcan_start: 'x' is not a valid time",
        }
        for models, run_vars, absent in runs:
            args = ["run", "-s", *models, "--vars", json.dumps(run_vars)]
            _, log = run_dbt_and_capture(args, expect_pass=False)
            for model in models:
                assert log.count(lines[model]) == 1, (lines[model], log)
            for text in absent:
                assert text not in log, log
        assert tables(project) == set()


def found(needle: str, message: str) -> bool:
    """`needle` is in the message; "!<text>": <text> is not."""
    if needle.startswith("!"):
        return needle[1:] not in message
    return needle in message


def sql_statements(log: str) -> list[str]:
    """The SQL statements of a --debug log: the text after `On <connection>: ` up to the next
    timestamped line."""
    out: list[str] = []
    current: list[str] | None = None
    for line in log.splitlines():
        if re.match(r"^(\x1b\[0m)?\d\d:\d\d:\d\d", line):
            if current is not None:
                out.append("\n".join(current))
            found = re.search(r"  On [\w.-]+: (.*)$", line)
            current = [found.group(1)] if found else None
        elif current is not None:
            current.append(line)
    if current is not None:
        out.append("\n".join(current))
    return out
