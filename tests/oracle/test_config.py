"""Config validation: every problem reported at once, naming the model, key and what is allowed."""

from __future__ import annotations

from typing import Any

import pytest

from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.oracle.config import (
    PARTITION,
    SCD2_BY_COLUMN,
    SCD2_BY_TIME,
    TIME_RANGE,
    TRACKED,
    UNIQUE_KEY,
    UNMANAGED,
    node_config,
    settings,
    validate,
)

GOOD = {"time_column": "order_date", "start": "2025-01-01"}


def error(kind: str, config: dict[str, Any]) -> str:
    with pytest.raises(VulcanConfigError) as info:
        validate("daily_sales", kind, config)
    return str(info.value)


def test_valid_time_range_is_normalized() -> None:
    cfg = validate("m", TIME_RANGE, {**GOOD, "cron": "@daily", "batch_size": "7", "lookback": 2})
    assert cfg.batch_size == 7 and cfg.lookback == 2
    assert cfg.start == "2025-01-01 00:00:00"
    assert cfg.partition_cols == ["order_date"]
    assert cfg.interval_unit == "day" and cfg.cron == "0 0 * * *"


def test_partitioning_time_column_first_then_partition_by() -> None:
    cfg = validate("m", TIME_RANGE, {**GOOD, "partition_by": ["region", "order_date"]})
    assert cfg.partition_cols == ["order_date", "region"]
    cfg = validate(
        "m", TIME_RANGE, {**GOOD, "partitioned_by": "region", "partition_by_time_column": False}
    )
    assert cfg.partition_cols == ["region"]


def test_time_column_with_format() -> None:
    cfg = validate("m", TIME_RANGE, {"time_column": ["ds", "%Y%m%d"], "start": "2025-01-01"})
    assert (cfg.time_column, cfg.time_format, cfg.time_data_type) == ("ds", "%Y%m%d", "string")
    cfg = validate(
        "m",
        TIME_RANGE,
        {"time_column": {"column": "ds", "format": "yyyy-MM-dd"}, "start": "2025-01-01"},
    )
    assert cfg.time_format == "yyyy-MM-dd"


def test_every_problem_is_listed_at_once() -> None:
    text = error(
        TIME_RANGE,
        {
            "start": "2025-02-30",
            "batch_size": 0,
            "lookback": -1,
            "cron": "every day",
            "file_format": "orc",
            "when_matched": "x",
        },
    )
    assert text.startswith("Invalid config for model 'daily_sales' (incremental_by_time_range)")
    for fragment in (
        "time_column: required",
        "start: '2025-02-30'",
        "batch_size: 0 is not an integer >= 1",
        "lookback: -1 is not an integer >= 0",
        "cron",
        "file_format: 'orc' is not one of: parquet, delta, iceberg",
        "when_matched: not an option of incremental_by_time_range",
    ):
        assert fragment in text, fragment


