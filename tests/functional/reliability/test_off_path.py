"""The loss paths one step off the tested path (issue #47), on every format by --profile, in
both modes: each ran OK and lost, duplicated or misplaced rows before its fix.

- a text time column whose format does not sort as text ('MM/dd/yyyy');
- a date time column under an hourly cron (refused: a batch of hours replaced whole days);
- a Spark session not in UTC (every rendered time names its UTC instant);
- a time column whose type changes upstream (date to timestamp) while the model and its
  recorded time type stay: every time of the later days is kept;
- a batch written but not recorded (a crash between the write and the state append): the
  rerun replaces it, never adds to it;
- an accumulating `when_matched` (`target.orders + source.orders`): never applied twice to a
  processed range (lookback and an explicit range over processed days are refused; a batch
  written but not recorded is recorded by the next run from the table's own history, a write
  that did not commit runs again)."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture

from tests.support.functional import (
    STATE,
    leave_stage,
    processed_rows,
    rows,
    run,
    session_time_zone,
    table_rows,
)

EXEC = "vulcan_execution_time"


def forget_last_append(project: Any, table_format: str, name: str) -> None:
    """What a crash between a batch's write and its state append leaves: the write committed,
    its interval not recorded (the model's newest state row removed)."""
    relation = f"{project.test_schema}.{name}".lower()
    where = f"relation = '{relation}'"
    if table_format == "parquet":
        [(append_id,)] = rows(
            project,
            f"select append_id from {STATE} where {where} "
            "order by recorded_at desc, seq desc limit 1",
        )
        spec = f"relation = '{relation}', append_id = '{append_id}'"
        project.run_sql(f"alter table {STATE} drop partition ({spec})")
    else:
        [(newest,)] = rows(project, f"select max(recorded_at) from {STATE} where {where}")
        project.run_sql(f"delete from {STATE} where {where} and recorded_at = '{newest}'")


def leave_unrecorded(project: Any, table_format: str, name: str) -> None:
    """What a crash between a bracketed batch's write and its record leaves: the write
    committed, the `processed` row missing (the `writing` row before it stays) and, on parquet,
    the stage the batch was swapped in from (it holds what the table now holds; the record
    would have dropped it)."""
    relation = f"{project.test_schema}.{name}".lower()
    if table_format == "parquet":
        [(details,)] = rows(
            project,
            f"select details from {STATE} where relation = '{relation}' "
            "and row_type = 'writing' order by recorded_at desc limit 1",
        )
        stage = json.loads(details)["write_mark"]["stage"]
        project.run_sql(
            f"create table {project.test_schema}.{stage} using parquet "
            f"tblproperties ('vulcan.replay' = 'overwrite') as select * from {relation}"
        )
    forget_last_append(project, table_format, name)


def days_model(**config: Any) -> str:
    base = {"materialized": "incremental_by_time_range", "time_column": "order_date"}
    base.update({"start": "2025-01-01", **config})
    args = ", ".join(f"{k}={v!r}" for k, v in base.items())
    return (
        "{{ config(" + args + ") }}\n"
        "select d as order_date, customer, orders from {{ ref('src_orders') }}\n"
        "where d between @start_ds and @end_ds\n"
    )


# one row a day for two customers, 2025-01-01 .. 2025-01-20
SRC_ORDERS = """
{{ config(materialized='table') }}
select d, c as customer, 1 as orders
from (select explode(sequence(date'2025-01-01', date'2025-01-20', interval 1 day)) as d)
cross join (select explode(array('ann', 'bob')) as c)
"""

ACCUMULATE = (
    "WHEN MATCHED THEN UPDATE SET target.orders = target.orders + source.orders, "
    "target.last_day = source.last_day"
)


def totals_model(**config: Any) -> str:
    base = {
        "materialized": "incremental_by_unique_key",
        "unique_key": "customer",
        "start": "2025-01-01",
        "when_matched": ACCUMULATE,
    }
    base.update(config)
    args = ", ".join(f"{k}={v!r}" for k, v in base.items())
    return (
        "{{ config(" + args + ") }}\n"
        "select customer, sum(orders) as orders, max(d) as last_day from {{ ref('src_orders') }}\n"
        "where d between @start_ds and @end_ds\n"
        "and assert_true(@start_ds != '{{ var('fail_day', '') }}') is null\n"
        "group by customer\n"
    )


class TestWrittenNotRecorded:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "src_orders.sql": SRC_ORDERS,
            "daily.sql": days_model(),
            "totals.sql": totals_model(),
            "totals_lookback.sql": totals_model(lookback=1),
            "totals_daily.sql": totals_model(batch_size=1),
        }

    def test_rerun_replaces_the_unrecorded_batch(self, project: Any, table_format: str) -> None:
        run("run", "-s", "src_orders")
        run("run", "-s", "daily", vars={EXEC: "2025-01-10"})
        run("run", "-s", "daily", vars={EXEC: "2025-01-11"})
        forget_last_append(project, table_format, "daily")
        assert processed_rows(project, "daily")[-1][1].startswith("2025-01-10")
        run("run", "-s", "daily", vars={EXEC: "2025-01-11"})
        got = table_rows(project, "daily", "order_date, customer, orders", "1, 2")
        assert len(got) == 20, got  # 10 days x 2 customers, each once
        assert {r[2] for r in got} == {1}
        assert processed_rows(project, "daily")[-1][1].startswith("2025-01-11")

    def test_accumulating_when_matched_refuses_an_explicit_range_over_processed_days(
        self, project: Any
    ) -> None:
        run("run", "-s", "src_orders")
        run("run", "-s", "totals", vars={EXEC: "2025-01-06"})
        before = table_rows(project, "totals", "customer, orders")
        assert before == [("ann", 5), ("bob", 5)]
        _, out = run_dbt_and_capture(
            [
                "run",
                "-s",
                "totals",
                "--vars",
                '{"vulcan_start": "2025-01-04", "vulcan_end": "2025-01-05", '
                f'"{EXEC}": "2025-01-06"}}',
            ],
            expect_pass=False,
        )
        assert "would apply processed intervals again" in out, out
        assert "assigns orders = target.orders + source.orders, which reads" in out
        assert table_rows(project, "totals", "customer, orders") == before
        # the next plain run goes on from where it was
        run("run", "-s", "totals", vars={EXEC: "2025-01-08"})
        assert table_rows(project, "totals", "customer, orders") == [("ann", 7), ("bob", 7)]

    def test_accumulating_when_matched_refuses_lookback(self, project: Any) -> None:
        run("run", "-s", "src_orders")
        _, out = run_dbt_and_capture(
            ["run", "-s", "totals_lookback", "--vars", f'{{"{EXEC}": "2025-01-06"}}'],
            expect_pass=False,
        )
        assert "Invalid config for model 'totals_lookback'" in out, out
        assert "lookback: 1 re-applies processed intervals" in out
        assert not rows(project, f"show tables in {project.test_schema} like 'totals_lookback'")

    def test_accumulating_when_matched_written_not_recorded(
        self, project: Any, table_format: str
    ) -> None:
        """The batch's MERGE (parquet: its staged swap) committed, its record did not: the
        next run records it from the table's own history and does not count the day twice."""
        run("run", "-s", "src_orders")
        project.run_sql(f"drop table if exists {project.test_schema}.totals")
        run("run", "-s", "totals", "--full-refresh", vars={EXEC: "2025-01-06"})
        run("run", "-s", "totals", vars={EXEC: "2025-01-07"})
        leave_unrecorded(project, table_format, "totals")
        _, out = run_dbt_and_capture(
            ["run", "-s", "totals", "--vars", f'{{"{EXEC}": "2025-01-07"}}']
        )
        assert "had committed; recorded now, not applied again" in out, out
        assert table_rows(project, "totals", "customer, orders") == [("ann", 6), ("bob", 6)]
        assert processed_rows(project, "totals")[-1][1].startswith("2025-01-07")
        # the next day goes on from there
        run("run", "-s", "totals", vars={EXEC: "2025-01-08"})
        assert table_rows(project, "totals", "customer, orders") == [("ann", 7), ("bob", 7)]

    def test_accumulating_when_matched_write_that_did_not_commit_runs_again(
        self, project: Any
    ) -> None:
        """A batch that failed after its bracket was opened (the write did not commit): the
        next run applies it, once."""
        run("run", "-s", "src_orders")
        run("run", "-s", "totals_daily", vars={EXEC: "2025-01-06"})
        run_dbt_and_capture(
            [
                "run",
                "-s",
                "totals_daily",
                "--vars",
                f'{{"{EXEC}": "2025-01-08", "fail_day": "2025-01-07"}}',
            ],
            expect_pass=False,
        )
        # the day before the failing one is recorded; the failing one is not
        assert processed_rows(project, "totals_daily")[-1][1].startswith("2025-01-07")
        assert table_rows(project, "totals_daily", "customer, orders") == [("ann", 6), ("bob", 6)]
        _, out = run_dbt_and_capture(
            ["run", "-s", "totals_daily", "--vars", f'{{"{EXEC}": "2025-01-08"}}']
        )
        assert "had not committed; it runs again" in out, out
        assert table_rows(project, "totals_daily", "customer, orders") == [("ann", 7), ("bob", 7)]
        assert processed_rows(project, "totals_daily")[-1][1].startswith("2025-01-08")


