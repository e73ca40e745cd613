"""scd_type_2_by_time / scd_type_2_by_column on a real SparkSession (--profile picks the format).

Every scenario is a sequence of real `dbt run`s with a pinned execution time; between runs the
test rewrites the source table, and after each run it compares the whole SCD2 table with the
rows written out in scd2_fixtures.py (the spec's example tables).
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any

import pytest
from dbt.tests.util import get_connection, run_dbt_and_capture

from tests.support import scd2_fixtures as fx
from tests.support.functional import (
    model_message,
    processed_rows,
    rows,
    run,
    table_commits,
    table_rows,
)

EXEC = "vulcan_execution_time"
BY_TIME = "scd_type_2_by_time"
BY_COLUMN = "scd_type_2_by_column"
MENU = "id, name, price, updated_at, valid_from, valid_to"
MENU_COLUMNS = "id, name, price, valid_from, valid_to"


def model(kind: str, body: str, **config: Any) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in {"materialized": kind, **config}.items())
    return "{{ config(" + args + ") }}\n" + body


def source(name: str, columns: str = "*", where: str = "") -> str:
    return f"select {columns} from {{{{ target.schema }}}}.{name}{where}\n"


def expected(table: str) -> list[tuple[Any, ...]]:
    return fx.parse(table)[1]


def scd(project: Any, name: str, columns: str = MENU, order_by: str = "1, valid_from") -> list:
    return table_rows(project, name, columns, order_by)


def ts(text: str) -> datetime:
    return datetime.fromisoformat(text)


class TestMenuByTime:
    """The spec's "SCD Type 2 by time in action" and "Deletes" tables."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        body = source("menu", "id, name, price, updated_at")
        return {
            "time_hard.sql": model(BY_TIME, body, unique_key="id", invalidate_hard_deletes=True),
            "time_soft.sql": model(BY_TIME, body, unique_key="id"),
            "time_back.sql": model(
                BY_TIME, source("menu_back"), unique_key="id", invalidate_hard_deletes=True
            ),
            "time_literal.sql": model(
                BY_TIME, source("menu_literal"), unique_key="id", invalidate_hard_deletes=True
            ),
            "time_named.sql": model(
                BY_TIME,
                source("menu", "id, name, price, updated_at as my_updated_at"),
                unique_key=["id"],
                updated_at_name="my_updated_at",
                valid_from_name="my_valid_from",
                valid_to_name="my_valid_to",
                invalidate_hard_deletes=True,
            ),
            "time_asvf.sql": model(BY_TIME, body, unique_key="id", updated_at_as_valid_from=True),
        }

    def load(self, project: Any, menu: str, back: str | None = None, lit: str | None = None):
        fx.load(project, "menu", menu)
        fx.load(project, "menu_back", back or menu)
        fx.load(project, "menu_literal", lit or menu)

    def test_three_runs(self, project: Any, table_format: str) -> None:
        self.load(project, fx.MENU_1)
        run("run", vars={EXEC: "2020-01-01 11:00:00"})
        for name in ("time_hard", "time_soft", "time_back", "time_literal"):
            assert scd(project, name) == expected(fx.TIME_1), name
        # the table: the query's columns, then valid_from, valid_to
        with get_connection(project.adapter):
            found = project.adapter.get_relation(None, project.test_schema, "time_hard")
            columns = [c.name for c in project.adapter.get_columns_in_relation(found)]
        assert columns == ["id", "name", "price", "updated_at", "valid_from", "valid_to"]
        # updated_at_as_valid_from: the first load starts at updated_at, not 1970
        assert [r[4] for r in scd(project, "time_asvf")] == [ts("2020-01-01")] * 3

        self.load(project, fx.MENU_2)
        run("run", vars={EXEC: "2020-01-02 11:00:00"})
        assert scd(project, "time_hard") == expected(fx.TIME_HARD_2)
        assert scd(project, "time_soft") == expected(fx.TIME_SOFT_2)

        self.load(project, fx.MENU_3, back=fx.MENU_3_BACK, lit=fx.MENU_3_LITERAL)
        run("run", vars={EXEC: "2020-01-03 11:00:00"})
        assert scd(project, "time_hard") == expected(fx.TIME_HARD_3)
        assert scd(project, "time_soft") == expected(fx.TIME_SOFT_3)
        assert scd(project, "time_back") == expected(fx.TIME_BACK_3)
        assert scd(project, "time_literal") == expected(fx.TIME_LITERAL_3)
        named = "id, name, price, my_updated_at, my_valid_from, my_valid_to"
        assert scd(project, "time_named", named, "1, my_valid_from") == expected(fx.TIME_HARD_3)
        # updated_at_as_valid_from: as time_soft, but the first load starts at updated_at
        first_load = {ts("1970-01-01"): ts("2020-01-01")}
        assert scd(project, "time_asvf") == [
            (*r[:4], first_load.get(r[4], r[4]), r[5]) for r in expected(fx.TIME_SOFT_3)
        ]

        # nothing changed: a rerun writes nothing new (Delta: no commit; Iceberg: its MERGE's
        # empty snapshot, apache/iceberg#9024, no data file)
        commits = table_commits(project, "time_hard", table_format)
        run("run", "-s", "time_hard", vars={EXEC: "2020-01-04 11:00:00"})
        assert scd(project, "time_hard") == expected(fx.TIME_HARD_3)
        after = table_commits(project, "time_hard", table_format)
        if table_format == "delta":
            assert after == commits
        elif table_format == "iceberg":
            assert [c.get("added-data-files", "0") for c in after[len(commits) :]] in ([], ["0"])


