"""`persist_docs` (the relation's and its columns' comments) through every way a table is built
again, on every kind: after the first run, an incremental run, `--full-refresh`, a
whole-history restatement (`vulcan_restate`: a time range is restated by range, the other
kinds by their whole history, rebuilt by the next run) and a schema change's rewrite (a column
dropped with `on_destructive_change: allow`). On a Delta target the unique key's table is
also liquid-clustered (dbt-databricks' own `table` keeps the comments of such a table through
its rebuild). Column comments: Delta and Iceberg (dbt-spark and dbt-databricks set none on
parquet). One project, every kind in each dbt invocation; the SCD type 2 by time's key sits
under `meta`, which the restatement reads as the run does."""

from __future__ import annotations

import json
from typing import Any

import pytest
from dbt.tests.util import write_file

from tests.support.functional import orders_csv, rows, run

EXEC = "vulcan_execution_time"
DOCS = "persist_docs={'relation': true, 'columns': true}"
COLUMNS = "order_id, order_date, customer_id, total_amount"
RAW = "{{ ref('raw_orders') }}"
UPTO = "where order_date <= '{{ var('upto') }}'"

# name: (config, the query's FROM and WHERE); every query selects COLUMNS (and an SCD type 2
# by time its `updated_at`)
MODELS = {
    "by_time": (
        "materialized='incremental_by_time_range', "
        "meta={'time_column': 'order_date', 'start': '2025-01-01'}",
        f"from {RAW}\nwhere order_date between @start_ds and @end_ds",
    ),
    "by_key": (
        "materialized='incremental_by_unique_key', unique_key='order_id'",
        f"from {RAW}\n{UPTO}",
    ),
    "by_partition": (
        "materialized='incremental_by_partition', partition_by='customer_id'",
        f"from {RAW}\nwhere order_date = '{{{{ var('upto') }}}}'",
    ),
    "appended": (
        "materialized='incremental_unmanaged'",
        f"from {RAW}\nwhere order_date = '{{{{ var('upto') }}}}'",
    ),
    "versions": (
        "materialized='scd_type_2_by_column', disable_restatement=false, "
        "unique_key='order_id', meta={'columns': ['customer_id']}",
        f"from {RAW}\n{UPTO}",
    ),
    "history": (
        "materialized='scd_type_2_by_time', disable_restatement=false, "
        "meta={'unique_key': 'order_id'}",
        f"from {RAW}\n{UPTO}",
    ),
    "groups": (
        "materialized='tracked', meta={'group_key': 'customer_id'}",
        f"from {RAW}\n{UPTO}",
    ),
}

SCHEMA_YML = "version: 2\nmodels:\n" + "".join(
    f"  - name: {name}\n"
    f'    description: "The {name} table\'s own words"\n'
    "    columns:\n"
    "      - name: customer_id\n"
    "        description: who ordered\n"
    "      - name: order_id\n"
    "        description: the order\n"
    for name in MODELS
)


def model_sql(name: str, clustered: bool, dropped: bool = False) -> str:
    """The model's file; `dropped`: without total_amount, a destructive change allowed."""
    config, rest = MODELS[name]
    config += ", " + DOCS
    if clustered and name == "by_key":
        config += ", liquid_clustered_by=['customer_id']"
        config += ", tblproperties={'delta.enableChangeDataFeed': 'true'}"
    if dropped:
        config += ", on_destructive_change='allow'"
    columns = COLUMNS.replace(", total_amount", "") if dropped else COLUMNS
    if name == "history":
        columns += ", cast(order_date as timestamp) as updated_at"
    return "{{ config(" + config + ") }}\n" + f"select {columns}\n{rest}\n"


def described(project: Any, name: str) -> dict[str, Any]:
    """The table's comment, its columns' comments and names, from DESCRIBE TABLE EXTENDED."""
    found = rows(project, f"describe table extended {project.test_schema}.{name}")
    columns: dict[str, Any] = {}
    for row in found:
        if not row[0] or str(row[0]).startswith("#"):
            break
        columns[str(row[0])] = row[2]
    table = next((r[1] for r in found if r[0] == "Comment"), None)
    return {"table": table, "columns": columns}


class TestCommentsThroughEveryRebuild:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=3)}

    @pytest.fixture(scope="class")
    def clustered(self, table_format: str) -> bool:
        return table_format == "delta"

    @pytest.fixture(scope="class")
    def models(self, clustered: bool) -> dict[str, str]:
        out = {f"{name}.sql": model_sql(name, clustered) for name in MODELS}
        return {**out, "schema.yml": SCHEMA_YML}

    def test_comments_stay(self, project: Any, table_format: str, clustered: bool) -> None:
        run("seed")
        day1 = {"upto": "2025-01-01", EXEC: "2025-01-02 06:00:00"}
        day2 = {"upto": "2025-01-02", EXEC: "2025-01-03 06:00:00"}
        restate = {"start": "2025-01-01", "end": "2025-01-02"}

        def drop_total_amount() -> None:
            for name in MODELS:
                sql = model_sql(name, clustered, dropped=True)
                write_file(sql, project.project_root, "models", f"{name}.sql")

        steps: list[tuple[str, Any]] = [
            ("first run", lambda: run("run", vars=day1)),
            ("incremental run", lambda: run("run", vars=day2)),
            ("--full-refresh", lambda: run("run", "--full-refresh", vars=day2)),
            (
                "whole-history restatement",
                lambda: (
                    run("run-operation", "vulcan_restate", "--args", json.dumps(restate)),
                    run("run", vars=day2),
                ),
            ),
            ("schema change", lambda: (drop_total_amount(), run("run", vars=day2))),
        ]
        counted = " union all ".join(
            f"select '{name}', count(*) from {project.test_schema}.{name}" for name in MODELS
        )
        lost = []
        for step, act in steps:
            act()
            empty = [name for name, count in rows(project, counted) if count == 0]
            assert empty == [], (step, empty)
            for name in MODELS:
                found = described(project, name)
                kept = "total_amount" in found["columns"]
                assert kept == (step != "schema change"), (step, name, found["columns"])
                if found["table"] != f"The {name} table's own words":
                    lost.append((step, name, "table", found["table"]))
                if table_format == "parquet":
                    continue
                for column, words in (("customer_id", "who ordered"), ("order_id", "the order")):
                    if found["columns"].get(column) != words:
                        lost.append((step, name, column, found["columns"].get(column)))
        assert lost == []
        if clustered:
            detail = rows(project, f"describe detail {project.test_schema}.by_key")
            assert "customer_id" in str(detail[0]), detail
