"""The fold that keeps a relation's state log short (state/fold.sql), through real dbt runs on
every table format, in both modes: a run whose read returns `vulcan_state_fold_rows` rows or
more replaces them by their compaction before it runs; the intervals, the table and what the
next runs do are those of the unfolded log. A run stopped between the fold's append and its
removal leaves both, which the next run folds again; a Delta or Iceberg state table from
before the partitioning by relation is not folded until `vulcan_compact` repartitions it.
Eight threads folding at once: reliability/test_concurrency.py."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture

from tests.support.functional import model_message, run, state_rows, table_rows

SOURCE = " union all ".join(
    f"select {i} as id, date'{date(2025, 1, 1) + timedelta(days=i % 12)}' as event_date"
    for i in range(36)
)
MODEL = (
    "{{ config(materialized='incremental_by_time_range', time_column='event_date',"
    " start='2025-01-01', batch_size=1) }}\n"
    "select event_date, count(*) as n from (" + SOURCE + ") as src\n"
    "where event_date between @start_ds and @end_ds group by event_date"
)
# a run-operation that does the fold's first half only: what a run killed between the fold's
# append and its removal leaves
APPEND_ONLY = """
{% macro fold_append_only(name) %}
  {%- set key = dbt_vulcan.vulcan_relation_key(ref(name)) -%}
  {%- set rows = dbt_vulcan.vulcan_log_read([key]).get(key, []) -%}
  {%- set folded = dbt_vulcan.vulcan_log_compact({key: rows}) -%}
  {% do dbt_vulcan.vulcan_record_intervals(dbt_vulcan.vulcan_log_values_sql(folded)) %}
{% endmacro %}
"""


def day(n: int) -> str:
    return f"{date(2025, 1, 1) + timedelta(days=n)} 00:00:00"


def at(n: int, **extra: Any) -> dict[str, Any]:
    """The vars of a run at the start of day n (days 0 .. n-1 due)."""
    return {"vulcan_execution_time": (date(2025, 1, 1) + timedelta(days=n)).isoformat(), **extra}


def expected(days: int) -> list[tuple[Any, ...]]:
    return [(date(2025, 1, 1) + timedelta(days=d), 3) for d in range(days)]


class TestStateFold:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"daily.sql": MODEL, "crashed.sql": MODEL}

    @pytest.fixture(scope="class")
    def macros(self) -> dict[str, str]:
        return {"fold_append_only.sql": APPEND_ONLY}

    def test_a_long_log_is_folded_and_runs_on_as_before(self, project: Any) -> None:
        run("run", "-s", "daily", vars=at(6))
        log = state_rows(project, "daily")
        assert log == [(day(d), day(d + 1), "processed") for d in range(6)]
        # below the limit: nothing folded
        run("run", "-s", "daily", vars=at(7, vulcan_state_fold_rows=8))
        assert len(state_rows(project, "daily")) == 7
        # 7 rows read, limit 5: folded into one before the run, then the run's own day
        _, output = run_dbt_and_capture(
            ["--debug", "run", "-s", "daily", "--vars", str(at(8, vulcan_state_fold_rows=5))]
        )
        assert "Model 'daily': state log folded, 7 rows -> 1" in output
        assert state_rows(project, "daily") == [
            (day(0), day(7), "processed"),
            (day(7), day(8), "processed"),
        ]
        assert table_rows(project, "daily", "event_date, n") == expected(8)
        # and on: a new day, then a restatement of two days recomputed as on any log
        run("run", "-s", "daily", vars=at(9, vulcan_state_fold_rows=5))
        run(
            "run-operation",
            "vulcan_restate",
            "--args",
            "{select: daily, start: '2025-01-03', end: '2025-01-04'}",
        )
        result = run("run", "-s", "daily", vars=at(9, vulcan_state_fold_rows=3))
        assert "2 intervals" in model_message(result)
        assert table_rows(project, "daily", "event_date, n") == expected(9)
        log = state_rows(project, "daily")
        # the restatement was pending when this run read the log: not folded (its 3 rows and
        # the restatement's removal, then the 2 days recomputed: on parquet each after its
        # own removal, the staged rewrite's)
        assert log[:4] == [
            (day(0), day(7), "processed"),
            (day(7), day(8), "processed"),
            (day(8), day(9), "processed"),
            (day(2), day(4), "removed"),
        ]
        assert [r for r in log[4:] if r[2] == "processed"] == [
            (day(2), day(3), "processed"),
            (day(3), day(4), "processed"),
        ]
        run("run", "-s", "daily", vars=at(10, vulcan_state_fold_rows=3))
        assert state_rows(project, "daily") == [
            (day(0), day(9), "processed"),
            (day(9), day(10), "processed"),
        ]
        assert table_rows(project, "daily", "event_date, n") == expected(10)

    def test_a_fold_stopped_before_its_removal_is_folded_again(self, project: Any) -> None:
        run("run", "-s", "crashed", vars=at(5))
        run("run-operation", "fold_append_only", "--args", "{name: crashed}")
        log = state_rows(project, "crashed")
        assert len(log) == 6 and (day(0), day(5), "processed") in log
        # both replay to days 0-4: nothing to recompute; the next run folds both
        result = run("run", "-s", "crashed", vars=at(5, vulcan_state_fold_rows=4))
        assert "0 intervals" in model_message(result)
        assert state_rows(project, "crashed") == [(day(0), day(5), "processed")]
        run("run", "-s", "crashed", vars=at(6, vulcan_state_fold_rows=4))
        assert state_rows(project, "crashed")[-1] == (day(5), day(6), "processed")
        assert table_rows(project, "crashed", "event_date, n") == expected(6)


@pytest.mark.profile_only("delta", "iceberg")
class TestStateTableFromBeforeThePartitioning:
    """A Delta or Iceberg state table as earlier releases created it (not partitioned by
    relation): runs go on unfolded, one line says what to do; `vulcan_compact` replaces it by
    a partitioned one, and folding starts."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"daily.sql": MODEL}

    def test_compact_repartitions_and_folding_starts(self, project: Any, table_format: str) -> None:
        state_schema = f"{project.test_schema}_legacy"
        state = f"{state_schema}.vulcan_intervals"
        project.run_sql(f"create schema if not exists {state_schema}")
        project.run_sql(
            f"create table {state} (relation string, model_id string, interval_start string, "
            "interval_end string, row_type string, fingerprint string, invocation_id string, "
            f"recorded_at string, seq int, details string) using {table_format}"
        )
        try:
            run("run", "-s", "daily", vars=at(5, vulcan_state_schema=state_schema))
            _, output = run_dbt_and_capture(
                [
                    "run",
                    "-s",
                    "daily",
                    "--vars",
                    str(at(6, vulcan_state_schema=state_schema, vulcan_state_fold_rows=3)),
                ]
            )
            assert "predates the state table's partitioning by relation" in output
            assert len(state_rows(project, "daily", state)) == 6
            _, output = run_dbt_and_capture(
                [
                    "run-operation",
                    "vulcan_compact",
                    "--vars",
                    str({"vulcan_state_schema": state_schema}),
                ]
            )
            assert f"Repartitioned the state table by relation: {state}" in output
            assert state_rows(project, "daily", state) == [(day(0), day(6), "processed")]
            run("run", "-s", "daily", vars=at(7, vulcan_state_schema=state_schema))
            run(
                "run",
                "-s",
                "daily",
                vars=at(8, vulcan_state_schema=state_schema, vulcan_state_fold_rows=2),
            )
            assert state_rows(project, "daily", state) == [
                (day(0), day(7), "processed"),
                (day(7), day(8), "processed"),
            ]
            assert table_rows(project, "daily", "event_date, n") == expected(8)
        finally:
            project.run_sql(f"drop schema if exists {state_schema} cascade")
