"""dbt's own commands on dbt-vulcan's models (#20): dbt unit tests (`unit_tests:`), `dbt show`
and `dbt compile`, in both modes. A unit test renders the model for its `overrides: vars:`
range, else all of time, with the output filter; show runs the next run's first batch as the
run renders it; compile renders the Jinja form of the tokens (dbt_vulcan.start_ds(), ...) to
that batch's values and keeps the `@` tokens (which only a run, show or a unit test renders)."""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
from dbt.tests.util import run_dbt, run_dbt_and_capture

from tests.support.functional import orders_csv, run, table_rows

# unit tests, show and compile bind the tokens and wrap the output filter: nothing depends on
# the table format (each format's writes are the kinds' suites); parquet, in both modes, and
# stock `type: databricks` (its own dispatch order)
pytestmark = pytest.mark.profile_only("parquet", "databricks")

EXEC = "vulcan_execution_time"
DAILY = "order_date, total_orders, total_revenue"

TOKENS = """
select order_date, count(order_id) as total_orders, sum(total_amount) as total_revenue
from {{ ref('raw_orders') }}
where order_date between @start_ds and @end_ds
group by order_date
"""
JINJA = TOKENS.replace("@start_ds", "{{ dbt_vulcan.start_ds() }}").replace(
    "@end_ds", "{{ dbt_vulcan.end_ds() }}"
)
TR = (
    "{{ config(materialized='incremental_by_time_range', time_column='order_date', "
    "start='2025-01-01') }}"
)
# no WHERE: only the output filter keeps a batch's rows
LEAKY = TR + "\nselect order_id, order_date from {{ ref('raw_orders') }}\n"
# the same with its keys under `meta`, as README writes them
LEAKY_META = (
    "{{ config(materialized='incremental_by_time_range',\n"
    "          meta={'time_column': 'order_date', 'start': '2025-01-01'}) }}\n"
    "select order_id, order_date from {{ ref('raw_orders') }}\n"
)
BY_KEY = (
    "{{ config(materialized='incremental_by_unique_key', unique_key='order_id') }}\n"
    "select order_id, customer_id, order_date from {{ ref('raw_orders') }}\n"
    "where order_date <= @execution_ds\n"
)
SCD = (
    "{{ config(materialized='scd_type_2_by_time', unique_key='id') }}\n"
    "select customer_id as id, max(total_amount) as amount,\n"
    "  cast(max(order_date) as timestamp) as updated_at\n"
    "from {{ ref('raw_orders') }} where order_date < @execution_ds group by customer_id\n"
)

# one group per customer: its orders before the execution time
TRACKED = (
    "{{ config(materialized='tracked', group_key='customer_id') }}\n"
    "select customer_id, order_id, total_amount from {{ ref('raw_orders') }}\n"
    "where order_date < @execution_ds\n"
)


def order(order_id: int, day: str, amount: float = 1.0) -> str:
    return (
        f"{{order_id: {order_id}, order_date: '{day}', customer_id: {order_id % 3}, "
        f"total_amount: {amount}}}"
    )


DAYS = ["1999-12-31", "2025-01-01", "2025-01-02", "2025-01-02", "2025-01-03", "2031-07-01"]
ORDERS = "\n".join(f"          - {order(i, d, float(i))}" for i, d in enumerate(DAYS, 1))
GIVEN = f"""
    given:
      - input: ref('raw_orders')
        rows:
{ORDERS}"""
DAY = "{{order_date: '{}', total_orders: {}, total_revenue: {}}}"
RANGE = "{vulcan_start: '2025-01-02', vulcan_end: '2025-01-02'}"  # one day: the end's included

