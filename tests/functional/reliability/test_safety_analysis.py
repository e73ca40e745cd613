"""The static safety analysis through a real dbt run, in both modes: the `vulcan` adapter's
(sqlglot) and the package's (Jinja on tokens, on stock type: spark). jaffle-shop's `orders`,
converted to a time range, numbers each customer's orders with `row_number() over (partition by
customer_id ...)`: on a time slice the numbering restarts, so the model is refused before
anything is written, naming the model and the `window` pattern; with `safety_overrides:
['window']` the same model runs; an unknown override name is a config error naming it. The
analysis runs once per definition: the next run of the same SQL and settings skips it, and
taking the override away has it refuse again.

`@start_ts` / `@end_ts` bounding a TIMESTAMP time column are a warning (ts_on_timestamp), which
every run outside UTC repeats once.

Runs on the embedded session (parquet): the analysis happens before any write, so the target
does not matter and the session is the cheapest."""

from __future__ import annotations

import json
from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture, write_file

from tests.support.functional import (
    models_state_rows,
    rows,
    run,
    session_time_zone,
    table_rows,
)

EXEC = {"vulcan_execution_time": "2025-01-06"}
ORDERS = (
    "select * from values (1, 10, date'2025-01-01'), (2, 10, date'2025-01-02'), "
    "(3, 11, date'2025-01-02'), (4, 10, date'2025-01-03') as t(order_id, customer_id, order_date)"
)
NUMBERED_SQL = f"""
with orders as (
    select * from ({ORDERS}) as o
    where order_date between @start_ds and @end_ds
)
select order_id, customer_id, order_date,
    row_number() over (
        partition by customer_id
        order by order_date, order_id
    ) as customer_order_number
from orders
"""
MODELS = {
    "orders_numbered": [],
    "orders_numbered_allowed": ["window"],
    "orders_numbered_typo": ["windows"],
}


def model_sql(overrides: list[str]) -> str:
    config = (
        "materialized='incremental_by_time_range', time_column='order_date', start='2025-01-01'"
    )
    if overrides:
        config += f", safety_overrides={overrides!r}"
    return "{{ config(" + config + ") }}\n" + NUMBERED_SQL


def tables(project: Any) -> set[str]:
    """The schema's tables and views, not the session's temporary views (SHOW TABLES lists
    them in every schema)."""
    found = rows(project, f"show tables in {project.test_schema}")
    return {str(r[1]).lower() for r in found if not r[2]}


@pytest.mark.profile_only("parquet")
class TestWindowRefusedInBothModes:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {f"{name}.sql": model_sql(overrides) for name, overrides in MODELS.items()}

    def test_refused_before_any_write_unless_overridden(self, project: Any) -> None:
        result = run("run", vars=EXEC, expect_pass=False)
        by_name = {r.node.name: r for r in result.results if r.node.resource_type == "model"}
        assert set(by_name) == set(MODELS)

        refused = str(by_name["orders_numbered"].message)
        assert by_name["orders_numbered"].status == "error"
        assert (
            "Model 'orders_numbered': the incremental safety analysis refused the model SQL"
            in refused
        ), refused
        assert "  - [window] " in refused and "partition by customer_id" in refused.lower()
        assert "in CTE" not in refused  # the outermost query numbers the rows
        assert "safety_overrides config (here: ['window'])" in refused

        typo = str(by_name["orders_numbered_typo"].message)
        assert by_name["orders_numbered_typo"].status == "error"
        assert (
            "Model 'orders_numbered_typo': safety_overrides: 'windows' (did you mean 'window'?) "
            "not a safety pattern; allowed: limit, nondeterministic, window" in typo
        ), typo

        # the refused models wrote nothing: no table, no state row
        assert by_name["orders_numbered_allowed"].status == "success"
        assert tables(project) == {"orders_numbered_allowed"}
        state = models_state_rows(project, list(MODELS))
        assert state["orders_numbered"] == [] and state["orders_numbered_typo"] == []
        assert state["orders_numbered_allowed"]
        # one batch for the whole range: the numbering is right on this first run
        assert table_rows(
            project,
            "orders_numbered_allowed",
            "order_id, customer_id, cast(order_date as string), customer_order_number",
        ) == [
            (1, 10, "2025-01-01", 1),
            (2, 10, "2025-01-02", 2),
            (3, 11, "2025-01-02", 1),
            (4, 10, "2025-01-03", 3),
        ]

    def test_once_per_definition(self, project: Any) -> None:
        """After the run above: the same definition skips the analysis (a debug line says so),
        one without the override is analysed again and refused, nothing written for it."""
        later = {"vulcan_execution_time": "2025-01-08"}
        _, log = run_dbt_and_capture(
            ["--debug", "run", "-s", "orders_numbered_allowed", "--vars", json.dumps(later)]
        )
        skipped = "Model 'orders_numbered_allowed': safety analysis skipped"
        assert skipped in log
        before = models_state_rows(project, ["orders_numbered_allowed"])
        write_file(model_sql([]), project.project_root, "models", "orders_numbered_allowed.sql")
        later = {"vulcan_execution_time": "2025-01-10"}
        result, log = run_dbt_and_capture(
            ["--debug", "run", "-s", "orders_numbered_allowed", "--vars", json.dumps(later)],
            expect_pass=False,
        )
        assert skipped not in log
        (refused,) = [r for r in result.results if r.node.name == "orders_numbered_allowed"]
        message = str(refused.message)
        assert "the incremental safety analysis refused the model SQL" in message, message
        assert models_state_rows(project, ["orders_numbered_allowed"]) == before


