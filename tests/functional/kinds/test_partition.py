"""incremental_by_partition on a real SparkSession (parquet, delta or iceberg by --profile)."""

from __future__ import annotations

from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture, write_file

from tests.support.functional import model_message, model_statements, rows, run, table_rows

# Two loads of sales. Load 2 brings fewer rows for key (1, 'a') than load 1 had (all of the
# key's rows must be replaced), a NULL category and a quote in a key value, and a new key.
SALES = """sale_id,load_id,warehouse_id,category,amount
1,1,1,a,10
2,1,1,a,11
3,1,1,b,12
4,1,2,a,13
5,1,2,,14
6,1,3,it's,15
7,2,1,a,20
8,2,2,,21
9,2,4,c,22
10,2,3,it's,23
11,2,3,it's,24
"""

BODY = """
select sale_id, warehouse_id, category, amount
from {{ ref('raw_sales') }}
where load_id = {{ var('load_id', 1) }}
"""

# reads its own table: the partitions of the load keep their earlier rows plus the new ones
CUMULATIVE = """
select sale_id, warehouse_id, category, amount
from {{ ref('raw_sales') }}
where load_id = {{ var('load_id', 1) }}
{% if is_incremental() %}
union all
select sale_id, warehouse_id, category, amount
from {{ this }}
where warehouse_id in (
  select warehouse_id from {{ ref('raw_sales') }} where load_id = {{ var('load_id', 1) }}
)
{% endif %}
"""


def model(body: str = BODY, **config: Any) -> str:
    base: dict[str, Any] = {"materialized": "incremental_by_partition"}
    base.update(config)
    args = ", ".join(f"{k}={v!r}" for k, v in base.items())
    return "{{ config(" + args + ") }}\n" + body


COLUMNS = "sale_id, warehouse_id, category, amount"


def ids(project: Any, name: str) -> list[int]:
    return [r[0] for r in table_rows(project, name, COLUMNS)]


def relation_exists(project: Any, name: str) -> bool:
    found = rows(project, f"show tables in {project.test_schema} like '{name}'")
    return bool(found)


def partition_columns(project: Any, name: str) -> list[str]:
    described = rows(project, f"describe table extended {project.test_schema}.{name}")
    labels = [str(r[0]) for r in described]
    start = labels.index("# Partition Information") + 2
    out = []
    for label in labels[start:]:
        if not label or label.startswith("#"):
            break
        out.append(label)
    return out


