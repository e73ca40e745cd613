"""incremental_by_time_range on a real SparkSession (parquet, delta or iceberg by --profile)."""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture, write_file

from tests.support.functional import (
    days,
    model_message,
    orders_csv,
    processed_rows,
    rows,
    run,
    state_rows,
    table_rows,
)

BODY = """
select order_date, count(order_id) as total_orders, sum(total_amount) as total_revenue
from {{ ref('raw_orders') }}
where order_date between @start_ds and @end_ds
group by order_date
"""


def model(body: str = BODY, **config: Any) -> str:
    base = {"materialized": "incremental_by_time_range", "time_column": "order_date"}
    base.setdefault("start", "2025-01-01")
    base.update(config)
    args = ", ".join(f"{k}={v!r}" for k, v in base.items())
    return "{{ config(" + args + ") }}\n" + body


def expected_daily(first: str, count: int) -> list[tuple[date, int, float]]:
    """(order_date, total_orders, total_revenue) of orders_csv() for `count` days."""
    out = []
    for i, day in enumerate(days(first, count)):
        offset = (day - date(2025, 1, 1)).days
        ids = [offset * 3 + k for k in (1, 2, 3)]
        out.append((day, 3, sum(i * 10 + 0.5 for i in ids)))
        del i
    return out


EXEC = "vulcan_execution_time"
DAILY = "order_date, total_orders, total_revenue"