UNIT_TESTS = f"""
unit_tests:
  - name: daily_all_time
    model: daily_sales
{GIVEN}
    expect:
      rows:
        - {DAY.format("1999-12-31", 1, 1.0)}
        - {DAY.format("2025-01-01", 1, 2.0)}
        - {DAY.format("2025-01-02", 2, 7.0)}
        - {DAY.format("2025-01-03", 1, 5.0)}
        - {DAY.format("2031-07-01", 1, 6.0)}
  - name: daily_one_day
    model: daily_sales
    overrides:
      vars: {RANGE}
{GIVEN}
    expect:
      rows:
        - {DAY.format("2025-01-02", 2, 7.0)}
  - name: jinja_one_day
    model: daily_jinja
    overrides:
      vars: {RANGE}
{GIVEN}
    expect:
      rows:
        - {DAY.format("2025-01-02", 2, 7.0)}
  - name: leaky_one_day
    model: leaky
    overrides:
      vars: {RANGE}
{GIVEN}
    expect:
      rows:
        - {{order_id: 3, order_date: '2025-01-02'}}
        - {{order_id: 4, order_date: '2025-01-02'}}
  - name: leaky_meta_keeps_rows_without_a_time
    model: leaky_meta
    overrides:
      vars: {RANGE}
{GIVEN}
          - {{order_id: 7, customer_id: 1, total_amount: 1.0}}
    expect:
      rows:
        - {{order_id: 3, order_date: '2025-01-02'}}
        - {{order_id: 4, order_date: '2025-01-02'}}
        - {{order_id: 7, order_date: null}}
  - name: by_key_execution_time
    model: by_key
    overrides:
      vars: {{vulcan_execution_time: '2025-01-02 05:00:00'}}
{GIVEN}
    expect:
      rows:
        - {{order_id: 1, customer_id: 1, order_date: '1999-12-31'}}
        - {{order_id: 2, customer_id: 2, order_date: '2025-01-01'}}
        - {{order_id: 3, customer_id: 0, order_date: '2025-01-02'}}
        - {{order_id: 4, customer_id: 1, order_date: '2025-01-02'}}
  - name: scd_execution_time
    model: scd
    overrides:
      vars: {{vulcan_execution_time: '2025-01-02 05:00:00'}}
{GIVEN}
    expect:
      rows:
        - {{id: 1, amount: 1.0, updated_at: '1999-12-31 00:00:00'}}
        - {{id: 2, amount: 2.0, updated_at: '2025-01-01 00:00:00'}}
  - name: tracked_execution_time
    model: tracked
    overrides:
      vars: {{vulcan_execution_time: '2025-01-02 05:00:00'}}
{GIVEN}
    expect:
      rows:
        - {{customer_id: 1, order_id: 1, total_amount: 1.0}}
        - {{customer_id: 2, order_id: 2, total_amount: 2.0}}
  - name: daily_wrong_row
    model: daily_sales
    overrides:
      vars: {RANGE}
{GIVEN}
    expect:
      rows:
        - {DAY.format("2025-01-02", 3, 7.0)}
"""