class TestStageOutlivingItsTable:
    """A marked stage a stopped run left (engine/stage.sql) whose table was then dropped by
    hand: the run that rebuilds the table drops the stage; it is never replayed over the
    rebuilt table by a later run."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"src_orders.sql": SRC_ORDERS, "daily.sql": days_model()}

    def test_a_rebuild_drops_the_old_stage(self, project: Any, table_format: str) -> None:
        schema = project.test_schema
        run("run", "-s", "src_orders")
        run("run", "-s", "daily", vars={EXEC: "2025-01-06"})
        # what a run killed inside a schema change's rewrite leaves: the `staging` row naming
        # its stage, the stage complete and marked for replay (engine/stage.sql)
        leave_stage(
            project,
            table_format,
            "daily",
            "daily__vulcan_stage_0123456789ab",
            f"select order_date, 'stale' as customer, 99 as orders from {schema}.daily",
        )
        project.run_sql(f"drop table {schema}.daily")
        run("run", "-s", "daily", vars={EXEC: "2025-01-06"})
        assert not rows(project, f"show tables in {schema} like 'daily__vulcan_*'")
        run("run", "-s", "daily", vars={EXEC: "2025-01-07"})
        got = table_rows(project, "daily", "order_date, customer, orders", "1, 2")
        assert len(got) == 12, got  # 6 days x 2 customers
        assert {r[1] for r in got} == {"ann", "bob"}


class TestReplayedStageOfAMovedKey:
    """Unique key on a partitioned parquet table: a key moves to another partition, leaving its
    old one empty; the run stopped before dropping that partition, with its stage complete and
    marked. The next run's replay drops the emptied partition as the batch would have: the key
    is stored once."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "moves.sql": (
                "{{ config(materialized='incremental_by_unique_key', unique_key='id', "
                "partition_by=['part'], file_format='parquet') }}\n"
                "select id, part, v from {{ source('raw', 'src_moves') }}\n"
            ),
            "sources.yml": (
                'sources:\n  - name: raw\n    schema: "{{ target.schema }}"\n'
                "    tables:\n      - name: src_moves\n"
            ),
        }

    def test_the_replay_drops_the_emptied_partition(self, project: Any, table_format: str) -> None:
        if table_format != "parquet":
            pytest.skip("a parquet table's staged rewrite")
        schema = project.test_schema
        project.run_sql(
            f"create table {schema}.src_moves using parquet as select 1 as id, 'a' as part, 1 as v"
        )
        run("run", "-s", "moves")
        assert table_rows(project, "moves", "id, part, v") == [(1, "a", 1)]
        # the source moves key 1 to partition b; the run stopped after its stage was complete
        # and marked, before it dropped partition a (left with no rows) and swapped b in (the
        # stage flags the changed row: not a column of the table)
        project.run_sql(
            f"insert overwrite table {schema}.src_moves select 1 as id, 'b' as part, 10 as v"
        )
        project.run_sql(
            f"create table {schema}.moves__vulcan_stage_0123456789ab using parquet "
            "tblproperties ('vulcan.replay' = 'overwrite') as select * from values "
            "(1, 10, 'b', false, true), (null, null, 'a', true, false), "
            "(null, null, 'b', true, false) as t(id, v, part, __vulcan_marker, __vulcan_changed)"
        )
        run("run", "-s", "moves")
        assert table_rows(project, "moves", "id, part, v") == [(1, "b", 10)]