@pytest.mark.parametrize(
    ("kind", "config", "fragment"),
    [
        (TIME_RANGE, {"time_column": "d"}, "start: required for incremental_by_time_range"),
        (TIME_RANGE, {**GOOD, "end": "2024-12-01"}, "is not before end"),
        (TIME_RANGE, {**GOOD, "end": "someday"}, "end: 'someday'"),
        (TIME_RANGE, {**GOOD, "interval_unit": "fortnight"}, "interval_unit: 'fortnight'"),
        (TIME_RANGE, {**GOOD, "cron": "@hourly", "interval_unit": "day"}, "interval_unit"),
        (TIME_RANGE, {**GOOD, "batch_size": "many"}, "batch_size: 'many' is not an integer"),
        (TIME_RANGE, {**GOOD, "batch_size": True}, "batch_size: True is not an integer"),
        (TIME_RANGE, {**GOOD, "allow_partials": "yes"}, "allow_partials: 'yes' is not a boolean"),
        (TIME_RANGE, {**GOOD, "time_data_type": "float"}, "time_data_type: 'float' is not one of"),
        (TIME_RANGE, {**GOOD, "on_destructive_change": "drop"}, "on_destructive_change: 'drop'"),
        (TIME_RANGE, {**GOOD, "on_additive_change": 1}, "on_additive_change: 1"),
        (TIME_RANGE, {**GOOD, "week_start": "someday"}, "week_start: 'someday'"),
        (TIME_RANGE, {**GOOD, "time_colum": "x"}, "did you mean `time_column`"),
        (TIME_RANGE, {**GOOD, "unique_key": "id"}, "unique_key: not an option of"),
        (TIME_RANGE, {**GOOD, "time_column": 5}, "time_column: 5 is not a column name"),
        (TIME_RANGE, {**GOOD, "start": "2025-01-01' OR 1=1 --"}, "start:"),
        (UNIQUE_KEY, {}, "unique_key: required for incremental_by_unique_key"),
        (
            UNIQUE_KEY,
            {"unique_key": "id", "when_matched": "update set x = 1"},
            "does not start with 'WHEN MATCHED'",
        ),
        (UNIQUE_KEY, {"unique_key": "id", "merge_filter": ""}, "merge_filter: '' is not a SQL"),
        (UNIQUE_KEY, {"unique_key": 3}, "unique_key: 3 is not a column name"),
        (UNMANAGED, {"batch_size": 5}, "batch_size: incremental_unmanaged appends"),
        (UNMANAGED, {"time_column": "d"}, "time_column: not an option of incremental_unmanaged"),
        (SCD2_BY_TIME, {}, "unique_key: required for scd_type_2_by_time"),
        (SCD2_BY_TIME, {"unique_key": "id", "valid_from_name": ""}, "valid_from_name: ''"),
        (SCD2_BY_TIME, {"unique_key": "id", "time_data_type": "string"}, "time_data_type"),
        (SCD2_BY_COLUMN, {"unique_key": "id"}, "columns: required for scd_type_2_by_column"),
        (SCD2_BY_COLUMN, {"unique_key": "id", "columns": 3}, "columns: 3 is not a column"),
        (
            SCD2_BY_COLUMN,
            {"unique_key": "id", "columns": "*", "updated_at_as_valid_from": True},
            "updated_at_as_valid_from: not an option of scd_type_2_by_column",
        ),
        (TIME_RANGE, {**GOOD, "audits": "not_null"}, "audits: 'not_null' is not a list"),
        # Delta's liquid clustering and Z-ordering (dbt-databricks' keys)
        (
            TIME_RANGE,
            {**GOOD, "liquid_clustered_by": "id"},
            "liquid_clustered_by: a Delta feature, and file_format is 'parquet' (set file_format:"
            " delta, or remove liquid_clustered_by)",
        ),
        (
            UNIQUE_KEY,
            {"unique_key": "id", "file_format": "iceberg", "zorder": ["id"]},
            "zorder: a Delta feature, and file_format is 'iceberg'",
        ),
        (
            UNIQUE_KEY,
            {"unique_key": "id", "file_format": "delta", "liquid_clustered_by": 3},
            "liquid_clustered_by: 3 is not a column name or a list of column names",
        ),
        (
            PARTITION,
            {"partition_by": "region", "file_format": "delta", "liquid_clustered_by": "id"},
            "liquid_clustered_by: Delta clusters a table or partitions it, not both, and"
            " partition_by is ['region'], which incremental_by_partition needs",
        ),
        (
            UNIQUE_KEY,
            {
                "unique_key": "id",
                "file_format": "delta",
                "partition_by": "region",
                "auto_liquid_cluster": True,
            },
            "auto_liquid_cluster: Delta clusters a table or partitions it, not both, and"
            " partition_by is ['region']: remove one of the two",
        ),
        (
            TIME_RANGE,
            {
                **GOOD,
                "file_format": "delta",
                "liquid_clustered_by": "id",
                "partition_by_time_column": True,
            },
            "partition_by_time_column: true with liquid_clustered_by",
        ),
        (
            SCD2_BY_TIME,
            {
                "unique_key": "id",
                "file_format": "delta",
                "liquid_clustered_by": ["id"],
                "auto_liquid_cluster": "true",
            },
            "auto_liquid_cluster: true with liquid_clustered_by ['id']: set one",
        ),
        (
            TRACKED,
            {
                "group_key": "id",
                "file_format": "delta",
                "liquid_clustered_by": "id",
                "zorder": "name",
            },
            "zorder: ['name'] with liquid_clustered_by: Delta's OPTIMIZE does not Z-order",
        ),
        (UNMANAGED, {"skip_optimize": "sometimes"}, "skip_optimize: 'sometimes' is not a boolean"),
    ],
)
def test_bad_input_catalogue(kind: str, config: dict[str, Any], fragment: str) -> None:
    text = error(kind, config)
    assert "daily_sales" in text
    assert fragment in text