class TestPartition:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_sales.csv": SALES}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "by_warehouse.sql": model(partitioned_by="warehouse_id"),
            # dbt's own partition_by is accepted as well
            "by_warehouse_category.sql": model(partition_by=["warehouse_id", "category"]),
            "cumulative.sql": model(CUMULATIVE, partitioned_by=["warehouse_id"]),
            "protected.sql": model(partitioned_by="warehouse_id", disable_restatement=True),
            "protected_forced.sql": model(
                partitioned_by="warehouse_id", disable_restatement=True, full_refresh=True
            ),
            "layout.sql": model(partitioned_by="warehouse_id"),
            "restated.sql": model(partitioned_by="warehouse_id"),
        }

    def test_replaces_present_keys_keeps_absent_inserts_new(
        self, project: Any, logs_dir: str, table_format: str
    ) -> None:
        run("seed")
        run("run", "-s", "by_warehouse", vars={"load_id": 1})
        assert ids(project, "by_warehouse") == [1, 2, 3, 4, 5, 6]
        assert partition_columns(project, "by_warehouse") == ["warehouse_id"]
        run("run", "-s", "by_warehouse", vars={"load_id": 2})
        # warehouses 1, 2 and 3 are in load 2: all their rows replaced (3 and 4 of warehouse 1
        # and 2 are gone too); warehouse 4 is new
        assert ids(project, "by_warehouse") == [7, 8, 9, 10, 11]
        second = model_statements(logs_dir, "by_warehouse")
        # a load without warehouse 4 leaves it alone
        run("run", "-s", "by_warehouse", vars={"load_id": 1})
        assert ids(project, "by_warehouse") == [1, 2, 3, 4, 5, 6, 9]
        for statements in (second, model_statements(logs_dir, "by_warehouse")):
            # no run after the first describes the table: its layout and columns are those
            # the first run created it with and recorded (engine/schema_change.sql); the
            # package reads the query's columns (DESCRIBE QUERY), the adapter analyses it
            described = [
                s
                for s in statements
                if s.lower().startswith(("describe table", "describe extended"))
            ]
            assert not described, statements
            # no stage is looked for: the kind stages only for a schema change's rewrite,
            # which names its stage in the log first (engine/stage.sql)
            assert not [s for s in statements if s.lower().startswith("show tables")], statements
            # the state read, the write and the run record (Delta reads the query's partition
            # keys first, for its REPLACE WHERE; an Iceberg state is refreshed first: its
            # catalog caches a snapshot per session)
            issued = [
                s
                for s in statements
                if not s.startswith("refresh table") and not s.lower().startswith("describe query")
            ]
            assert len(issued) <= (4 if table_format == "delta" else 3), statements

    def test_composite_keys(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "by_warehouse_category", vars={"load_id": 1})
        assert sorted(partition_columns(project, "by_warehouse_category")) == [
            "category",
            "warehouse_id",
        ]
        run("run", "-s", "by_warehouse_category", vars={"load_id": 2})
        got = table_rows(project, "by_warehouse_category", COLUMNS)
        assert got == [
            (3, 1, "b", 12),  # (1, b): absent from load 2, untouched
            (4, 2, "a", 13),  # (2, a): untouched although warehouse 2 is in load 2
            (7, 1, "a", 20),  # (1, a): both earlier rows replaced by the one new row
            (8, 2, None, 21),  # (2, NULL): a NULL key is a key like any other
            (9, 4, "c", 22),  # (4, c): new
            (10, 3, "it's", 23),  # (3, it's): a quote in the key value
            (11, 3, "it's", 24),
        ]

    def test_model_reading_its_own_table(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "cumulative", vars={"load_id": 1})
        run("run", "-s", "cumulative", vars={"load_id": 2})
        # warehouses of load 2 keep their load-1 rows (read back from the table) plus load 2
        assert ids(project, "cumulative") == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]

    def test_restating_a_range_is_widened_to_a_rebuild(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "restated", vars={"load_id": 1})
        run("run", "-s", "restated", vars={"load_id": 2})
        assert ids(project, "restated") == [7, 8, 9, 10, 11]
        args = "{select: restated, start: '2025-01-01', end: '2025-01-02'}"
        _, out = run_dbt_and_capture(["run-operation", "vulcan_restate", "--args", args])
        assert "model 'restated' (incremental_by_partition) only supports full-history" in out
        assert "was widened to the whole history" in out
        # the next run rebuilds: warehouse 4 (only in load 2) is gone, which a partition
        # replacement of load 1 would have kept
        run("run", "-s", "restated", vars={"load_id": 1})
        assert ids(project, "restated") == [1, 2, 3, 4, 5, 6]

    def test_full_refresh_rebuilds_and_disable_restatement_keeps(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "by_warehouse", "protected", "protected_forced", vars={"load_id": 1})
        run("run", "-s", "by_warehouse", vars={"load_id": 2})
        run("run", "-s", "by_warehouse", "--full-refresh", vars={"load_id": 2})
        assert ids(project, "by_warehouse") == [7, 8, 9, 10, 11]
        # --full-refresh skipped with a line: load 2 replaces its partitions incrementally
        _, log = run_dbt_and_capture(
            ["run", "-s", "protected", "--full-refresh", "--vars", "{load_id: 2}"]
        )
        assert "Model 'protected': --full-refresh skipped (disable_restatement: true" in log
        assert ids(project, "protected") == [7, 8, 9, 10, 11]
        result = run(
            "run",
            "-s",
            "protected_forced",
            "--full-refresh",
            vars={"load_id": 2},
            expect_pass=False,
        )
        assert "sets full_refresh: true but has disable_restatement: true" in model_message(result)
        assert ids(project, "protected_forced") == [1, 2, 3, 4, 5, 6]

    def test_table_built_elsewhere_is_rebuilt_as_its_own(
        self, project: Any, table_format: str
    ) -> None:
        run("seed")
        schema = project.test_schema
        project.run_sql(f"drop table if exists {schema}.layout")
        # another materialization's table (no state): other partitioning, every load's rows
        project.run_sql(
            f"create table {schema}.layout using {table_format} "
            f"partitioned by (category) as "
            f"select sale_id, warehouse_id, amount, category from {schema}.raw_sales"
        )
        _, logs = run_dbt_and_capture(["run", "-s", "layout", "--vars", '{"load_id": 2}'])
        assert "has no dbt-vulcan state" in logs and "rebuilding it" in logs
        # what a clean build of load 2 gives, in the kind's own layout
        assert ids(project, "layout") == [7, 8, 9, 10, 11]
        assert partition_columns(project, "layout") == ["warehouse_id"]
        # later runs replace the partitions of their keys only (warehouse 4 keeps load 2's)
        run("run", "-s", "layout", vars={"load_id": 1})
        assert ids(project, "layout") == [1, 2, 3, 4, 5, 6, 9]

    def test_changed_partitioning_is_refused(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "layout", "--full-refresh", vars={"load_id": 1})
        write_file(model(partitioned_by="category"), project.project_root, "models", "layout.sql")
        try:
            result = run("run", "-s", "layout", vars={"load_id": 2}, expect_pass=False)
            message = model_message(result)
            assert "partitioned by (warehouse_id), but its config now asks for" in message
            assert "partitioned by (category)" in message and "--full-refresh" in message
            assert ids(project, "layout") == [1, 2, 3, 4, 5, 6]  # nothing written
            run("run", "-s", "layout", "--full-refresh", vars={"load_id": 2})
            assert ids(project, "layout") == [7, 8, 9, 10, 11]
            assert partition_columns(project, "layout") == ["category"]
        finally:
            write_file(
                model(partitioned_by="warehouse_id"), project.project_root, "models", "layout.sql"
            )


