"""Python models (`def model(dbt, session)`) of every materializing kind, on a real SparkSession.

Each Python model has a SQL twin with the same config; after the same runs both tables (and
the intervals recorded for them) must be equal. `dbt.vulcan` holds the batch's bounds.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture

from tests.support import scd2_fixtures as fx
from tests.support.functional import orders_csv, processed_rows, run, table_rows

pytestmark = [
    pytest.mark.adapter_only(reason="Python models run in the SparkSession of the vulcan adapter"),
    # the model's DataFrame becomes a temporary view that the kind's SQL write strategy reads:
    # those strategies are tested per table format by the SQL suites (CI time)
    pytest.mark.profile_only("parquet"),
]

EXEC = "vulcan_execution_time"


def sql_model(body: str, **config: Any) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in config.items())
    return "{{ config(" + args + ") }}\n" + body


def py_model(body: str, **config: Any) -> str:
    """A Python model: `dbt.config(...)` with `config`, then `body` (indented 4)."""
    args = ", ".join(f"{k}={v!r}" for k, v in config.items())
    lines = "\n".join("    " + line if line else "" for line in body.strip("\n").splitlines())
    return (
        "import pyspark.sql.functions as F\n\n\n"
        f"def model(dbt, session):\n    dbt.config({args})\n{lines}\n"
    )


DAILY = dict(
    materialized="incremental_by_time_range",
    time_column="order_date",
    start="2025-01-01",
    batch_size=4,
)
DAILY_SQL = """
select order_date, count(order_id) as total_orders, sum(total_amount) as total_revenue
from {{ ref('raw_orders') }}
where order_date between @start_ds and @end_ds
group by order_date
"""
# the batch's bounds as datetimes (the output filter would also drop rows outside the batch)
DAILY_PY = """
batch = dbt.vulcan
orders = dbt.ref("raw_orders")
in_batch = orders.where(F.col("order_date").between(batch.start.date(), batch.end.date()))
return in_batch.groupBy("order_date").agg(
    F.count("order_id").alias("total_orders"), F.sum("total_amount").alias("total_revenue")
)
"""

# dbt-vulcan's keys under `meta` (as README writes them: dbt 1.10+ warns of custom keys set
# directly), in `dbt.config(...)` of a Python model as in `config()` of a SQL one
CUSTOMERS = dict(
    materialized="incremental_by_unique_key",
    unique_key="customer_id",
    meta={"start": "2025-01-01", "batch_size": 5},
)
CUSTOMERS_SQL = """
select customer_id, count(order_id) as orders, max(order_date) as last_order_date
from {{ ref('raw_orders') }}
where order_date between @start_ds and @end_ds
group by customer_id
"""
# dbt.vulcan.render: the SQL time macros, here in a filter expression
CUSTOMERS_PY = """
orders = dbt.ref("raw_orders").where(dbt.vulcan.render("order_date between @start_ds and @end_ds"))
return orders.groupBy("customer_id").agg(
    F.count("order_id").alias("orders"), F.max("order_date").alias("last_order_date")
)
"""

BY_DAY = dict(materialized="incremental_by_partition", partitioned_by=["order_date"])
BY_DAY_SQL = """
select customer_id, sum(total_amount) as spent, order_date
from {{ ref('raw_orders') }}
group by customer_id, order_date
"""
BY_DAY_PY = """
orders = dbt.ref("raw_orders")
return orders.groupBy("customer_id", "order_date").agg(F.sum("total_amount").alias("spent")).select(
    "customer_id", "spent", "order_date"
)
"""

LOG = dict(materialized="incremental_unmanaged")
LOG_SQL = "select customer_id, count(*) as orders, @execution_dt as logged_at\n" + (
    "from {{ ref('raw_orders') }}\ngroup by customer_id\n"
)
LOG_PY = """
logged_at = F.expr(dbt.vulcan.render("@execution_dt"))
orders = dbt.ref("raw_orders")
counts = orders.groupBy("customer_id").agg(F.count("*").alias("orders"))
return counts.withColumn("logged_at", logged_at)
"""

TABLE_SQL = "select customer_id, count(*) as orders from {{ ref('raw_orders') }} group by 1\n"
TABLE_PY = """
return dbt.ref("raw_orders").groupBy("customer_id").agg(F.count("*").alias("orders"))
"""


class TestPythonTwins:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv()}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "py_daily.py": py_model(DAILY_PY, **DAILY),
            "sql_daily.sql": sql_model(DAILY_SQL, **DAILY),
            "py_customers.py": py_model(CUSTOMERS_PY, **CUSTOMERS),
            "sql_customers.sql": sql_model(CUSTOMERS_SQL, **CUSTOMERS),
            "py_by_day.py": py_model(BY_DAY_PY, **BY_DAY),
            "sql_by_day.sql": sql_model(BY_DAY_SQL, **BY_DAY),
            "py_log.py": py_model(LOG_PY, **LOG),
            "sql_log.sql": sql_model(LOG_SQL, **LOG),
            "py_table.py": py_model(TABLE_PY, materialized="table"),
            "sql_table.sql": sql_model(TABLE_SQL, materialized="table"),
        }

    def assert_twins(self, project: Any) -> None:
        for name, columns in (
            ("daily", "order_date, total_orders, total_revenue"),
            ("customers", "customer_id, orders, last_order_date"),
            ("by_day", "customer_id, spent, order_date"),
            ("log", "customer_id, orders, logged_at"),
            ("table", "customer_id, orders"),
        ):
            order = "1, 2, 3" if columns.count(",") >= 2 else "1, 2"
            py = table_rows(project, f"py_{name}", columns, order)
            assert py, name
            assert py == table_rows(project, f"sql_{name}", columns, order), name

    def test_python_models_equal_their_sql_twins(self, project: Any) -> None:
        run("seed")
        run("run", vars={EXEC: "2025-01-11"})
        # the backfill ran in batches, each recorded as for the SQL twin
        assert processed_rows(project, "py_daily") == [
            ("2025-01-01 00:00:00", "2025-01-05 00:00:00"),
            ("2025-01-05 00:00:00", "2025-01-09 00:00:00"),
            ("2025-01-09 00:00:00", "2025-01-11 00:00:00"),
        ]
        assert processed_rows(project, "py_daily") == processed_rows(project, "sql_daily")
        assert processed_rows(project, "py_customers") == processed_rows(project, "sql_customers")
        assert len(processed_rows(project, "py_customers")) == 2
        days = [r[0] for r in table_rows(project, "py_daily", "order_date")]
        assert days == [date(2025, 1, d) for d in range(1, 11)]
        self.assert_twins(project)

        # an incremental run: only the new days, into the existing tables
        run("run", vars={EXEC: "2025-01-14"})
        assert processed_rows(project, "py_daily")[3:] == [
            ("2025-01-11 00:00:00", "2025-01-14 00:00:00")
        ]
        assert len(table_rows(project, "py_daily", "order_date")) == 13
        assert len(table_rows(project, "py_log", "customer_id")) == 14  # 7 customers, twice
        self.assert_twins(project)

        # the temporary views of the batches are gone
        views = project.run_sql("show views", fetch="all")
        assert not [v for v in views if "vulcan_py_" in str(v[1])]


class TestPythonScd2:
    """The spec's menu example (scd2_fixtures.py): Python and SQL SCD type 2 models."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        by_time = dict(
            materialized="scd_type_2_by_time", unique_key="id", invalidate_hard_deletes=True
        )
        by_column = dict(
            materialized="scd_type_2_by_column",
            unique_key="id",
            columns=["name", "price"],
            invalidate_hard_deletes=True,
        )
        menu_sql = "select {} from {{{{ target.schema }}}}.menu\n"
        menu_py = 'return session.table(f"{{dbt.this.schema}}.menu").select({})\n'
        return {
            "py_time.py": py_model(
                menu_py.format('"id", "name", "price", "updated_at"'), **by_time
            ),
            "sql_time.sql": sql_model(menu_sql.format("id, name, price, updated_at"), **by_time),
            "py_column.py": py_model(menu_py.format('"id", "name", "price"'), **by_column),
            "sql_column.sql": sql_model(menu_sql.format("id, name, price"), **by_column),
        }

    def test_python_scd2_equals_sql_twin(self, project: Any) -> None:
        columns = "id, name, price, updated_at, valid_from, valid_to"
        for day, menu in enumerate((fx.MENU_1, fx.MENU_2, fx.MENU_3), start=1):
            fx.load(project, "menu", menu)
            run("run", vars={EXEC: f"2020-01-0{day} 11:00:00"})
            py = table_rows(project, "py_time", columns, "1, valid_from")
            assert py == table_rows(project, "sql_time", columns, "1, valid_from"), day
            short = "id, name, price, valid_from, valid_to"
            py_column = table_rows(project, "py_column", short, "1, valid_from")
            assert py_column == table_rows(project, "sql_column", short, "1, valid_from"), day
        assert (
            table_rows(project, "py_time", columns, "1, valid_from") == fx.parse(fx.TIME_HARD_3)[1]
        )