def test_a_clustered_time_range_table_is_not_partitioned_by_its_time_column() -> None:
    clustered = {**GOOD, "file_format": "delta", "liquid_clustered_by": ["customer_id"]}
    cfg = validate("m", TIME_RANGE, clustered)
    assert cfg.liquid_clustered_by == ["customer_id"]
    assert (cfg.partition_by_time_column, cfg.partition_cols) == (False, [])
    # not clustered: partitioned by its time column, as before
    assert validate("m", TIME_RANGE, {**GOOD, "file_format": "delta"}).partition_cols == [
        "order_date"
    ]
    auto = validate("m", TIME_RANGE, {**GOOD, "file_format": "delta", "auto_liquid_cluster": True})
    assert (auto.auto_liquid_cluster, auto.partition_cols) == (True, [])
    zorder = validate("m", UNIQUE_KEY, {"unique_key": "id", "file_format": "delta", "zorder": "d"})
    assert (zorder.zorder, zorder.skip_optimize) == (["d"], False)


def test_scd2_defaults() -> None:
    cfg = validate("m", SCD2_BY_TIME, {"unique_key": ["id", "region"]})
    assert cfg.unique_key == ["id", "region"]
    assert cfg.updated_at_name == "updated_at"
    assert (cfg.valid_from_name, cfg.valid_to_name) == ("valid_from", "valid_to")
    assert cfg.disable_restatement is True and cfg.invalidate_hard_deletes is False
    cfg = validate("m", SCD2_BY_COLUMN, {"unique_key": "id", "columns": "*"})
    assert cfg.columns is None and cfg.updated_at_name is None


def test_unset_dbt_keys_are_ignored() -> None:
    # dbt lists every config key it knows, unset ones as None
    cfg = validate("m", TIME_RANGE, {**GOOD, "unique_key": None, "materialized": "x"})
    assert cfg.unique_key == []


def test_dbt_node_defaults_are_not_read_as_the_users_config() -> None:
    """dbt-core gives every node `lookback: 1` (microbatch's default); dbt-vulcan's default is
    0, so the value counts only when the model, a properties file or dbt_project.yml set it."""
    base = {"materialized": "incremental_by_time_range", "time_column": "d", "lookback": 1}
    assert "lookback" not in node_config({"config": base, "unrendered_config": {}})
    assert node_config({"config": base, "unrendered_config": {"lookback": 1}})["lookback"] == 1
    assert node_config({"config": base, "config_call_dict": {"lookback": 1}})["lookback"] == 1
    assert node_config({"config": {**base, "lookback": 3}})["lookback"] == 3
    cfg = validate("m", "incremental_by_time_range", {**base, "start": "2025-01-01"})
    assert cfg.lookback == 1  # validate() reads what it is given
    node = {"name": "m", "config": {**base, "start": "2025-01-01"}, "unrendered_config": {}}
    assert settings(node).lookback == 0
    assert settings({**node, "unrendered_config": {"lookback": 1}}).lookback == 1


def test_one_entry_point_for_runs_and_operations() -> None:
    """The materialization's `model` and the graph nodes of the run-operations both go
    through `settings`: the kind comes from `materialized` unless given."""
    node = {
        "name": "daily",
        "config": {"materialized": TIME_RANGE, **GOOD, "lookback": 1, "batch_size": 2},
        "unrendered_config": {"batch_size": 2},
    }
    cfg = settings(node)
    assert (cfg.model, cfg.kind, cfg.lookback, cfg.batch_size) == ("daily", TIME_RANGE, 0, 2)
    assert settings(node, TIME_RANGE) == cfg
    with pytest.raises(VulcanConfigError, match="materialized 'table' is not one of"):
        settings({"name": "t", "config": {"materialized": "table"}})


def test_dbt_default_lookback_on_a_kind_without_lookback_is_not_an_error() -> None:
    """Graph nodes read by the run-operations carry dbt's `lookback: 1` on every kind; set by
    the user on a kind without lookback, it is an error like any other key of another kind."""
    node = {"name": "m", "config": {"unique_key": "id", "lookback": 1}, "unrendered_config": {}}
    assert settings(node, "scd_type_2_by_time").lookback == 0
    for value in (1, 3):
        with pytest.raises(VulcanConfigError, match="lookback: not an option"):
            validate("m", "scd_type_2_by_time", {"unique_key": "id", "lookback": value})
