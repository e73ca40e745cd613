"""What a team configures on its tables beyond the kind's own keys, on every kind: dbt's
`tblproperties` and `persist_docs` (the relation's and its columns' comments), kept after the
first run, an incremental run and a rebuild (`--full-refresh`), on every format by --profile
(column comments: Delta and Iceberg; dbt-spark and dbt-databricks skip them on parquet)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.functional import orders_csv, rows, run

EXEC = "vulcan_execution_time"
SHARED = "tblproperties={'team': 'sales'}, persist_docs={'relation': true, 'columns': true}"

MODELS = {
    "by_time": (
        "materialized='incremental_by_time_range', "
        "meta={'time_column': 'order_date', 'start': '2025-01-01'}",
        "select order_id, order_date, customer_id from {{ ref('raw_orders') }}\n"
        "where order_date between @start_ds and @end_ds",
    ),
    "by_key": (
        "materialized='incremental_by_unique_key', meta={'unique_key': 'order_id'}",
        "select order_id, order_date, customer_id from {{ ref('raw_orders') }}\n"
        "where order_date <= '{{ var('upto') }}'",
    ),
    "by_partition": (
        "materialized='incremental_by_partition', partition_by='customer_id'",
        "select order_id, order_date, customer_id from {{ ref('raw_orders') }}\n"
        "where order_date = '{{ var('upto') }}'",
    ),
    "appended": (
        "materialized='incremental_unmanaged'",
        "select order_id, order_date, customer_id from {{ ref('raw_orders') }}\n"
        "where order_date = '{{ var('upto') }}'",
    ),
    "versions": (
        "materialized='scd_type_2_by_column', "
        "meta={'unique_key': 'order_id', 'columns': ['customer_id']}",
        "select order_id, order_date, customer_id from {{ ref('raw_orders') }}\n"
        "where order_date <= '{{ var('upto') }}'",
    ),
    "groups": (
        "materialized='tracked', meta={'group_key': 'customer_id'}",
        "select order_id, order_date, customer_id from {{ ref('raw_orders') }}\n"
        "where order_date <= '{{ var('upto') }}'",
    ),
}

SCHEMA_YML = "version: 2\nmodels:\n" + "".join(
    f"  - name: {name}\n"
    f'    description: "The {name} table\'s own words"\n'
    "    columns:\n"
    "      - name: customer_id\n"
    "        description: who ordered\n"
    for name in MODELS
)


def comments(project: Any, name: str) -> tuple[str | None, str | None]:
    """(the table's comment, customer_id's comment), from DESCRIBE TABLE EXTENDED."""
    found = rows(project, f"describe table extended {project.test_schema}.{name}")
    column = next((r[2] for r in found if r[0] == "customer_id"), None)
    table = next((r[1] for r in found if r[0] == "Comment"), None)
    return table, column


class TestTableConfigsOnEveryKind:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=3)}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        out = {
            f"{name}.sql": "{{ config(" + config + ", " + SHARED + ") }}\n" + body
            for name, (config, body) in MODELS.items()
        }
        return {**out, "schema.yml": SCHEMA_YML}

    def test_properties_and_comments_after_every_kind_of_run(
        self, project: Any, table_format: str
    ) -> None:
        run("seed")
        steps: list[tuple[tuple[str, ...], dict[str, Any]]] = [
            ((), {"upto": "2025-01-01", EXEC: "2025-01-02 06:00:00"}),  # first run
            ((), {"upto": "2025-01-02", EXEC: "2025-01-03 06:00:00"}),  # incremental
            (("--full-refresh",), {"upto": "2025-01-02", EXEC: "2025-01-03 06:00:00"}),
        ]
        for flags, vars_ in steps:
            run("run", *flags, vars=vars_)
            for name in MODELS:
                relation = f"{project.test_schema}.{name}"
                properties = dict(rows(project, f"show tblproperties {relation}"))
                assert properties.get("team") == "sales", (name, flags, properties)
                table, column = comments(project, name)
                assert table == f"The {name} table's own words", (name, flags, table)
                if table_format != "parquet":
                    assert column == "who ordered", (name, flags, column)


class TestTagsNeedUnityCatalog:
    """Unity Catalog tags (a column's `databricks_tags` in a properties file, as dbt-databricks
    reads them) where no Unity Catalog is: type: spark and type: vulcan have none, and on
    type: databricks the test server's catalog is the Hive metastore, where dbt-databricks'
    own materializations refuse tags too. The run is refused before anything is created or
    recorded, naming the model, the key, the value and what to do."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        config, body = MODELS["by_key"]
        return {
            "tagged.sql": "{{ config("
            + config
            + ") }}\n"
            + body.replace(
                "{{ ref('raw_orders') }}",
                "(select 1 as order_id, date'2025-01-01' as order_date, 7 as customer_id)",
            ),
            "schema.yml": (
                "version: 2\nmodels:\n  - name: tagged\n    columns:\n"
                "      - name: customer_id\n        databricks_tags: {pii: 'yes'}\n"
            ),
        }

    def test_refused_before_anything_is_created(self, project: Any) -> None:
        result = run("run", vars={"upto": "2025-01-01"}, expect_pass=False)
        (outcome,) = [r for r in result.results if r.node.name == "tagged"]
        message = str(outcome.message)
        assert outcome.status == "error"
        assert "Model 'tagged' (incremental_by_unique_key)" in message
        assert "databricks_tags of column customer_id {'pii': 'yes'}" in message
        assert "tags are a Unity Catalog feature" in message and "Nothing was run" in message
        if project.adapter.type() == "databricks":
            assert "Tags are only supported for Unity Catalog" in message
            assert "hive_metastore" in message
        else:
            assert f"type: {project.adapter.type()} has no Unity Catalog" in message
        shown = rows(project, f"show tables in {project.test_schema}")
        assert [r for r in shown if str(r[1]).lower() == "tagged"] == []