@pytest.mark.profile_only("parquet")
class TestPartitionParquetNeedsDynamicOverwrite:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_sales.csv": SALES}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"plain.sql": model(partitioned_by="warehouse_id")}

    def test_table_without_dynamic_option_is_rebuilt(self, project: Any) -> None:
        run("seed")
        schema = project.test_schema
        # a table of the right shape that some other materialization created: its
        # INSERT OVERWRITE would replace the whole table, so the kind rebuilds it first
        project.run_sql(
            f"create table {schema}.plain using parquet partitioned by (warehouse_id) as "
            f"select sale_id, category, amount, warehouse_id from {schema}.raw_sales"
        )
        run("run", "-s", "plain", vars={"load_id": 2})
        assert ids(project, "plain") == [7, 8, 9, 10, 11]
        run("run", "-s", "plain", vars={"load_id": 1})
        assert ids(project, "plain") == [1, 2, 3, 4, 5, 6, 9]


@pytest.mark.profile_only("delta")
class TestPartitionKeysThatChangeBetweenReads:
    """Delta: the keys to replace come from one read of the query, the rows from a second
    (partition_delta.sql). A query whose keys differ between the two (here a key that is new
    on every evaluation, as a source rewritten in between would give) fails the write: Delta
    checks every row against REPLACE WHERE. The run fails loudly and the table is as it was."""

    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_sales.csv": SALES}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        key = "{{ var('batch_key', \"'fixed'\") }}"
        moving = (
            f"select sale_id, amount, {key} as batch_key from {{{{ ref('raw_sales') }}}} "
            "where sale_id <= 3"
        )
        return {"moving.sql": model(moving, partitioned_by="batch_key")}

    def test_the_write_fails_and_the_table_is_unchanged(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "moving")
        before = table_rows(project, "moving", "sale_id, amount, batch_key")
        assert [r[0] for r in before] == [1, 2, 3]
        # a key new on every evaluation of the query
        result = run("run", "-s", "moving", vars={"batch_key": "uuid()"}, expect_pass=False)
        message = model_message(result).lower()
        assert "replace" in message and "where" in message, message
        assert table_rows(project, "moving", "sale_id, amount, batch_key") == before


class TestPartitionConfigErrors:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_sales.csv": SALES}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"no_keys.sql": model()}

    def test_missing_partitioned_by(self, project: Any) -> None:
        run("seed")
        result = run("run", "-s", "no_keys", expect_pass=False)
        message = model_message(result)
        assert "no_keys" in message
        assert "partitioned_by: required for incremental_by_partition" in message
        assert not relation_exists(project, "no_keys")
