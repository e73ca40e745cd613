"""A team's project of jaffle-shop's shape (staging views over raw tables, marts built as
tables), converted in place to dbt-vulcan's kinds and run day by day with eight threads: after
every day each converted model equals a clean rebuild of the converted project (`dbt run
--full-refresh` into a schema of its own), with late rows, a changed customer and a model
left as it was. CI runs it on `type: databricks` (make databricks); any profile runs it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture, write_file

from tests.support.functional import processed_rows, rows, run

EXEC = "vulcan_execution_time"
THREADS = ["--threads", "8"]

CUSTOMERS = "id,name\n" + "".join(f"{i},customer {i}\n" for i in range(1, 7))


def _orders(
    day: int, first_id: int, late_day: int | None = None
) -> list[tuple[int, int, str, float]]:
    """Four orders on 2025-01-<day> (and, when given, one more dated `late_day`)."""
    out = [
        (first_id + k, (first_id + k) % 6 + 1, f"2025-01-{day:02d} {9 + k:02d}:30:00", 10.0 + k)
        for k in range(4)
    ]
    if late_day is not None:
        out.append((first_id + 4, 2, f"2025-01-{late_day:02d} 23:10:00", 99.5))
    return out


ORDERS = "id,customer_id,ordered_at,amount\n" + "".join(
    f"{i},{c},{t},{a}\n" for day in (1, 2) for i, c, t, a in _orders(day, day * 10)
)
ITEMS = "id,order_id,sku,price\n" + "".join(
    f"{n},{o},sku-{o % 3},{p}\n"
    for n, (o, p) in enumerate(
        ((o, a / 2) for day in (1, 2) for o, _, _, a in _orders(day, day * 10)), start=1
    )
)

STAGING = {
    "stg_customers.sql": "{{ config(materialized='view') }}\n"
    "select id as customer_id, name from {{ ref('raw_customers') }}\n",
    "stg_orders.sql": "{{ config(materialized='view') }}\n"
    "select id as order_id, customer_id, cast(ordered_at as timestamp) as ordered_at,\n"
    "  to_date(cast(ordered_at as timestamp)) as order_date, cast(amount as double) as amount\n"
    "from {{ ref('raw_orders') }}\n",
    "stg_items.sql": "{{ config(materialized='view') }}\n"
    "select id as item_id, order_id, sku, cast(price as double) as price\n"
    "from {{ ref('raw_items') }}\n",
}

ORDERS_SQL = """select o.order_id, o.customer_id, c.name as customer_name, o.ordered_at,
  o.order_date,
  o.amount, coalesce(i.items, 0) as items
from {{ ref('stg_orders') }} o
join {{ ref('stg_customers') }} c on c.customer_id = o.customer_id
left join (select order_id, count(*) as items from {{ ref('stg_items') }} group by order_id) i
  on i.order_id = o.order_id"""

CUSTOMERS_SQL = """select c.customer_id, c.name, count(o.order_id) as orders,
  min(o.order_date) as first_order, max(o.order_date) as last_order,
  coalesce(sum(o.amount), 0) as lifetime_value