FAILING_PY = """
if dbt.vulcan.start.day == 3:
    check_batch(dbt.vulcan.start)
start, end = dbt.vulcan.start.date(), dbt.vulcan.end.date()
return dbt.ref("raw_orders").where(F.col("order_date").between(start, end))
"""


class TestPythonErrors:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=6)}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        failing = py_model(FAILING_PY, **{**DAILY, "batch_size": 2}).replace(
            "def model(",
            "def check_batch(start):\n"
            '    raise ValueError(f"no orders may be read on {start:%Y-%m-%d}")\n\n\n'
            "def model(",
        )
        return {
            "py_failing.py": failing,
            "py_view.py": py_model("return dbt.ref('raw_orders')", materialized="view"),
            "py_embedded.py": py_model("return dbt.ref('raw_orders')", materialized="ephemeral"),
            "uses_embedded.sql": "select * from {{ ref('py_embedded') }}\n",
        }

    def test_exception_names_model_and_shows_traceback(self, project: Any) -> None:
        run("seed")
        _, log = run_dbt_and_capture(
            ["run", "-s", "py_failing", "--vars", '{"vulcan_execution_time": "2025-01-07"}'],
            expect_pass=False,
        )
        assert "Python model 'py_failing' failed in batch 2025-01-03 - 2025-01-04" in log
        assert "ValueError: no orders may be read on 2025-01-03" in log
        assert "Python traceback:" in log and "Traceback (most recent call last)" in log
        # the frames of the model's own code, with its lines
        assert 'models/py_failing.py", line 11, in model' in log
        assert "check_batch(dbt.vulcan.start)" in log
        assert 'models/py_failing.py", line 5, in check_batch' in log
        # the batch before the failing one was written and recorded; nothing after it
        assert processed_rows(project, "py_failing") == [
            ("2025-01-01 00:00:00", "2025-01-03 00:00:00")
        ]
        assert len(table_rows(project, "py_failing", "order_id")) == 6

    def test_python_view_is_refused(self, project: Any) -> None:
        _, log = run_dbt_and_capture(["run", "-s", "py_view"], expect_pass=False)
        assert "Python model 'py_view': materialized='view' (VIEW) is SQL-only" in log
        assert "incremental_by_time_range" in log  # the materializations that can run it
        assert project.adapter.get_relation(None, project.test_schema, "py_view") is None

    def test_python_ephemeral_is_refused(self, project: Any) -> None:
        _, log = run_dbt_and_capture(["run", "-s", "uses_embedded"], expect_pass=False)
        assert "Python model 'py_embedded': materialized='ephemeral' (EMBEDDED) is SQL-only" in log