# clicks at UTC instants, written zone-proof: two in 2024-01-01..02 (UTC), one before, one after
SRC_CLICKS = """
{{ config(materialized='table') }}
select id as click_id, cast(at as timestamp) as click_ts from values
  (0, '2023-12-31 23:00:00+00:00'), (1, '2024-01-01 02:00:00+00:00'),
  (2, '2024-01-02 23:30:00+00:00'), (3, '2024-01-03 03:00:00+00:00') as v(id, at)
"""


def clicks_model(start: str, end: str) -> str:
    return (
        "{{ config(materialized='incremental_by_time_range', time_column='click_ts', "
        "start='2024-01-01', partition_by_time_column=false) }}\n"
        "select click_id, click_ts from {{ ref('src_clicks') }}\n"
        f"where click_ts between {start} and {end}\n"
    )


TS_WARNING = (
    "Model 'clicks_ts': safety analysis [ts_on_timestamp]: @start_ts and @end_ts bound the "
    "TIMESTAMP time column click_ts, but a _ts token is a zoneless string that Spark reads as "
    "a time of the session's time zone: outside UTC every batch reads a range shifted by the "
    "zone's offset, and the rows within that offset of its bounds are never written; use "
    "@start_dt / @end_dt (the batch's UTC instants) to bound a TIMESTAMP column"
)
TS_REPEAT = ". This run's session time zone is 'America/New_York', not UTC: its batches are shifted"


def ts_run(execution_time: str) -> tuple[Any, str]:
    return run_dbt_and_capture(
        ["run", "--vars", json.dumps({"vulcan_execution_time": execution_time})]
    )


@pytest.mark.profile_only("parquet")
class TestTsTokensOnATimestampColumn:
    """`click_ts between @start_ts and @end_ts` on a TIMESTAMP column, in a session in
    America/New_York: the zoneless bounds are New York times, so the first batch
    (2024-01-01..02, UTC) reads from 05:00 UTC and loses the click at 02:00. The tokens keep
    their meaning (the table says so); the analysis warns, naming the model, the column, the
    tokens and the fix, and the run repeats it once because the session is not in UTC. The same
    model with @start_dt / @end_dt keeps both clicks and says nothing."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "src_clicks.sql": SRC_CLICKS,
            "clicks_ts.sql": clicks_model("@start_ts", "@end_ts"),
            "clicks_dt.sql": clicks_model("@start_dt", "@end_dt"),
        }

    def test_warned_once_by_the_analysis_and_once_by_each_run_outside_utc(
        self, project: Any
    ) -> None:
        with session_time_zone("America/New_York"):
            result, out = ts_run("2024-01-03 00:30:00")
        assert all(r.status == "success" for r in result.results)
        # the analysis' warning, then the run's repeat: each once, for clicks_ts only
        assert out.count(TS_WARNING) == 2, out
        assert out.count(TS_WARNING + TS_REPEAT) == 1, out
        assert "Model 'clicks_dt'" not in out
        # the tokens keep their meaning: 1 of the 2 clicks of 2024-01-01..02 (UTC)
        assert table_rows(project, "clicks_ts", "click_id") == [(2,)]
        assert table_rows(project, "clicks_dt", "click_id") == [(1,), (2,)]

        # the next run outside UTC skips the analysis (same definition) but repeats it
        with session_time_zone("America/New_York"):
            _, out = ts_run("2024-01-04 00:30:00")
        assert out.count(TS_WARNING) == 1, out
        assert out.count(TS_WARNING + TS_REPEAT) == 1, out

        # in UTC the bounds are right: nothing to repeat
        _, out = ts_run("2024-01-05 00:30:00")
        assert "ts_on_timestamp" not in out, out
        assert models_state_rows(project, ["clicks_ts"])["clicks_ts"][-1][:2] == (
            "2024-01-04 00:00:00",
            "2024-01-05 00:00:00",
        )
