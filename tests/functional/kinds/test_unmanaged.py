"""incremental_unmanaged on a real SparkSession (parquet, delta or iceberg by --profile)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture

from tests.support.functional import (
    leave_stage,
    model_message,
    model_statements,
    rows,
    run,
    state_rows,
    table_rows,
)

SHIPMENTS = """shipment_id,load_id,order_id,carrier
1,1,10,ups
2,1,11,dhl
3,2,12,ups
"""

# an append-only event log: each run appends what the load holds, stamped with the run's date
BODY = """
select shipment_id, order_id, carrier, @execution_date as logged_on
from {{ ref('raw_shipments') }}
where load_id = {{ var('load_id', 1) }}
"""

EXEC = "vulcan_execution_time"

EVOLVING_SRC = """
{{ config(materialized='table') }}
select {{ var('load_id', 1) }} as load_id
{%- if var('wide', false) %}, 'x' as note{% endif %}
"""
COLUMNS = "shipment_id, order_id, carrier, logged_on"


def model(body: str = BODY, **config: Any) -> str:
    base: dict[str, Any] = {"materialized": "incremental_unmanaged"}
    base.update(config)
    args = ", ".join(f"{k}={v!r}" for k, v in base.items())
    return "{{ config(" + args + ") }}\n" + body


def relation_exists(project: Any, name: str) -> bool:
    return bool(rows(project, f"show tables in {project.test_schema} like '{name}'"))


class TestUnmanaged:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_shipments.csv": SHIPMENTS}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "shipment_log.sql": model(),
            "partitioned_log.sql": model(partitioned_by="carrier"),
            "kept_log.sql": model(disable_restatement=True),
            "kept_log_forced.sql": model(disable_restatement=True, full_refresh=True),
            "batched_log.sql": model(batch_size=7),
            "restated_log.sql": model(),
            "staged_log.sql": model(),
            # a log of everything its source has: a column the source gains reaches it
            "evolving_src.sql": EVOLVING_SRC,
            "evolving_log.sql": model("select * from {{ ref('evolving_src') }}"),
        }

    def test_appends_on_every_run_without_dedupe(self, project: Any, logs_dir: str) -> None:
        run("seed")
        run("run", "-s", "shipment_log", vars={"load_id": 1, EXEC: "2025-01-02 06:00:00"})
        run("run", "-s", "shipment_log", vars={"load_id": 2, EXEC: "2025-01-03 06:00:00"})
        second = model_statements(logs_dir, "shipment_log")
        # the same load again: appended again, nothing deduplicated or replaced
        run("run", "-s", "shipment_log", vars={"load_id": 1, EXEC: "2025-01-04 06:00:00"})
        assert table_rows(project, "shipment_log", COLUMNS, order_by="4, 1") == [
            (1, 10, "ups", date(2025, 1, 2)),
            (2, 11, "dhl", date(2025, 1, 2)),
            (3, 12, "ups", date(2025, 1, 3)),
            (1, 10, "ups", date(2025, 1, 4)),
            (2, 11, "dhl", date(2025, 1, 4)),
        ]
        # no run after the first reads a table description: its query has the columns the
        # first run created the table with and recorded (engine/schema_change.sql), and looks
        # for no stage a stopped run left (none is named in the log, engine/stage.sql); the
        # package issues the state read, DESCRIBE QUERY, the insert and the state append, as
        # dbt-spark's append plus the run's record
        for statements in (second, model_statements(logs_dir, "shipment_log")):
            assert not [
                s
                for s in statements
                if s.lower().startswith(("describe table", "describe extended", "show tables"))
            ], statements
            # (an Iceberg state is refreshed first: its catalog caches a snapshot per session)
            issued = [s for s in statements if not s.startswith("refresh table")]
            assert len(issued) <= 4, statements
        # no interval state: each run is recorded as an empty range at its execution time
        assert state_rows(project, "shipment_log") == [
            (f"2025-01-0{d} 06:00:00", f"2025-01-0{d} 06:00:00", "processed") for d in (2, 3, 4)
        ]

    def test_a_stopped_run_s_stage_is_replayed_while_the_log_names_it(
        self, project: Any, logs_dir: str, table_format: str
    ) -> None:
        run("seed")
        run("run", "-s", "staged_log", vars={"load_id": 1, EXEC: "2025-01-02"})
        relation = f"{project.test_schema}.staged_log"
        # what a run killed inside a rewrite's swap leaves (engine/stage.sql): the `staging` row
        # it recorded first, its stage complete and marked, the table emptied by the swap; and
        # an older marked stage no pending row names (never replayed over newer rows)
        leave_stage(
            project,
            table_format,
            "staged_log",
            "staged_log__vulcan_stage_0123456789ab",
            f"select * from {relation} union all select 9, 99, 'fedex', date'2025-01-01'",
        )
        leave_stage(
            project,
            table_format,
            "staged_log",
            "staged_log__vulcan_stage_00000000beef",
            "select 7 as shipment_id, 77 as order_id, 'old' as carrier, "
            "date'2024-01-01' as logged_on",
            intent=False,
        )
        wipe = "truncate table" if table_format == "parquet" else "delete from"
        project.run_sql(f"{wipe} {relation}")
        run("run", "-s", "staged_log", vars={"load_id": 2, EXEC: "2025-01-03"})
        listed = [s for s in model_statements(logs_dir, "staged_log") if "show tables" in s]
        package = project.adapter.type() != "vulcan"
        # the package asks the metastore; the adapter reads dbt's relation cache
        assert len(listed) == (1 if package else 0), listed
        assert table_rows(project, "staged_log", COLUMNS, order_by="4, 1") == [
            (9, 99, "fedex", date(2025, 1, 1)),
            (1, 10, "ups", date(2025, 1, 2)),
            (2, 11, "dhl", date(2025, 1, 2)),
            (3, 12, "ups", date(2025, 1, 3)),
        ]
        assert not rows(project, f"show tables in {project.test_schema} like 'staged_log__*'")
        # its `processed` row settles the `staging` row: the next run looks for nothing
        assert [t for _, _, t in state_rows(project, "staged_log")][-2:] == [
            "staging",
            "processed",
        ]
        run("run", "-s", "staged_log", vars={"load_id": 2, EXEC: "2025-01-04"})
        statements = model_statements(logs_dir, "staged_log")
        assert not [s for s in statements if "show tables" in s], statements

    def test_restating_a_range_is_widened_to_a_rebuild(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "restated_log", vars={"load_id": 1, EXEC: "2025-01-02"})
        run("run", "-s", "restated_log", vars={"load_id": 2, EXEC: "2025-01-03"})
        args = "{select: restated_log, start: '2025-01-02', end: '2025-01-02'}"
        _, out = run_dbt_and_capture(["run-operation", "vulcan_restate", "--args", args])
        assert "model 'restated_log' (incremental_unmanaged) only supports full-history" in out
        assert "was widened to the whole history" in out
        # the next run starts the log again from this run's rows
        run("run", "-s", "restated_log", vars={"load_id": 2, EXEC: "2025-01-04"})
        got = table_rows(project, "restated_log", COLUMNS, order_by="4, 1")
        assert got == [(3, 12, "ups", date(2025, 1, 4))]

    def test_partitioned_table_appends(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "partitioned_log", vars={"load_id": 1, EXEC: "2025-01-02"})
        run("run", "-s", "partitioned_log", vars={"load_id": 2, EXEC: "2025-01-03"})
        got = table_rows(project, "partitioned_log", COLUMNS, order_by="4, 1")
        assert [r[0] for r in got] == [1, 2, 3]

    def test_full_refresh_rebuilds_and_disable_restatement_keeps(self, project: Any) -> None:
        run("seed")
        # full_refresh: true in its config makes every run after the first a full refresh
        run("run", "-s", "kept_log_forced", vars={"load_id": 1, EXEC: "2025-01-05"})
        for load in (1, 2):
            run("run", "-s", "shipment_log", "kept_log", vars={"load_id": load, EXEC: "2025-01-05"})
        run("run", "-s", "shipment_log", "--full-refresh", vars={"load_id": 2, EXEC: "2025-01-06"})
        assert table_rows(project, "shipment_log", COLUMNS) == [(3, 12, "ups", date(2025, 1, 6))]
        # --full-refresh skipped with a line: the run appends load 2 once more
        _, log = run_dbt_and_capture(
            ["run", "-s", "kept_log", "--full-refresh", "--vars", "{load_id: 2}"]
        )
        assert "Model 'kept_log': --full-refresh skipped (disable_restatement: true" in log
        assert [r[0] for r in table_rows(project, "kept_log", COLUMNS)] == [1, 2, 3, 3]
        result = run("run", "-s", "kept_log_forced", vars={"load_id": 2}, expect_pass=False)
        assert "sets full_refresh: true but has disable_restatement: true" in model_message(result)
        assert [r[0] for r in table_rows(project, "kept_log_forced", COLUMNS)] == [1, 2]

    def test_a_column_its_source_gains_reaches_the_table(self, project: Any, logs_dir: str) -> None:
        # the second run finds the table's columns equal to the query's and records them; the
        # third, whose query gained a column, compares with the table again and adds it
        for load, wide in ((1, False), (2, False), (3, True)):
            run("run", "-s", "evolving_src", "evolving_log", vars={"load_id": load, "wide": wide})
        statements = model_statements(logs_dir, "evolving_log")
        assert [s for s in statements if s.lower().startswith("alter table")], statements
        assert table_rows(project, "evolving_log", "load_id, note") == [
            (1, None),
            (2, None),
            (3, "x"),
        ]
        # the next run finds them equal and records them; the one after reads no description
        for _ in range(2):
            run("run", "-s", "evolving_log", vars={"load_id": 3})
        statements = model_statements(logs_dir, "evolving_log")
        assert not [
            s for s in statements if s.lower().startswith(("describe table", "describe extended"))
        ], statements

    def test_batch_size_is_refused_before_anything_is_created(self, project: Any) -> None:
        run("seed")
        result = run("run", "-s", "batched_log", expect_pass=False)
        message = model_message(result)
        assert "batched_log" in message
        assert "batch_size" in message and "incremental_unmanaged" in message
        assert not relation_exists(project, "batched_log")