from {{ ref('stg_customers') }} c
left join {{ ref('stg_orders') }} o on o.customer_id = c.customer_id
group by c.customer_id, c.name"""

DAILY_SQL = """select order_date, count(*) as orders, sum(amount) as revenue
from {{ ref('stg_orders') }}"""

ITEMS_SQL = """select sku, count(*) as items, sum(price) as sales from {{ ref('stg_items') }}
group by sku"""

# the project as the team had it: staging views, marts as dbt's tables
BEFORE = {
    **STAGING,
    "orders.sql": "{{ config(materialized='table') }}\n" + ORDERS_SQL + "\n",
    "customers.sql": "{{ config(materialized='table') }}\n" + CUSTOMERS_SQL + "\n",
    "daily_revenue.sql": "{{ config(materialized='table') }}\n"
    + DAILY_SQL
    + "\ngroup by order_date\n",
    "sku_sales.sql": "{{ config(materialized='table') }}\n" + ITEMS_SQL + "\n",
}

# converted in place: the marts to dbt-vulcan's kinds (sku_sales stays a table); `clean`
# builds them into a schema of their own
_SCHEMA = "schema=var('clean_schema', none)"
AFTER = {
    **STAGING,
    "orders.sql": "{{ config(materialized='incremental_by_unique_key', " + _SCHEMA + ",\n"
    "          meta={'unique_key': 'order_id'}) }}\n" + ORDERS_SQL + "\n",
    "customers.sql": "{{ config(materialized='incremental_by_unique_key', " + _SCHEMA + ",\n"
    "          meta={'unique_key': 'customer_id'}) }}\n" + CUSTOMERS_SQL + "\n",
    "daily_revenue.sql": "{{ config(materialized='incremental_by_time_range', " + _SCHEMA + ",\n"
    "          meta={'time_column': 'order_date', 'start': '2025-01-01', 'lookback': 1}) }}\n"
    + DAILY_SQL
    + "\nwhere order_date between @start_ds and @end_ds\ngroup by order_date\n",
    "sku_sales.sql": "{{ config(materialized='table', " + _SCHEMA + ") }}\n" + ITEMS_SQL + "\n",
}

MARTS = {
    "orders": "order_id, customer_id, customer_name, ordered_at, order_date, amount, items",
    "customers": "customer_id, name, orders, first_order, last_order, lifetime_value",
    "daily_revenue": "order_date, orders, revenue",
    "sku_sales": "sku, items, sales",
}


class TestConvertedProject:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_customers.csv": CUSTOMERS, "raw_orders.csv": ORDERS, "raw_items.csv": ITEMS}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return dict(BEFORE)

    @pytest.fixture(scope="class")
    def project_config_update(self) -> dict[str, Any]:
        return {"seeds": {"+column_types": {"ordered_at": "string"}}}

    def test_converted_in_place_equals_a_clean_rebuild_every_day(self, project: Any) -> None:
        schema = project.test_schema
        clean = f"{schema}_clean"

        def mart(where: str, name: str) -> list[tuple[Any, ...]]:
            return sorted(rows(project, f"select {MARTS[name]} from {where}.{name}"), key=repr)

        def add_day(day: int, late_day: int | None = None) -> None:
            orders = _orders(day, day * 10, late_day)
            project.run_sql(
                f"insert into {schema}.raw_orders values "
                + ", ".join(f"({i}, {c}, '{t}', {a})" for i, c, t, a in orders)
            )
            project.run_sql(
                f"insert into {schema}.raw_items values "
                + ", ".join(
                    f"({day * 100 + n}, {o}, 'sku-{o % 3}', {a / 2})"
                    for n, (o, _, _, a) in enumerate(orders)
                )
            )

        run("seed", *THREADS)
        run("run", *THREADS)
        before = {name: mart(schema, name) for name in MARTS}
        assert len(before["orders"]) == 8 and len(before["daily_revenue"]) == 2

        for name, sql in AFTER.items():
            write_file(sql, project.project_root, "models", name)
        try:
            # day 3: the first run after the conversion (each existing table is rebuilt as its
            # kind's own), a customer renamed; day 4: a late order for day 3 (lookback: 1)
            add_day(3)
            project.run_sql(
                f"create table {schema}.renamed as select id, "
                f"case when id = 2 then 'customer two' else name end as name "
                f"from {schema}.raw_customers"
            )
            project.run_sql(
                f"insert overwrite table {schema}.raw_customers select * from {schema}.renamed"
            )
            for day in (3, 4):
                if day > 3:
                    add_day(day, late_day=day - 1)
                at = f"2025-01-{day + 1:02d} 06:00:00"
                _, log = run_dbt_and_capture(["run", *THREADS, "--vars", json.dumps({EXEC: at})])
                if day == 3:
                    assert log.count("exists but has no dbt-vulcan state") == 3, log
                run(
                    "run",
                    *THREADS,
                    "--full-refresh",
                    vars={EXEC: at, "clean_schema": "clean"},
                )
                for name in MARTS:
                    assert mart(schema, name) == mart(clean, name), (day, name)
                assert (
                    processed_rows(project, "daily_revenue")[-1][1]
                    == f"2025-01-{day + 1:02d} 00:00:00"
                )
            final = {name: mart(schema, name) for name in MARTS}
            assert len(final["orders"]) == 8 + 4 + 5
            assert ("customer two",) in {(r[2],) for r in final["orders"] if r[1] == 2}
            assert len(final["daily_revenue"]) == 4
        finally:
            project.run_sql(f"drop schema if exists {clean} cascade")