class TestDbtNative:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=5)}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "daily_sales.sql": TR + TOKENS,
            "daily_jinja.sql": TR + JINJA,
            "leaky.sql": LEAKY,
            "leaky_meta.sql": LEAKY_META,
            "by_key.sql": BY_KEY,
            "scd.sql": SCD,
            "tracked.sql": TRACKED,
            "unit_tests.yml": UNIT_TESTS,
        }

    @pytest.fixture(scope="class")
    def project_config_update(self) -> dict[str, Any]:
        # package mode: dbt finds the package's overrides of dbt's dispatched macros with
        # this block (README); the `vulcan` adapter needs none
        return {
            "dispatch": [{"macro_namespace": "dbt", "search_order": ["test", "dbt_vulcan", "dbt"]}]
        }

    def test_unit_tests_pass_on_every_kind(self, project: Any) -> None:
        run("seed")
        results = [
            r
            for r in run("test", "--select", "test_type:unit", "--exclude", "daily_wrong_row")
            if r.node.resource_type != "operation"  # the package's on-run-start hook
        ]
        assert sorted(r.node.name for r in results) == [
            "by_key_execution_time",
            "daily_all_time",
            "daily_one_day",
            "jinja_one_day",
            "leaky_meta_keeps_rows_without_a_time",
            "leaky_one_day",
            "scd_execution_time",
            "tracked_execution_time",
        ]
        assert {str(r.status) for r in results} == {"pass"}

    def test_unit_test_fails_on_a_wrong_row(self, project: Any) -> None:
        run("seed")
        results, out = run_dbt_and_capture(
            ["test", "--select", "daily_wrong_row"], expect_pass=False
        )
        assert [str(r.status) for r in results if r.node.resource_type != "operation"] == ["fail"]
        plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
        # dbt 1.10-1.11 say "Failure in unit_test ...", 1.12 "[ERROR]: in unit_test ..."
        assert re.search(r"(Failure|\[ERROR\]:) in unit_test daily_wrong_row", plain), plain
        assert "actual differs from expected" in plain
        assert "2025-01-02" in out

    def test_show_runs_the_next_batch(self, project: Any) -> None:
        run("seed")
        exec_vars = {EXEC: "2025-01-03 02:00:00"}
        for name in ("daily_sales", "daily_jinja"):
            shown = show(name, exec_vars)
            assert shown == [day(1), day(2)], name
        # the output filter as the run applies it: only the batch's days
        assert {r[1] for r in show("leaky", exec_vars)} == {date(2025, 1, 1), date(2025, 1, 2)}
        # the kinds without start: their one batch, up to the execution time
        early = {EXEC: "2025-01-02 05:00:00"}
        assert [r[0] for r in show("by_key", early)] == [1, 2, 3, 4, 5, 6]
        first_day = datetime(2025, 1, 1)
        assert show("scd", early) == [
            (2, 10.5, first_day),
            (3, 20.5, first_day),
            (4, 30.5, first_day),
        ]
        # tracked: the query's rows (the hash is the run's), equal to what a run writes
        shown = show("tracked", early)
        assert shown == [(2, 1, 10.5), (3, 2, 20.5), (4, 3, 30.5)]
        run("run", "-s", "tracked", vars=early)
        assert table_rows(project, "tracked", "customer_id, order_id, total_amount") == shown
        # after a run, the next batch is the next day
        run("run", "-s", "daily_sales", vars=exec_vars)
        assert show("daily_sales", {EXEC: "2025-01-04 02:00:00"}) == [day(3)]
        # the range of the vars, as a run with them plans it
        explicit = {"vulcan_start": "2025-01-04", "vulcan_end": "2025-01-04"}
        assert show("daily_sales", explicit) == [day(4)]
        # a model without a table: its first run backfills every due day in one batch
        assert show("daily_jinja", {**explicit, EXEC: "2025-01-04 02:00:00"}) == [
            day(1),
            day(2),
            day(3),
        ]

    def test_compile_renders_the_jinja_form_and_keeps_the_tokens(self, project: Any) -> None:
        run("seed")
        exec_vars = {EXEC: "2025-01-03 02:00:00"}
        run("compile", "-s", "daily_jinja", "daily_sales", vars=exec_vars)
        jinja = compiled(project, "daily_jinja")
        assert "between '2025-01-01' and '2025-01-02'" in jinja
        assert "@" not in jinja
        assert "between @start_ds and @end_ds" in compiled(project, "daily_sales")
        # a run of the Jinja form renders its batches as the tokens do
        run("run", "-s", "daily_jinja", "daily_sales", vars=exec_vars)
        assert table_rows(project, "daily_jinja", DAILY) == table_rows(
            project, "daily_sales", DAILY
        )
        assert len(table_rows(project, "daily_jinja", DAILY)) == 2


def day(n: int) -> tuple[date, int, float]:
    """(order_date, total_orders, total_revenue) of orders_csv()'s day n (from 1)."""
    ids = [(n - 1) * 3 + k for k in (1, 2, 3)]
    return (date(2025, 1, n), 3, sum(i * 10 + 0.5 for i in ids))


def show(name: str, vars: dict[str, str]) -> list[tuple[Any, ...]]:
    results = run_dbt(["show", "-s", name, "--limit", "-1", "--vars", json.dumps(vars)])
    table = results.results[0].agate_table
    return sorted(tuple(row) for row in table.rows)


def compiled(project: Any, name: str) -> str:
    found = list(Path(project.project_root, "target", "compiled").rglob(f"{name}.sql"))
    assert len(found) == 1, found
    return found[0].read_text()