class TestTimeRange:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv()}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        leaky = "select order_id, order_date from {{ ref('raw_orders') }}"
        failing = BODY.replace(
            "group by",
            "and (case when order_date = date'2025-01-08' and '{{ var(\"fail\", \"no\") }}' = "
            "'yes' then cast(raise_error('injected failure') as boolean) else true end)\n"
            "group by",
        )
        ts_body = BODY.replace("select order_date,", "select cast(order_date as timestamp) as ts,")
        ts_body = ts_body.replace("group by order_date", "group by 1").replace(
            "where order_date between @start_ds and @end_ds",
            "where cast(order_date as timestamp) between @start_dt and @end_dt",
        )
        str_body = BODY.replace(
            "select order_date,", "select date_format(order_date, 'yyyyMMdd') as ds,"
        ).replace("group by order_date", "group by 1")
        weekly = (
            "select cast(date_trunc('WEEK', order_date) as date) as week_start,\n"
            "  count(order_id) as total_orders\n"
            "from {{ ref('raw_orders') }}\n"
            "where order_date between @start_ds and @end_ds\ngroup by 1"
        )
        return {
            "daily_sales.sql": model(),
            "daily_batched.sql": model(batch_size=7),
            "daily_lookback.sql": model(lookback=2),
            "leaky.sql": model(leaky),
            "failing.sql": model(failing, batch_size=3),
            "daily_ts.sql": model(ts_body, time_column="ts"),
            "daily_str.sql": model(str_body, time_column=["ds", "%Y%m%d"]),
            "weekly_sales.sql": model(weekly, time_column="week_start", cron="0 0 * * 1"),
            "daily_fwd.sql": model(forward_only=True),
            "daily_fwd_forced.sql": model(forward_only=True, full_refresh=True),
        }

    def test_backfill_then_new_days(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "daily_sales", vars={EXEC: "2025-01-11 02:00:00"})
        assert table_rows(project, "daily_sales", DAILY) == expected_daily("2025-01-01", 10)
        # no batch_size: the whole backfill is one batch, one write, one state row
        assert processed_rows(project, "daily_sales") == [
            ("2025-01-01 00:00:00", "2025-01-11 00:00:00")
        ]
        run("run", "-s", "daily_sales", vars={EXEC: "2025-01-14 00:00:00"})
        assert table_rows(project, "daily_sales", DAILY) == expected_daily("2025-01-01", 13)
        # only the three new days were processed
        assert processed_rows(project, "daily_sales")[1:] == [
            ("2025-01-11 00:00:00", "2025-01-14 00:00:00")
        ]
        # nothing due: nothing runs, nothing recorded
        run("run", "-s", "daily_sales", vars={EXEC: "2025-01-14 05:00:00"})
        assert len(processed_rows(project, "daily_sales")) == 2

    def test_batch_size_splits(self, project: Any) -> None:
        run("seed")
        _, log = run_dbt_and_capture(
            ["run", "-s", "daily_batched", "--vars", '{"vulcan_execution_time": "2025-01-17"}']
        )
        assert processed_rows(project, "daily_batched") == [
            ("2025-01-01 00:00:00", "2025-01-08 00:00:00"),
            ("2025-01-08 00:00:00", "2025-01-15 00:00:00"),
            ("2025-01-15 00:00:00", "2025-01-17 00:00:00"),
        ]
        assert "[1/3]" in log and "[insert 2025-01-08 - 2025-01-14]" in log
        assert "16 intervals in 3 batches" in log
        assert table_rows(project, "daily_batched", DAILY) == expected_daily("2025-01-01", 16)

    def test_output_filter_drops_leaked_rows(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "leaky", vars={EXEC: "2025-01-06 00:00:00"})
        dates = sorted({r[1] for r in table_rows(project, "leaky", "order_id, order_date")})
        assert dates == days("2025-01-01", 5)
        assert len(table_rows(project, "leaky", "order_id, order_date")) == 15

    def test_lookback_picks_up_late_rows(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "daily_lookback", vars={EXEC: "2025-01-10 00:00:00"})
        schema = project.test_schema
        project.run_sql(
            f"insert into {schema}.raw_orders values (1000, date'2025-01-08', 1, 1.0), "
            f"(1001, date'2025-01-05', 1, 1.0)"
        )
        run("run", "-s", "daily_lookback", vars={EXEC: "2025-01-11 00:00:00"})
        got = {r[0]: r[1] for r in table_rows(project, "daily_lookback", DAILY)}
        assert got[date(2025, 1, 8)] == 4  # late row inside lookback: picked up
        assert got[date(2025, 1, 5)] == 3  # outside lookback: untouched
        # the run re-processed the 2 days before the missing one, in one batch
        assert processed_rows(project, "daily_lookback")[-1] == (
            "2025-01-08 00:00:00",
            "2025-01-11 00:00:00",
        )

    def test_explicit_range_is_idempotent_and_clears_empty_days(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "daily_sales", "--full-refresh", vars={EXEC: "2025-01-11"})
        before = table_rows(project, "daily_sales", DAILY)
        window = {EXEC: "2025-01-11", "vulcan_start": "2025-01-03", "vulcan_end": "2025-01-05"}
        run("run", "-s", "daily_sales", vars=window)
        assert table_rows(project, "daily_sales", DAILY) == before
        assert processed_rows(project, "daily_sales")[-1] == (
            "2025-01-03 00:00:00",
            "2025-01-06 00:00:00",
        )
        # the source loses a day: recomputing the range leaves that day empty, no stale rows
        schema = project.test_schema
        project.run_sql(
            f"create table {schema}.keep as select * from {schema}.raw_orders "
            "where order_date <> date'2025-01-04'"
        )
        project.run_sql(f"insert overwrite table {schema}.raw_orders select * from {schema}.keep")
        run("run", "-s", "daily_sales", vars=window)
        after = table_rows(project, "daily_sales", DAILY)
        assert [r for r in before if r[0] != date(2025, 1, 4)] == after
        assert rows(project, f"select count(*) from {project.test_schema}.daily_sales") == [(9,)]

    def test_dbt_event_time_flags_recompute_their_window(self, project: Any) -> None:
        """dbt's --event-time-start/--event-time-end (the window a scheduler passes to microbatch
        models) are an explicit range with dbt's exclusive end; a new window is not a new
        --vars, so dbt keeps its partial parse."""
        run("seed")
        run("run", "-s", "daily_sales", "--full-refresh", vars={EXEC: "2025-01-11"})
        before = {r[0]: r[1] for r in table_rows(project, "daily_sales", DAILY)}
        schema = project.test_schema
        project.run_sql(
            f"insert into {schema}.raw_orders values (900, date'2025-01-04', 1, 1.0), "
            f"(901, date'2025-01-05', 1, 1.0)"
        )
        window = ["--event-time-start", "2025-01-03", "--event-time-end", "2025-01-05"]
        run("run", "-s", "daily_sales", *window)
        after = {r[0]: r[1] for r in table_rows(project, "daily_sales", DAILY)}
        assert after[date(2025, 1, 4)] == before[date(2025, 1, 4)] + 1  # inside: recomputed
        assert after[date(2025, 1, 5)] == before[date(2025, 1, 5)]  # the end: excluded
        assert processed_rows(project, "daily_sales")[-1] == (
            "2025-01-03 00:00:00",
            "2025-01-05 00:00:00",
        )
        # both ways of giving a range at once: refused before anything is written
        result = run(
            "run",
            "-s",
            "daily_sales",
            *window,
            vars={"vulcan_start": "2025-01-01", "vulcan_end": "2025-01-02"},
            expect_pass=False,
        )
        assert "both give the range to process: give one of them" in model_message(result)
        assert processed_rows(project, "daily_sales")[-1] == (
            "2025-01-03 00:00:00",
            "2025-01-05 00:00:00",
        )

    def test_failure_in_batch_keeps_earlier_batches_and_rerun_finishes(self, project: Any) -> None:
        run("seed")
        # batches of 3 days: [1-3], [4-6], [7-9] fails (Jan 8), [10]
        result = run(
            "run", "-s", "failing", vars={EXEC: "2025-01-11", "fail": "yes"}, expect_pass=False
        )
        assert "injected failure" in model_message(result)
        assert processed_rows(project, "failing") == [
            ("2025-01-01 00:00:00", "2025-01-04 00:00:00"),
            ("2025-01-04 00:00:00", "2025-01-07 00:00:00"),
        ]
        assert table_rows(project, "failing", DAILY) == expected_daily("2025-01-01", 6)
        run("run", "-s", "failing", vars={EXEC: "2025-01-11"})
        assert processed_rows(project, "failing")[2:] == [
            ("2025-01-07 00:00:00", "2025-01-10 00:00:00"),
            ("2025-01-10 00:00:00", "2025-01-11 00:00:00"),
        ]
        assert table_rows(project, "failing", DAILY) == expected_daily("2025-01-01", 10)

    def test_timestamp_and_string_time_columns(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "daily_ts", "daily_str", vars={EXEC: "2025-01-04"})
        ts = table_rows(project, "daily_ts", "ts, total_orders")
        assert [r[0].date() for r in ts] == days("2025-01-01", 3)
        assert [r[1] for r in ts] == [3, 3, 3]
        assert [r[0] for r in table_rows(project, "daily_str", "ds, total_orders")] == [
            "20250101",
            "20250102",
            "20250103",
        ]
        run("run", "-s", "daily_str", vars={EXEC: "2025-01-05"})
        assert len(table_rows(project, "daily_str", "ds, total_orders")) == 4

    def test_weekly_runs_only_complete_weeks(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "weekly_sales", vars={EXEC: "2025-01-15 10:00:00"})
        # Monday weeks: [Dec 30, Jan 6) holds Jan 1-5 (start floored), [Jan 6, Jan 13) is full;
        # the week of Jan 13 is not complete yet
        assert table_rows(project, "weekly_sales", "week_start, total_orders") == [
            (date(2024, 12, 30), 15),
            (date(2025, 1, 6), 21),
        ]
        assert processed_rows(project, "weekly_sales") == [
            ("2024-12-30 00:00:00", "2025-01-13 00:00:00")
        ]

    def test_full_refresh_resets_and_forward_only_keeps_history(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "daily_fwd", "daily_fwd_forced", "daily_sales", vars={EXEC: "2025-01-04"})
        # dbt's convention for models that keep their history: --full-refresh runs it
        # incrementally and says why (the day due since is added, nothing is rebuilt)
        _, log = run_dbt_and_capture(
            ["run", "-s", "daily_fwd", "--full-refresh", "--vars", f"{{{EXEC}: '2025-01-05'}}"]
        )
        assert (
            "Model 'daily_fwd': --full-refresh skipped (forward_only: true: its history is kept)"
            in log
        )
        assert table_rows(project, "daily_fwd", DAILY) == expected_daily("2025-01-01", 4)
        assert Counter(t for _, _, t in state_rows(project, "daily_fwd"))["removed"] == 0
        # both asked for in the model's own config: refused, nothing touched
        result = run(
            "run",
            "-s",
            "daily_fwd_forced",
            "--full-refresh",
            vars={EXEC: "2025-01-05"},
            expect_pass=False,
        )
        message = model_message(result)
        assert "'daily_fwd_forced' sets full_refresh: true but has forward_only: true" in message
        assert table_rows(project, "daily_fwd_forced", DAILY) == expected_daily("2025-01-01", 3)
        run("run", "-s", "daily_sales", "--full-refresh", vars={EXEC: "2025-01-03"})
        assert table_rows(project, "daily_sales", DAILY) == expected_daily("2025-01-01", 2)
        kinds = Counter(t for _, _, t in state_rows(project, "daily_sales"))
        assert kinds["removed"] >= 1
        assert processed_rows(project, "daily_sales")[-1] == (
            "2025-01-01 00:00:00",
            "2025-01-03 00:00:00",
        )