# one row a day, 2023-12-20 .. 2025-01-20, its day as 'MM/dd/yyyy' text
SRC_DAYS = """
{{ config(materialized='table') }}
select d, date_format(d, 'MM/dd/yyyy') as order_dt
from (select explode(sequence(date'2023-12-20', date'2025-01-20', interval 1 day)) as d)
"""


class TestTextFormatNotSortingAsText:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        us = (
            "{{ config(materialized='incremental_by_time_range', "
            "time_column=['order_dt', 'MM/dd/yyyy'], start='2023-12-29', "
            "partition_by_time_column=false) }}\n"
            "select order_dt, d from {{ ref('src_days') }}\n"
        )
        return {"src_days.sql": SRC_DAYS, "us_days.sql": us}

    def test_every_day_kept_and_a_range_replaces_only_its_days(self, project: Any) -> None:
        run("run", "-s", "src_days")
        run("run", "-s", "us_days", vars={EXEC: "2025-01-03"})
        # 2023-12-29 .. 2025-01-02: 3 + 366 + 2 days ('07/15/2024' <= '01/02/2025' as text is false)
        [(count, first, last)] = rows(
            project, f"select count(*), min(d), max(d) from {project.test_schema}.us_days"
        )
        assert (count, str(first), str(last)) == (371, "2023-12-29", "2025-01-02")
        run(
            "run",
            "-s",
            "us_days",
            vars={EXEC: "2025-01-03", "vulcan_start": "2024-12-30", "vulcan_end": "2024-12-31"},
        )
        # the same month/day of 2023 is not touched, nothing doubled
        [(count, distinct)] = rows(
            project, f"select count(*), count(distinct d) from {project.test_schema}.us_days"
        )
        assert (count, distinct) == (371, 371)
        assert rows(
            project,
            f"select order_dt from {project.test_schema}.us_days where order_dt like '12/3%' "
            "order by d",
        ) == [("12/30/2023",), ("12/31/2023",), ("12/30/2024",), ("12/31/2024",)]


