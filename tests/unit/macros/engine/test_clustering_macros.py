"""Macro rendering of Delta's liquid clustering and OPTIMIZE (engine/clustering.sql): the
CREATE's clause, the layout recorded with a run's state rows, the ALTER TABLE a changed
clustering gets instead of a rebuild, and the OPTIMIZE after a run that wrote."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.macro_harness import FakeResult, Harness, relation, shared_harness


@pytest.fixture
def h() -> Iterator[Harness]:
    harness = shared_harness("vulcan").reset()
    # a delta table is created from the query's columns (engine/create_empty_table.sql)
    harness.query_results["describe query select 1 as id"] = FakeResult([("id", "int", None)])
    var = harness.context["var"]
    yield harness
    harness.context["var"] = var


def cfg(**changes: Any) -> dict[str, Any]:
    base = {
        "model": "orders",
        "kind": "incremental_by_time_range",
        "file_format": "delta",
        "time_column": "order_date",
        "partition_cols": [],
        "liquid_clustered_by": [],
        "auto_liquid_cluster": False,
        "zorder": [],
        "skip_optimize": False,
    }
    return {**base, **changes}


@pytest.mark.parametrize(
    ("changes", "clause"),
    [
        (
            {"liquid_clustered_by": ["Customer_Id", "order date"]},
            "cluster by (`Customer_Id`, `order date`)",
        ),
        ({"auto_liquid_cluster": True}, "cluster by auto"),
    ],
)
def test_a_clustered_table_is_created_clustered(
    h: Harness, changes: dict[str, Any], clause: str
) -> None:
    for replace in (False, True):  # the first run and every rebuild
        h.statements.clear()
        h.call("vulcan_create_empty_table", relation(), "select 1 as id", cfg(**changes), replace)
        describe, sql = h.statements
        assert describe == "describe query select 1 as id"
        assert clause in sql
        assert "partitioned by" not in sql


def test_a_table_not_clustered_has_no_clause(h: Harness) -> None:
    h.call("vulcan_create_empty_table", relation(), "select 1 as id", cfg(), False)
    assert "cluster by" not in h.statements[0]


def test_the_layout_records_the_clustering_only_when_there_is_one(h: Harness) -> None:
    assert h.call("vulcan_layout", cfg()) == {"file_format": "delta", "partitioned_by": []}
    clustered = h.call("vulcan_layout", cfg(liquid_clustered_by=["Customer_Id"]))
    assert clustered["clustered_by"] == ["customer_id"]
    assert h.call("vulcan_layout", cfg(auto_liquid_cluster=True))["clustered_by"] == "auto"


@pytest.mark.parametrize(
    ("recorded", "changes", "statement"),
    [
        ([], {"liquid_clustered_by": ["b"]}, "alter table s.t cluster by (`b`)"),
        (["a"], {"liquid_clustered_by": ["a", "b"]}, "alter table s.t cluster by (`a`, `b`)"),
        (["a"], {}, "alter table s.t cluster by none"),
        (["a"], {"auto_liquid_cluster": True}, "alter table s.t cluster by auto"),
        ("auto", {"liquid_clustered_by": ["a"]}, "alter table s.t cluster by (`a`)"),
    ],
)
def test_a_changed_clustering_is_altered_not_rebuilt(
    h: Harness, recorded: Any, changes: dict[str, Any], statement: str
) -> None:
    h.call("vulcan_alter_clustering", relation(), cfg(**changes), recorded)
    assert h.statements == [statement]


@pytest.mark.parametrize(
    ("changes", "sql"),
    [
        ({"liquid_clustered_by": ["a"]}, "optimize s.t"),
        ({"auto_liquid_cluster": True}, "optimize s.t"),
        ({"zorder": ["a", "b c"]}, "optimize s.t zorder by (`a`, `b c`)"),
        ({"zorder": ["a"], "skip_optimize": True}, None),
        ({"zorder": ["a"], "file_format": "parquet"}, None),
        ({}, None),
    ],
)
def test_optimize_sql(h: Harness, changes: dict[str, Any], sql: str | None) -> None:
    assert h.call("vulcan_optimize_sql", relation(), cfg(**changes)) == sql


@pytest.mark.parametrize("name", ["databricks_skip_optimize", "DATABRICKS_SKIP_OPTIMIZE"])
def test_dbt_databricks_vars_skip_optimize(h: Harness, name: str) -> None:
    h.context["var"] = lambda key, default=None: "True" if key == name else default
    assert h.call("vulcan_optimize_sql", relation(), cfg(zorder=["a"])) is None


def test_optimize_runs_only_after_a_run_that_wrote(h: Harness) -> None:
    settings = cfg(liquid_clustered_by=["a"])
    h.call("vulcan_optimize", relation(), settings, False)
    assert h.statements == []
    h.call("vulcan_optimize", relation(), settings, True)
    assert h.statements == ["optimize s.t"]


KEY = "spark.sql.legacy.allowNonEmptyLocationInCTAS"


@pytest.mark.parametrize("before", ["false", "true"])
def test_a_parquet_table_under_location_root_is_created_over_its_folder(
    h: Harness, before: str
) -> None:
    """An external parquet table (location_root) is created with Spark's CREATE TABLE AS
    SELECT allowed into its non-empty folder (a rebuild: the old table's files), for that
    statement only; Delta and a table without a location leave the setting alone."""
    h.query_results[f"set {KEY}"] = FakeResult([(KEY, before)])
    settings = cfg(file_format="parquet", location_root="/data/marts")
    h.call("vulcan_create_empty_table", relation(), "select 1 as id", settings, False)
    create = next(s for s in h.statements if s.startswith("create table"))
    toggled = [f"set {KEY}=true", create, f"set {KEY}={before}"] if before == "false" else [create]
    assert [s for s in h.statements if s != f"set {KEY}"] == toggled
    for other in (cfg(file_format="parquet"), cfg(location_root="/data/marts")):
        h.statements.clear()
        h.call("vulcan_create_empty_table", relation(), "select 1 as id", other, True)
        assert not any(KEY in s for s in h.statements), h.statements