class TestMenuByColumn:
    """The spec's "SCD Type 2 by column in action" table, and the default for deletes."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        body = source("menu", "id, name, price")
        return {
            "column_hard.sql": model(
                BY_COLUMN,
                body,
                unique_key="id",
                columns=["name", "price"],
                invalidate_hard_deletes=True,
            ),
            "column_soft.sql": model(BY_COLUMN, body, unique_key="id", columns="*"),
            "column_date.sql": model(
                BY_COLUMN,
                body,
                unique_key="id",
                columns=["name", "price"],
                invalidate_hard_deletes=True,
                time_data_type="date",
            ),
            "column_exec.sql": model(
                BY_COLUMN,
                body,
                unique_key="id",
                columns=["price"],
                execution_time_as_valid_from=True,
            ),
        }

    def test_three_runs(self, project: Any) -> None:
        fx.load(project, "menu", fx.MENU_1)
        run("run", vars={EXEC: "2020-01-01 11:00:00"})
        assert scd(project, "column_hard", MENU_COLUMNS) == expected(fx.COLUMN_1)
        assert scd(project, "column_soft", MENU_COLUMNS) == expected(fx.COLUMN_1)
        # execution_time_as_valid_from: the first load starts at the execution time
        first = [r[3] for r in scd(project, "column_exec", MENU_COLUMNS)]
        assert first == [ts("2020-01-01 11:00:00")] * 3

        fx.load(project, "menu", fx.MENU_2)
        run("run", vars={EXEC: "2020-01-02 11:00:00"})
        assert scd(project, "column_hard", MENU_COLUMNS) == expected(fx.COLUMN_HARD_2)

        fx.load(project, "menu", fx.MENU_3)
        run("run", vars={EXEC: "2020-01-03 11:00:00"})
        assert scd(project, "column_hard", MENU_COLUMNS) == expected(fx.COLUMN_HARD_3)
        assert scd(project, "column_soft", MENU_COLUMNS) == expected(fx.COLUMN_SOFT_3)
        # time_data_type date: the same history, by day
        assert scd(project, "column_date", MENU_COLUMNS) == [
            (*r[:3], r[3].date(), r[4] and r[4].date()) for r in expected(fx.COLUMN_HARD_3)
        ]
        # only price is watched: the rename of id 4 is not a new version
        exec_rows = scd(project, "column_exec", MENU_COLUMNS)
        assert [(r[0], r[1], r[2]) for r in exec_rows if r[4] is None] == [
            (1, "Chicken Sandwich", 14.99),
            (2, "Cheeseburger", 8.99),
            (3, "French Fries", 4.99),
            (4, "Milkshake", 3.99),
        ]


class TestHistoricalSource:
    """The spec's "Processing source table with historical data": one interval at a time."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        where = " where ds between @start_ds and @end_ds"
        history = {
            "unique_key": "id",
            "columns": ["some_value"],
            "updated_at_name": "ds",
            "batch_size": 1,
            "start": "2025-01-01",
            "cron": "@daily",
        }
        return {
            "history.sql": model(
                BY_COLUMN, source("snapshots", "id, some_value, ds", where), **history
            ),
            "history_deletes.sql": model(
                BY_COLUMN,
                source("snapshots_deletes", "id, some_value, ds", where),
                invalidate_hard_deletes=True,
                **history,
            ),
        }

    def test_daily_snapshots_in_order(self, project: Any) -> None:
        fx.load(project, "snapshots", fx.SNAPSHOTS)
        fx.load(project, "snapshots_deletes", fx.SNAPSHOTS_DELETES)
        _, log = run_dbt_and_capture(["run", "--vars", '{"vulcan_execution_time": "2025-01-05"}'])
        assert "[4/4]" in log
        columns = "id, some_value, ds, valid_from, valid_to"
        assert scd(project, "history", columns) == expected(fx.HISTORY)
        assert scd(project, "history_deletes", columns) == expected(fx.HISTORY_DELETES)
        # one tracked interval per batch, in order
        assert processed_rows(project, "history") == [
            (f"2025-01-0{d} 00:00:00", f"2025-01-0{d + 1} 00:00:00") for d in range(1, 5)
        ]

        # the next day: only the new interval runs
        fx.load(project, "snapshots", fx.SNAPSHOTS + "| 1  | 4          | 2025-01-05 |\n")
        run("run", "-s", "history", vars={EXEC: "2025-01-06 01:00:00"})
        assert processed_rows(project, "history")[4:] == [
            ("2025-01-05 00:00:00", "2025-01-06 00:00:00")
        ]
        assert scd(project, "history", columns)[-2:] == [
            (1, 3, date(2025, 1, 3), ts("2025-01-03"), ts("2025-01-05")),
            (1, 4, date(2025, 1, 5), ts("2025-01-05"), None),
        ]
        # nothing due: nothing runs
        run("run", "-s", "history", vars={EXEC: "2025-01-06 02:00:00"})
        assert len(processed_rows(project, "history")) == 5


