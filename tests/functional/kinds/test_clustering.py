"""Delta's liquid clustering, Z-ordering and OPTIMIZE on dbt-vulcan's kinds, configured with
dbt-databricks' keys (`liquid_clustered_by`, `auto_liquid_cluster`, `zorder`,
`skip_optimize`): the table is created clustered, stays clustered through an incremental run
and a rebuild, a changed clustering is altered in place (no rebuild), and OPTIMIZE runs after
each run that wrote. Delta only (Delta Lake open source here: no `CLUSTER BY AUTO`, which is
Databricks' own); `type: databricks` runs the lifecycle test (make databricks)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture, write_file

from tests.support.functional import model_statements, orders_csv, processed_rows, rows, run

pytestmark = pytest.mark.profile_only("delta")

EXEC = "vulcan_execution_time"

ORDERS = """
{{ config(materialized='incremental_by_time_range', file_format='delta',
          liquid_clustered_by=var('cluster', ['customer_id']),
          meta={'time_column': 'order_date', 'start': '2025-01-01'}) }}
select order_id, order_date, customer_id, total_amount from {{ ref('raw_orders') }}
where order_date between @start_ds and @end_ds
"""

KINDS = {
    # unique key, Z-ordered
    "zordered_customers": """
{{ config(materialized='incremental_by_unique_key', file_format='delta', zorder='customer_id',
          meta={'unique_key': 'order_id'}) }}
select order_id, customer_id, total_amount from {{ ref('raw_orders') }}
where order_date <= '{{ var('upto') }}'
""",
    "clustered_versions": """
{{ config(materialized='scd_type_2_by_column', file_format='delta',
          liquid_clustered_by='order_id',
          meta={'unique_key': 'order_id', 'columns': ['total_amount']}) }}
select order_id, customer_id, total_amount from {{ ref('raw_orders') }}
where order_date <= '{{ var('upto') }}'
""",
    "clustered_log": """
{{ config(materialized='incremental_unmanaged', file_format='delta',
          liquid_clustered_by=['customer_id']) }}
select order_id, customer_id from {{ ref('raw_orders') }} where order_date = '{{ var('upto') }}'
""",
    # tracked, clustered, OPTIMIZE skipped
    "clustered_groups": """
{{ config(materialized='tracked', file_format='delta', liquid_clustered_by='customer_id',
          skip_optimize=true, meta={'group_key': 'customer_id'}) }}
select customer_id, order_id from {{ ref('raw_orders') }} where order_date <= '{{ var('upto') }}'
""",
}


def clustering(project: Any, name: str) -> list[str]:
    """The table's clustering columns, as Delta records them in its properties."""
    found = rows(project, f"show tblproperties {project.test_schema}.{name} ('clusteringColumns')")
    value = str(found[0][1]) if found else ""
    if not value.startswith("["):  # "Table ... does not have property: clusteringColumns"
        return []
    return [".".join(path) for path in json.loads(value)]


def operations(project: Any, name: str) -> list[tuple[str, str]]:
    """The table's Delta commits, oldest first: (operation, its parameters as text)."""
    found = rows(project, f"describe history {project.test_schema}.{name}")
    return [(str(r[4]), str(r[5])) for r in sorted(found, key=lambda r: r[0])]


class TestClusteredTimeRange:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=5)}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"clustered_orders.sql": ORDERS}

    def test_created_clustered_altered_on_change_and_kept_through_a_rebuild(
        self, project: Any, logs_dir: str
    ) -> None:
        run("seed")
        run("run", vars={EXEC: "2025-01-03 06:00:00"})
        assert clustering(project, "clustered_orders") == ["customer_id"]
        # clustered, so not partitioned by its time column (Delta does not do both)
        detail = rows(project, f"describe detail {project.test_schema}.clustered_orders")[0]
        partitions = detail[7]  # partitionColumns: a list, or its JSON over Thrift
        assert (json.loads(partitions) if isinstance(partitions, str) else list(partitions)) == []
        first = [op for op, _ in operations(project, "clustered_orders")]
        assert first[-1] == "OPTIMIZE", first  # after the run's write

        # a new clustering: one ALTER TABLE, no rebuild (the days written before stay)
        wider = {"cluster": ["order_date", "customer_id"]}
        run("run", vars={EXEC: "2025-01-04 06:00:00", **wider})
        assert clustering(project, "clustered_orders") == ["order_date", "customer_id"]
        altered = [s for s in model_statements(logs_dir, "clustered_orders") if "cluster by" in s]
        # (the relation as the adapter renders it: with its catalog on type: databricks)
        assert len(altered) == 1 and altered[0].startswith("alter table "), altered
        assert "clustered_orders" in altered[0], altered
        assert altered[0].endswith(" cluster by (`order_date`, `customer_id`)"), altered
        history = operations(project, "clustered_orders")
        created = [op for op, _ in history if op.startswith("CREATE")]
        assert len(created) == 1, history
        assert "CLUSTER BY" in [op for op, _ in history], history
        assert history[-1][0] == "OPTIMIZE", history
        assert rows(project, f"select count(*) from {project.test_schema}.clustered_orders") == [
            (9,)
        ]
        assert processed_rows(project, "clustered_orders")[-1] == (
            "2025-01-03 00:00:00",
            "2025-01-04 00:00:00",
        )

        # the same clustering: nothing altered
        run("run", vars={EXEC: "2025-01-05 06:00:00", **wider})
        again = [s for s in model_statements(logs_dir, "clustered_orders") if "cluster by" in s]
        assert again == []

        # a rebuild keeps the clustering the config asks
        run("run", "--full-refresh", vars={EXEC: "2025-01-05 06:00:00", **wider})
        assert clustering(project, "clustered_orders") == ["order_date", "customer_id"]
        assert rows(project, f"select count(*) from {project.test_schema}.clustered_orders") == [
            (12,)
        ]