class TestDayColumnUnderHourlyCron:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        hourly = (
            "{{ config(materialized='incremental_by_time_range', time_column='event_date', "
            "cron='@hourly', start='2024-01-02') }}\n"
            "select date'2024-01-02' as event_date, 1 as n\n"
        )
        return {"hourly_by_date.sql": hourly}

    def test_refused_before_anything_is_created(self, project: Any) -> None:
        _, out = run_dbt_and_capture(
            ["run", "--vars", f'{{"{EXEC}": "2024-01-02 03:00:00"}}'], expect_pass=False
        )
        assert "Invalid config for model 'hourly_by_date'" in out, out
        assert (
            "time_column: 'event_date' holds days (type date) but the interval unit is hour" in out
        )
        assert not rows(project, f"show tables in {project.test_schema} like 'hourly_by_date'")
        assert processed_rows(project, "hourly_by_date") == []


# an upstream whose time column turns from days into times (var as_times): 2024-01-01 .. 05,
# one row a day at midnight, or two (00:00 and 13:00 UTC)
SRC_EVENTS = """
{{ config(materialized='table') }}
select d as event_date, n from (
  select {% if var('as_times', false) %} cast(d as timestamp) + make_interval(0, 0, 0, 0, h, 0, 0)
    {% else %} d {% endif %} as d, h as n
  from (select explode(sequence(date'2024-01-01', date'2024-01-05', interval 1 day)) as d)
  cross join (select explode(array({{ '0, 13' if var('as_times', false) else '0' }})) as h)
)
"""


@pytest.mark.profile_only("parquet")
class TestTimeColumnTypeChangedUpstream:
    """The log keeps the time type of the run that recorded it (date); the upstream column
    turns into a timestamp while the model is unchanged. The day filter is half-open at the
    day after the range, so a later run keeps every time of its days, not the midnight rows
    only. (The format does not matter: the filter is the query's.)"""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        events = (
            "{{ config(materialized='incremental_by_time_range', time_column='event_date', "
            "start='2024-01-01', partition_by_time_column=false) }}\n"
            "select event_date, n from {{ ref('src_events') }}\n"
        )
        return {"src_events.sql": SRC_EVENTS, "events.sql": events}

    def test_a_later_run_keeps_every_time_of_its_days(self, project: Any) -> None:
        run("run", vars={EXEC: "2024-01-03"})
        assert [str(d) for (d,) in table_rows(project, "events", "event_date")] == [
            "2024-01-01",
            "2024-01-02",
        ]
        run("run", "-s", "src_events", vars={"as_times": True})
        run("run", "-s", "events", vars={EXEC: "2024-01-05"})
        # 2024-01-03 and 04: both times of each day, whatever type the table keeps
        assert table_rows(project, "events", "cast(event_date as date), n", "1, 2") == [
            (date(2024, 1, 1), 0),
            (date(2024, 1, 2), 0),
            (date(2024, 1, 3), 0),
            (date(2024, 1, 3), 13),
            (date(2024, 1, 4), 0),
            (date(2024, 1, 4), 13),
        ]
        assert processed_rows(project, "events")[-1] == (
            "2024-01-03 00:00:00",
            "2024-01-05 00:00:00",
        )