NULLS_1 = """
| id | a    | b    |
| -- | ---- | ---- |
| 1  | x    | NULL |
| 2  | NULL | 5    |
"""
NULLS_2 = """
| id | a    | b    |
| -- | ---- | ---- |
| 1  | x    | NULL |
| 2  | y    | NULL |
"""
NULLS_3 = """
| id | a    | b    |
| -- | ---- | ---- |
| 1  | NULL | NULL |
| 2  | y    | NULL |
"""
NULL_TYPES = {"a": "string", "b": "int", "region": "string", "code": "string"}


class TestEdgeCases:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "nulls_column.sql": model(BY_COLUMN, source("nulls"), unique_key="id", columns="*"),
            # by time over the same rows, updated_at = the run's day
            "nulls_time.sql": model(
                BY_TIME,
                source(
                    "nulls",
                    '*, cast(\'{{ var("day", "2020-01-01") }}\' as timestamp) as updated_at',
                ),
                unique_key="id",
            ),
            "composite.sql": model(
                BY_TIME,
                source("prices"),
                unique_key=["region", "code"],
                invalidate_hard_deletes=True,
            ),
            "expression_key.sql": model(
                BY_COLUMN,
                source("prices", "region, code, price"),
                unique_key=["region", "lower(code)"],
                columns=["price"],
            ),
            "dups_time.sql": model(BY_TIME, source("dups"), unique_key="id"),
            "dups_column.sql": model(
                BY_COLUMN, source("dups", "id, name"), unique_key="id", columns="*"
            ),
            "protected.sql": model(BY_TIME, source("dups"), unique_key="id"),
            "resettable.sql": model(
                BY_TIME, source("dups"), unique_key="id", disable_restatement=False
            ),
            "evolving.sql": model(BY_TIME, source("evolve"), unique_key="id"),
            "bad_config.sql": model(
                BY_COLUMN,
                source("dups", "id, name, updated_at as valid_from"),
                unique_key=["id", "missing_key"],
                columns=["name", "nope"],
            ),
        }

    def test_null_transitions_are_changes_and_old_nulls_stay(self, project: Any) -> None:
        steps = [(NULLS_1, "2020-01-01"), (NULLS_2, "2020-01-02"), (NULLS_3, "2020-01-03")]
        for table, day in steps:
            fx.load(project, "nulls", table, NULL_TYPES)
            run(
                "run",
                "-s",
                "nulls_column",
                "nulls_time",
                vars={EXEC: f"{day} 11:00:00", "day": day},
            )
        t2, t3 = ts("2020-01-02 11:00:00"), ts("2020-01-03 11:00:00")
        epoch = ts("1970-01-01")
        assert scd(project, "nulls_column", "id, a, b, valid_from, valid_to") == [
            (1, "x", None, epoch, t3),
            (1, None, None, t3, None),  # value -> NULL
            (2, None, 5, epoch, t2),
            (2, "y", None, t2, None),  # NULL -> value, value -> NULL
        ]
        # by time: every run is a new version; closed versions keep their own NULLs
        assert scd(project, "nulls_time", "id, a, b, valid_from, valid_to") == [
            (1, "x", None, epoch, ts("2020-01-02")),
            (1, "x", None, ts("2020-01-02"), ts("2020-01-03")),
            (1, None, None, ts("2020-01-03"), None),
            (2, None, 5, epoch, ts("2020-01-02")),  # not filled with the new version's 'y'
            (2, "y", None, ts("2020-01-02"), ts("2020-01-03")),
            (2, "y", None, ts("2020-01-03"), None),
        ]

    def test_composite_and_expression_keys(self, project: Any) -> None:
        types = {"region": "string", "code": "string"}
        fx.load(
            project,
            "prices",
            """
            | region | code | price | updated_at          |
            | eu     | A    | 1.0   | 2020-01-01 00:00:00 |
            | us     | A    | 2.0   | 2020-01-01 00:00:00 |
            | eu     | B    | 3.0   | 2020-01-01 00:00:00 |
            """,
            types,
        )
        run("run", "-s", "composite", "expression_key", vars={EXEC: "2020-01-01 11:00:00"})
        fx.load(
            project,
            "prices",
            """
            | region | code | price | updated_at          |
            | eu     | a    | 1.5   | 2020-01-02 00:00:00 |
            | us     | A    | 2.0   | 2020-01-01 00:00:00 |
            """,
            types,
        )
        run("run", "-s", "composite", "expression_key", vars={EXEC: "2020-01-02 11:00:00"})
        epoch, t2 = ts("1970-01-01"), ts("2020-01-02 11:00:00")
        # (eu, a) is a new key next to (eu, A), which is gone; (us, A) untouched
        assert scd(
            project, "composite", "region, code, price, valid_from, valid_to", "1, 2, 4"
        ) == [
            ("eu", "A", 1.0, epoch, t2),
            ("eu", "B", 3.0, epoch, t2),
            ("eu", "a", 1.5, ts("2020-01-02"), None),
            ("us", "A", 2.0, epoch, None),
        ]
        # lower(code): (eu, a) is the same key as (eu, A): a new version of it
        cols = "region, code, price, valid_from, valid_to"
        assert scd(project, "expression_key", cols, "1, lower(code), 4") == [
            ("eu", "A", 1.0, epoch, t2),
            ("eu", "a", 1.5, t2, None),
            ("eu", "B", 3.0, epoch, None),
            ("us", "A", 2.0, epoch, None),
        ]

    def test_duplicate_keys(self, project: Any) -> None:
        fx.load(
            project,
            "dups",
            """
            | id | name | updated_at          |
            | 1  | old  | 2020-01-01 00:00:00 |
            | 1  | new  | 2020-01-02 00:00:00 |
            | 2  | only | 2020-01-01 00:00:00 |
            """,
        )
        # by time: the latest updated_at wins
        run("run", "-s", "dups_time", vars={EXEC: "2020-01-03"})
        assert scd(project, "dups_time", "id, name, valid_from, valid_to") == [
            (1, "new", ts("1970-01-01"), None),
            (2, "only", ts("1970-01-01"), None),
        ]
        # by column: a duplicate key is an error that names model, key and value
        result = run("run", "-s", "dups_column", vars={EXEC: "2020-01-03"}, expect_pass=False)
        message = model_message(result)
        assert "dups_column" in message and "unique_key (id) = (1)" in message, message
        assert scd(project, "dups_column", "id, name, valid_from, valid_to") == []
        # by time, two rows with the same latest updated_at: error, table unchanged
        fx.load(
            project,
            "dups",
            """
            | id | name | updated_at          |
            | 1  | a    | 2020-01-05 00:00:00 |
            | 1  | b    | 2020-01-05 00:00:00 |
            """,
        )
        result = run("run", "-s", "dups_time", vars={EXEC: "2020-01-06"}, expect_pass=False)
        message = model_message(result)
        assert "dups_time" in message and "same latest updated_at" in message, message
        assert scd(project, "dups_time", "id, name, valid_from, valid_to") == [
            (1, "new", ts("1970-01-01"), None),
            (2, "only", ts("1970-01-01"), None),
        ]

    def test_full_refresh_protected_by_default_and_reset_when_allowed(self, project: Any) -> None:
        day1 = """
            | id | name | updated_at          |
            | 1  | a    | 2020-01-01 00:00:00 |
            """
        day2 = """
            | id | name | updated_at          |
            | 1  | b    | 2020-01-02 00:00:00 |
            """
        fx.load(project, "dups", day1)
        run("run", "-s", "protected", "resettable", vars={EXEC: "2020-01-01 11:00:00"})
        fx.load(project, "dups", day2)
        run("run", "-s", "protected", "resettable", vars={EXEC: "2020-01-02 11:00:00"})
        history = [
            (1, "a", ts("1970-01-01"), ts("2020-01-02")),
            (1, "b", ts("2020-01-02"), None),
        ]
        # dbt's convention (as for its snapshots): a project-wide --full-refresh leaves the
        # history alone, runs the model incrementally and says so
        _, log = run_dbt_and_capture(
            ["run", "-s", "protected", "--full-refresh", "--vars", f"{{{EXEC}: '2020-01-03'}}"]
        )
        assert (
            "Model 'protected': --full-refresh skipped (disable_restatement: true: its history "
            "is kept)" in log
        )
        assert scd(project, "protected", "id, name, valid_from, valid_to") == history
        # disable_restatement: false: the documented reset, history starts again
        run("run", "-s", "resettable", "--full-refresh", vars={EXEC: "2020-01-03"})
        assert scd(project, "resettable", "id, name, valid_from, valid_to") == [
            (1, "b", ts("1970-01-01"), None)
        ]
        # vulcan_restate: refused while disable_restatement is true; else the next run rebuilds
        fx.load(project, "dups", day2.replace("| b    | 2020-01-02", "| c    | 2020-01-04"))
        restate = {"start": "2020-01-01", "end": "2020-01-02"}
        _, log = run_dbt_and_capture(
            [
                "run-operation",
                "vulcan_restate",
                "--args",
                json.dumps({"select": "protected", **restate}),
            ],
            expect_pass=False,
        )
        assert "disable_restatement" in log, log
        run(
            "run-operation",
            "vulcan_restate",
            "--args",
            json.dumps({"select": "resettable", **restate}),
        )
        run("run", "-s", "protected", "resettable", vars={EXEC: "2020-01-05"})
        assert scd(project, "resettable", "id, name, valid_from, valid_to") == [
            (1, "c", ts("1970-01-01"), None)
        ]
        assert scd(project, "protected", "id, name, valid_from, valid_to") == [
            *history[:1],
            (1, "b", ts("2020-01-02"), ts("2020-01-04")),
            (1, "c", ts("2020-01-04"), None),
        ]

    def test_a_new_source_column_is_added_to_the_table(self, project: Any) -> None:
        fx.load(
            project,
            "evolve",
            """
            | id | name | updated_at          |
            | 1  | a    | 2020-01-01 00:00:00 |
            """,
        )
        run("run", "-s", "evolving", vars={EXEC: "2020-01-01 11:00:00"})
        fx.load(
            project,
            "evolve",
            """
            | id | name | updated_at          | extra |
            | 1  | b    | 2020-01-02 00:00:00 | x     |
            """,
            {"extra": "string"},
        )
        run("run", "-s", "evolving", vars={EXEC: "2020-01-02 11:00:00"})
        assert scd(project, "evolving", "id, name, extra, valid_from, valid_to") == [
            (1, "a", None, ts("1970-01-01"), ts("2020-01-02")),
            (1, "b", "x", ts("2020-01-02"), None),
        ]

    def test_config_errors_name_every_problem(self, project: Any) -> None:
        fx.load(
            project,
            "dups",
            """
            | id | name | updated_at          |
            | 1  | a    | 2020-01-01 00:00:00 |
            """,
        )
        result = run("run", "-s", "bad_config", vars={EXEC: "2020-01-02"}, expect_pass=False)
        message = model_message(result)
        assert "'missing_key' is not a column" in message, message
        assert "'nope' is not a column" in message, message
        assert "valid_from_name" in message, message
        assert rows(project, f"show tables in {project.test_schema} like 'bad_config'") == []