class TestEveryKind:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=3)}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {f"{name}.sql": sql for name, sql in KINDS.items()}

    def test_clustering_and_optimize_on_every_kind(self, project: Any) -> None:
        run("seed")
        run("run", vars={"upto": "2025-01-01", EXEC: "2025-01-02 06:00:00"})
        run("run", vars={"upto": "2025-01-02", EXEC: "2025-01-03 06:00:00"})
        assert clustering(project, "clustered_versions") == ["order_id"]
        assert clustering(project, "clustered_log") == ["customer_id"]
        assert clustering(project, "clustered_groups") == ["customer_id"]
        assert clustering(project, "zordered_customers") == []
        # OPTIMIZE after each run that wrote: Z-ordered by its column, or clustering
        zorders = [p for op, p in operations(project, "zordered_customers") if op == "OPTIMIZE"]
        assert len(zorders) == 2 and all("customer_id" in p for p in zorders), zorders
        for name in ("clustered_versions", "clustered_log"):
            ops = [op for op, _ in operations(project, name)]
            assert ops.count("OPTIMIZE") == 2, (name, ops)
        # skip_optimize: none
        assert "OPTIMIZE" not in [op for op, _ in operations(project, "clustered_groups")]
        # the rows are the kinds' own (clustering changes where they are, not what they are)
        count = f"select count(*) from {project.test_schema}"
        assert rows(project, f"{count}.zordered_customers") == [(6,)]
        assert rows(project, f"{count}.clustered_log") == [(6,)]
        assert rows(project, f"{count}.clustered_groups") == [(6,)]


# README's converted model ("A Databricks model converted, end to end"): dbt-databricks' own
# clustered `table`, then the same file as a time range model
CONVERTED_BEFORE = """
{{ config(materialized='table', liquid_clustered_by=['customer_id'],
          tblproperties={'delta.enableChangeDataFeed': 'true'},
          persist_docs={'relation': true, 'columns': true}, query_tags='{"team": "finance"}') }}
select order_date, customer_id, count(*) as orders from {{ ref('raw_orders') }}
where order_date <= '{{ var('upto') }}'
group by order_date, customer_id
"""
CONVERTED_AFTER = """
{{ config(materialized='incremental_by_time_range',
          liquid_clustered_by=['customer_id'],
          tblproperties={'delta.enableChangeDataFeed': 'true'},
          persist_docs={'relation': true, 'columns': true}, query_tags='{"team": "finance"}',
          meta={'time_column': 'order_date', 'start': '2025-01-01', 'cron': '@daily',
                'lookback': 2}) }}
select order_date, customer_id, count(*) as orders from {{ ref('raw_orders') }}
where order_date between {{ dbt_vulcan.start_ds() }} and {{ dbt_vulcan.end_ds() }}
group by order_date, customer_id
"""
CONVERTED_DOCS = """
version: 2
models:
  - name: orders_daily
    description: Orders a day per customer
    columns:
      - name: customer_id
        description: who ordered
"""


@pytest.mark.profile_only("databricks")
class TestConvertedDatabricksModel:
    """The model README converts, on stock dbt-databricks: its table is rebuilt as the kind's
    own on the first run after the change (clustered, with its properties and comments), equals
    a clean build after every run, and stays clustered through the next run."""

    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=5)}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"orders_daily.sql": CONVERTED_BEFORE, "docs.yml": CONVERTED_DOCS}

    def test_rebuilt_as_the_kind_clustered_and_equal_to_a_clean_build(self, project: Any) -> None:
        table = f"{project.test_schema}.orders_daily"
        run("seed")
        run("run", vars={"upto": "2025-01-02"})
        run("run", vars={"upto": "2025-01-03"})
        assert clustering(project, "orders_daily") == ["customer_id"]

        def expected(upto: str) -> list[tuple[Any, ...]]:
            return sorted(
                rows(
                    project,
                    "select order_date, customer_id, count(*) from "
                    f"{project.test_schema}.raw_orders where order_date <= '{upto}' "
                    "group by order_date, customer_id",
                )
            )

        def found() -> list[tuple[Any, ...]]:
            return sorted(rows(project, f"select order_date, customer_id, orders from {table}"))

        assert found() == expected("2025-01-03")

        write_file(CONVERTED_AFTER, project.project_root, "models", "orders_daily.sql")
        _, log = run_dbt_and_capture(["run", "--vars", json.dumps({EXEC: "2025-01-04 06:00:00"})])
        assert "exists but has no dbt-vulcan state" in log and "rebuilding it as" in log, log
        assert found() == expected("2025-01-03")
        assert clustering(project, "orders_daily") == ["customer_id"]
        properties = dict(
            (str(r[0]), str(r[1])) for r in rows(project, f"show tblproperties {table}")
        )
        assert properties.get("delta.enableChangeDataFeed") == "true", properties
        described = rows(project, f"describe table extended {table}")
        assert ("Comment", "Orders a day per customer") in [
            (str(r[0]), str(r[1])) for r in described
        ], described
        assert next(str(r[2]) for r in described if r[0] == "customer_id") == "who ordered"
        processed = processed_rows(project, "orders_daily")
        assert (processed[0][0], processed[-1][1]) == ("2025-01-01 00:00:00", "2025-01-04 00:00:00")

        # the next day: the days due and the lookback, still clustered, OPTIMIZE after it
        run("run", vars={EXEC: "2025-01-06 06:00:00"})
        assert found() == expected("2025-01-05")
        assert clustering(project, "orders_daily") == ["customer_id"]
        assert operations(project, "orders_daily")[-1][0] == "OPTIMIZE"