# clicks at UTC instants, written zone-proof
SRC_CLICKS = """
{{ config(materialized='table') }}
select id as click_id, cast(at as timestamp) as ts from values
  (0, '2023-12-31 23:00:00+00:00'), (1, '2024-01-01 02:00:00+00:00'),
  (2, '2024-01-02 23:30:00+00:00'), (3, '2024-01-03 03:00:00+00:00') as v(id, at)
"""


class TestSessionNotInUtc:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        clicks = (
            "{{ config(materialized='incremental_by_time_range', time_column='ts', "
            "start='2024-01-01', partition_by_time_column=false) }}\n"
            "select click_id, ts from {{ ref('src_clicks') }}\n"
            "where ts between @start_dt and @end_dt\n"
        )
        filtered_only = (
            "{{ config(materialized='incremental_by_time_range', time_column='ts', "
            "start='2024-01-01', partition_by_time_column=false) }}\n"
            "select click_id, ts from {{ ref('src_clicks') }}\n"
        )
        return {"src_clicks.sql": SRC_CLICKS, "clicks.sql": clicks, "clicks_all.sql": filtered_only}

    def test_the_days_are_utc_days_whatever_the_session_zone(self, project: Any) -> None:
        with session_time_zone("America/New_York"):
            run("run", vars={EXEC: "2024-01-03 00:30:00"})
        for name in ("clicks", "clicks_all"):
            assert table_rows(project, name, "click_id") == [(1,), (2,)], name
            assert processed_rows(project, name) == [
                ("2024-01-01 00:00:00", "2024-01-03 00:00:00")
            ], name