V1 = model(
    "select order_date, count(order_id) as total_orders\n"
    "from {{ ref('raw_orders') }} where order_date between @start_ds and @end_ds\n"
    "group by order_date"
)
V2_ADD = model(
    "select order_date, count(order_id) as total_orders, max(order_id) as last_order\n"
    "from {{ ref('raw_orders') }} where order_date between @start_ds and @end_ds\n"
    "group by order_date"
)
V3_DROP = model(
    "select order_date, max(order_id) as last_order\n"
    "from {{ ref('raw_orders') }} where order_date between @start_ds and @end_ds\n"
    "group by order_date"
)


class TestTimeRangeLifecycle:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv()}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"evolving.sql": V1, "daily_sales.sql": model()}

    def test_empty_creates_the_table_and_records_nothing(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "daily_sales", "--empty", vars={EXEC: "2025-01-05"})
        assert table_rows(project, "daily_sales", DAILY) == []
        assert state_rows(project, "daily_sales") == []

    def test_incremental_run_issues_one_write_and_one_state_append(
        self, project: Any, table_format: str
    ) -> None:
        run("seed")
        run("run", "-s", "daily_sales", "--full-refresh", vars={EXEC: "2025-01-05"})
        _, log = run_dbt_and_capture(
            [
                "--debug",
                "run",
                "-s",
                "daily_sales",
                "--vars",
                '{"vulcan_execution_time": "2025-01-08"}',
            ]
        )
        # each statement is logged as "On <node>: /* query comment */" + its SQL on the next lines
        chunks = log.split("On model.test.daily_sales: /*")[1:]
        issued = [
            re.split(r"\n\S*\d\d:\d\d:\d\d", chunk, maxsplit=1)[0].lower() for chunk in chunks
        ]
        # the statement without its query comment, and without the catalog dbt-databricks
        # names every relation with
        issued = [
            sql.split("*/", 1)[-1].replace("`", "").replace("hive_metastore.", "") for sql in issued
        ]
        kinds = Counter(
            "state_read"
            if "from vulcan_state" in sql
            else "state_append"
            if re.search(r"insert (into|overwrite table) vulcan_state", sql)
            else "write"
            if "insert" in sql
            else "stage_lookup"
            if "show tables in" in sql and "__vulcan_" in sql
            else "state_check"
            if re.search(r"show (table extended|tables|views) in vulcan_state", sql)
            else "describe"
            if re.search(r"^\s*describe ", sql, re.M)
            else "state_refresh"
            if re.search(r"^\s*refresh table vulcan_state", sql, re.M)
            else "other"
            for sql in issued
        )
        # no lookup of the state table by the model: the package's on-run-start hook looked it
        # up before the model ran, once per invocation, and dbt's relation cache knows it
        # (dbt-databricks lists a Hive-metastore schema's tables and views apart)
        lookups = re.findall(
            r"show (?:table extended|tables|views) in (?:`?hive_metastore`?\.)?`?vulcan_state\b",
            log,
            re.I,
        )
        assert len(lookups) == (2 if project.adapter.type() == "databricks" else 1), lookups
        expected = Counter({"state_read": 1, "state_append": 1, "write": 1})
        # no lookup of stage tables a killed run left: the kind stages only for a schema
        # change's rewrite, which names its stage in the log first (engine/stage.sql)
        # on Delta, REPLACE WHERE matches columns by position: the table's order is the one the
        # --full-refresh run read and recorded (engine/in_table_order.sql), not described again
        if table_format == "iceberg":
            # Iceberg's catalog caches a snapshot per session: the state is refreshed before
            # the plan reads it (state/state_relation.sql); the range is deleted before the
            # insert, so a batch written but not recorded by a killed run is replaced, not doubled
            expected["state_refresh"] = 1
            expected["other"] = 1
            assert sum("delete from" in sql for sql in issued) == 1, issued
        assert kinds == expected, issued
        assert processed_rows(project, "daily_sales")[-1] == (
            "2025-01-05 00:00:00",
            "2025-01-08 00:00:00",
        )

    def test_schema_changes(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "evolving", vars={EXEC: "2025-01-04"})
        # additive change, default allow: the column is added, old rows get NULL
        write_file(V2_ADD, project.project_root, "models", "evolving.sql")
        run("run", "-s", "evolving", vars={EXEC: "2025-01-06"})
        got = table_rows(project, "evolving", "order_date, total_orders, last_order")
        assert got[0] == (date(2025, 1, 1), 3, None)
        assert got[-1] == (date(2025, 1, 5), 3, 15)
        # destructive change, default error: refused, table and state untouched
        before_rows = table_rows(project, "evolving", "order_date, total_orders, last_order")
        before_state = state_rows(project, "evolving")
        write_file(V3_DROP, project.project_root, "models", "evolving.sql")
        result = run("run", "-s", "evolving", vars={EXEC: "2025-01-08"}, expect_pass=False)
        message = model_message(result)
        assert "destructive schema change (dropped total_orders)" in message
        assert "on_destructive_change is 'error'" in message
        assert (
            table_rows(project, "evolving", "order_date, total_orders, last_order") == before_rows
        )
        assert state_rows(project, "evolving") == before_state
        # allowed: the table is rewritten to the new schema and the run continues
        write_file(
            V3_DROP.replace("config(", "config(on_destructive_change='allow', "),
            project.project_root,
            "models",
            "evolving.sql",
        )
        run("run", "-s", "evolving", vars={EXEC: "2025-01-08"})
        got = table_rows(project, "evolving", "order_date, last_order")
        assert got[-1] == (date(2025, 1, 7), 21)
        assert len(got) == 7
        columns = [r[0] for r in rows(project, f"describe {project.test_schema}.evolving")]
        assert "total_orders" not in columns
        # the rewrite's stage was named in the log first (the kind stages only for such a
        # rewrite, engine/stage.sql), and settled by the batch recorded after it
        kinds = [t for _, _, t in state_rows(project, "evolving")]
        assert kinds[-2:] == ["staging", "processed"], kinds