@pytest.mark.profile_only("parquet")
class TestTimestampPartitionsNotInUtc:
    """A parquet table partitioned by a TIMESTAMP time column, in a session not in UTC: Spark
    writes each partition's value in the session's wall clock ('2023-12-31 21:00:00' in New
    York for 02:00 UTC on 2024-01-01). The rerun of a processed day drops that day's
    partitions, read back in the same zone: a click gone from the source is gone from the
    table too (read as UTC, its partition looked a day earlier and stayed)."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        source = SRC_CLICKS.replace(
            "as v(id, at)", "as v(id, at) where id not in ({{ var('gone', -1) }})"
        )
        clicks = (
            "{{ config(materialized='incremental_by_time_range', time_column='ts', "
            "start='2024-01-01') }}\n"
            "select click_id, ts from {{ ref('src_clicks') }}\n"
            "where ts between @start_dt and @end_dt\n"
        )
        return {"src_clicks.sql": source, "clicks.sql": clicks}

    def test_a_rerun_drops_the_partitions_of_its_days(self, project: Any) -> None:
        with session_time_zone("America/New_York"):
            run("run", vars={EXEC: "2024-01-03 00:30:00"})
        parts = sorted(
            str(r[0]) for r in rows(project, f"show partitions {project.test_schema}.clicks")
        )
        assert parts == ["ts=2023-12-31 21%3A00%3A00", "ts=2024-01-02 18%3A30%3A00"]
        run("run", "-s", "src_clicks", vars={"gone": 1})
        with session_time_zone("America/New_York"):
            run(
                "run",
                "-s",
                "clicks",
                vars={
                    EXEC: "2024-01-03 00:30:00",
                    "vulcan_start": "2024-01-01",
                    "vulcan_end": "2024-01-01",
                },
            )
        assert table_rows(project, "clicks", "click_id") == [(2,)]
        assert processed_rows(project, "clicks")[-1] == (
            "2024-01-01 00:00:00",
            "2024-01-02 00:00:00",
        )


@pytest.mark.profile_only("delta")
class TestDeltaTimestampPartitionsNotInUtc:
    """A Delta table partitioned by its TIMESTAMP time column, in a session whose zone (New York)
    is not the JVM's (UTC): Delta Lake before 4.1 stores each partition value shifted by the
    difference (delta-io/delta#5599; found by the fuzzer, seed 4444), so before Spark 4.1 the
    run is refused before the table is created or anything recorded. Unpartitioned, the same
    model stores the source's instants; from Spark 4.1 (its Delta Lake fixed) both do."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        clicks = (
            "{{ config(materialized='incremental_by_time_range', time_column='ts', "
            "start='2024-01-01', file_format='delta') }}\n"
            "select click_id, ts from {{ ref('src_clicks') }}\n"
            "where ts between @start_dt and @end_dt\n"
        )
        flat = clicks.replace("start=", "partition_by_time_column=false, start=")
        return {"src_clicks.sql": SRC_CLICKS, "clicks.sql": clicks, "clicks_flat.sql": flat}

    def test_refused_before_spark_4_1_and_right_after(self, project: Any) -> None:
        import pyspark

        expected = [(1, 1704074400), (2, 1704238200)]
        instants = "click_id, cast(unix_timestamp(ts) as bigint)"
        run("run", "-s", "src_clicks")
        with session_time_zone("America/New_York"):
            run("run", "-s", "clicks_flat", vars={EXEC: "2024-01-03 00:30:00"})
            fixed = tuple(int(p) for p in pyspark.__version__.split(".")[:2]) >= (4, 1)
            _, out = run_dbt_and_capture(
                ["run", "-s", "clicks", "--vars", f'{{"{EXEC}": "2024-01-03 00:30:00"}}'],
                expect_pass=fixed,
            )
        assert table_rows(project, "clicks_flat", instants) == expected
        if fixed:
            assert table_rows(project, "clicks", instants) == expected
            return
        assert "Invalid config for model 'clicks' (incremental_by_time_range)" in out, out
        assert "partition_by_time_column: the Delta table is partitioned by the" in out
        assert "'America/New_York' is not the JVM's" in out
        assert "delta-io/delta#5599" in out
        assert not rows(project, f"show tables in {project.test_schema} like 'clicks'")
        assert processed_rows(project, "clicks") == []
        # the same run in the JVM's zone (UTC) writes the right instants
        run("run", "-s", "clicks", vars={EXEC: "2024-01-03 00:30:00"})
        assert table_rows(project, "clicks", instants) == expected

    def test_an_interrupted_swap_is_not_replayed_shifted(
        self, project: Any, table_format: str
    ) -> None:
        """A schema change's rebuild killed in its swap leaves a marked stage that the next run
        replays before it plans (engine/stage.sql): in New York before Spark 4.1 that replay is
        refused too, the stage kept; the run in UTC replays it with the right instants."""
        import pyspark

        expected = [(1, 1704074400), (2, 1704238200)]
        instants = "click_id, cast(unix_timestamp(ts) as bigint)"
        schema = project.test_schema
        run("run", "-s", "src_clicks")
        run("run", "-s", "clicks", vars={EXEC: "2024-01-03 00:30:00"})
        stage = "clicks__vulcan_stage_0123456789ab"
        select = f"select * from {schema}.clicks"
        leave_stage(project, table_format, "clicks", stage, select, replay="rebuild")
        fixed = tuple(int(p) for p in pyspark.__version__.split(".")[:2]) >= (4, 1)
        with session_time_zone("America/New_York"):
            _, out = run_dbt_and_capture(
                ["run", "-s", "clicks", "--vars", f'{{"{EXEC}": "2024-01-03 01:30:00"}}'],
                expect_pass=fixed,
            )
        if not fixed:
            assert "partition_by_time_column: the Delta table is partitioned by the" in out, out
            assert "replaying that swap" not in out, out
            assert rows(project, f"show tables in {schema} like '{stage}'")
            assert table_rows(project, "clicks", instants) == expected
            _, out = run_dbt_and_capture(
                ["run", "-s", "clicks", "--vars", f'{{"{EXEC}": "2024-01-03 01:30:00"}}']
            )
        assert "replaying that swap (rebuild)" in out, out
        assert not rows(project, f"show tables in {schema} like '{stage}'")
        assert table_rows(project, "clicks", instants) == expected
