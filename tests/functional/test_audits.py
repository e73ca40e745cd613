"""Data audits on a real SparkSession, for every dbt-vulcan kind (--profile picks the format).

Each kind runs the same query over the seed `items`. With `--vars {bad: all}` the query also
returns rows that break every audit (one built-in audit each, plus a user-defined macro audit)
and changes every existing row, so a write that slipped through would show in the table.
`bad: soft` adds only rows with unique, non-null ids (a kind's own key checks stay quiet).

`table` and `view` are dbt built-ins: audits are a dbt-vulcan feature of its own kinds only.

Audits are Jinja (macros/audits/audit_parse.sql, audits.sql): the same in both modes, so this
module runs with `--mode package` too, on every kind.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture

from tests.support.functional import model_message, rows, run, state_rows, table_rows

EXEC = "vulcan_execution_time"


def items_csv() -> str:
    lines = ["id,ds,amount,status,qty"]
    for i in range(1, 21):
        day = (i - 1) // 2 + 1
        status = "new" if i % 2 else "shipped"
        lines.append(f"{i},2025-01-{day:02d},{i * 10.0},{status},{i % 5 + 1}")
    return "\n".join(lines) + "\n"


# (id, amount, status, qty) of the rows that break the audits; ds is the batch's last day
_BREAKING = [
    ("cast(null as int)", "10.0", "'new'", "1"),  # not_null
    ("1001", "10.0", "'new'", "1"),  # unique_values, unique_combination_of_columns
    ("1001", "10.0", "'new'", "1"),
]
_SOFT = [
    ("1002", "-5.0", "'new'", "1"),  # positive_values
    ("1003", "10.0", "'new'", "-1"),  # non_negative_values, accepted_range
    ("1004", "10.0", "'lost'", "1"),  # accepted_values
    ("1005", "5000.0", "'new'", "1"),  # no_big_amounts (user-defined)
    ("1006", "10.0", "'new'", "99"),  # accepted_range
]


def _bad_rows(rows_: list[tuple[str, str, str, str]]) -> str:
    return "\nunion all\n".join(
        f"select cast({i} as int) as id, cast(@end_ds as date) as ds, "
        f"cast({amount} as double) as amount, {status} as status, cast({qty} as int) as qty, "
        "cast(@end_ds as timestamp) as updated_at"
        for i, amount, status, qty in rows_
    )


BODY = (
    "select cast(id as int) as id, ds, "
    "cast(amount{% if var('bad', 'no') != 'no' %} + 1{% endif %} as double) as amount, status, "
    "cast(qty as int) as qty, "
    "cast(ds as timestamp){% if var('bad', 'no') != 'no' %} + interval 1 hour{% endif %}"
    " as updated_at\n"
    "from {{ ref('items') }}\n"
    "where ds between @start_ds and @end_ds\n"
    "{% if var('bad', 'no') == 'all' %}union all\n" + _bad_rows(_BREAKING) + "\n{% endif %}"
    "{% if var('bad', 'no') != 'no' %}union all\n" + _bad_rows(_SOFT) + "\n{% endif %}"
)

AUDIT_MACRO = """
{% macro audit_no_big_amounts(relation, column, limit) %}
  select * from {{ relation }} where {{ column }} > {{ limit }}
{% endmacro %}
"""


def audits_config(blocking: bool) -> str:
    """Every built-in audit (dict, call-string and alias forms) plus the user-defined one."""
    flag = "" if blocking else ", 'blocking': false"
    call_flag = "" if blocking else ", blocking=false"
    return (
        "["
        f"{{'name': 'not_null', 'columns': ['id', 'status']{flag}}}, "
        f"{{'name': 'unique_values', 'columns': ['id']{flag}}}, "
        f"{{'name': 'unique_combination_of_columns', 'columns': ['id', 'ds']{flag}}}, "
        f"'positive_values(column=amount{call_flag})', "
        f"{{'non_negative_values': {{'column': 'qty'{flag}}}}}, "
        f"{{'name': 'accepted_values', 'column': 'status', 'is_in': ['new', 'shipped']{flag}}}, "
        f"{{'name': 'accepted_range', 'column': 'qty', 'min': 0, 'max': 10{flag}}}, "
        f"{{'name': 'number_of_rows', 'threshold': var('min_rows', 0){flag}}}, "
        f"{{'name': 'no_big_amounts', 'column': 'amount', 'limit': 1000{flag}}}"
        "]"
    )


def model(config: dict[str, Any], audits: str | None = None, body: str = BODY) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in config.items())
    if audits is not None:
        args += f", audits={audits}"
    return "{{ config(" + args + ") }}\n" + body


# what the failing run reports: (label, offending rows) of every audit
EXPECTED_FAILURES = [
    ("not_null(columns=[id, status])", 1),
    ("unique_values(columns=[id])", 1),
    ("unique_combination_of_columns(columns=[id, ds])", 1),
    ("positive_values(column=amount)", 1),
    ("non_negative_values(column=qty)", 1),
    ("accepted_values(column=status, values=['new', 'shipped'])", 1),
    ("accepted_range(column=qty, min=0, max=10)", 2),
    ("number_of_rows(threshold=1000)", 1),
    ("no_big_amounts(column=amount, limit=1000)", 1),
]


def stages(project: Any) -> list[str]:
    return [
        str(r[1])
        for r in rows(project, f"show tables in {project.test_schema}")
        if "__vulcan_audit_" in str(r[1])
    ]


# An audit reads its batch from a stage table: Iceberg's own, parquet on every other format.
# On Delta only the MERGE kinds run here (their MERGE then reads the parquet stage); the other
# kinds' Delta writes of a query are those of test_time_range.py, test_partition.py and
# test_unmanaged.py, the same statements.
NOT_ON_DELTA = pytest.mark.profile_only("parquet", "iceberg")


class _AuditsOnKind:
    """The same scenario on each kind: a good run, a run whose every audit fails (nothing
    written), a good run again, and non-blocking audits that only warn."""

    CONFIG: dict[str, Any] = {}
    COLUMNS = "id, ds, amount, status, qty"
    BATCH = "(whole query)"  # the failing batch as the message names it

    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"items.csv": items_csv()}

    @pytest.fixture(scope="class")
    def macros(self) -> dict[str, str]:
        return {"audits.sql": AUDIT_MACRO}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "audited.sql": model(self.CONFIG, audits_config(blocking=True)),
            "warned.sql": model(self.CONFIG, audits_config(blocking=False)),
        }

    def snapshot(self, project: Any, name: str) -> tuple[list[Any], list[Any]]:
        return table_rows(project, name, self.COLUMNS, "1, 2, 3"), state_rows(project, name)

    def test_blocking_audits_fail_before_the_write(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "audited", vars={EXEC: "2025-01-04"})
        before = self.snapshot(project, "audited")
        assert before[0], "the passing run wrote rows"
        assert not stages(project)

        result = run(
            "run",
            "-s",
            "audited",
            vars={EXEC: "2025-01-06", "bad": "all", "min_rows": 1000},
            expect_pass=False,
        )
        message = model_message(result)
        for label, count in EXPECTED_FAILURES:
            noun = "offending row" + ("" if count == 1 else "s")
            assert re.search(
                rf"Audit {re.escape(label)} failed for model audited, batch \[1/1\] "
                rf"{re.escape(self.BATCH)}: {count} {noun}",
                message,
            ), (label, message)
        assert "id: None" in message  # a sample of the not_null offender
        assert "qty: 99" in message and "status: 'lost'" in message
        assert "Nothing of this batch was written" in message
        assert self.snapshot(project, "audited") == before
        assert not stages(project)

        # a killed run's audit stage (its invocation in the name) is dropped by the next run
        stale = f"{project.test_schema}.audited__vulcan_audit_0123456789ab"
        project.run_sql(f"create table {stale} using parquet as select 1 as id")
        assert stages(project) == ["audited__vulcan_audit_0123456789ab"]

        # the data is fixed: the same run goes through
        run("run", "-s", "audited", vars={EXEC: "2025-01-06"})
        after = self.snapshot(project, "audited")
        assert len(after[0]) >= len(before[0])
        assert {r[0] for r in after[0]} <= set(range(1, 21))
        assert not stages(project)

    def test_non_blocking_audits_warn_and_write(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "warned", vars={EXEC: "2025-01-04"})
        _, log = run_dbt_and_capture(
            [
                "run",
                "-s",
                "warned",
                "--vars",
                '{"vulcan_execution_time": "2025-01-06", "bad": "soft", "min_rows": 1000}',
            ]
        )
        for label in (
            "positive_values(column=amount)",
            "non_negative_values(column=qty)",
            "accepted_values(column=status, values=['new', 'shipped'])",
            "accepted_range(column=qty, min=0, max=10)",
            "number_of_rows(threshold=1000)",
            "no_big_amounts(column=amount, limit=1000)",
        ):
            assert f"Audit {label} (non-blocking) failed for model warned" in log, label
        assert "Audit not_null" not in log
        ids = {r[0] for r in table_rows(project, "warned", self.COLUMNS, "1, 2, 3")}
        assert {1002, 1003, 1004, 1005, 1006} <= ids
        assert not stages(project)


@NOT_ON_DELTA
class TestAuditsTimeRange(_AuditsOnKind):
    CONFIG = {
        "materialized": "incremental_by_time_range",
        "time_column": "ds",
        "start": "2025-01-01",
    }

    BATCH = "2025-01-04 - 2025-01-05"


class TestAuditsUniqueKey(_AuditsOnKind):
    CONFIG = {"materialized": "incremental_by_unique_key", "unique_key": "id"}


@NOT_ON_DELTA
class TestAuditsPartition(_AuditsOnKind):
    CONFIG = {"materialized": "incremental_by_partition", "partitioned_by": "ds"}


@NOT_ON_DELTA
class TestAuditsUnmanaged(_AuditsOnKind):
    CONFIG = {"materialized": "incremental_unmanaged"}


class TestAuditsScd2ByTime(_AuditsOnKind):
    CONFIG = {"materialized": "scd_type_2_by_time", "unique_key": "id"}


class TestAuditsTracked(_AuditsOnKind):
    CONFIG = {"materialized": "tracked", "group_key": "id"}


@NOT_ON_DELTA
class TestGrainsAndConfig:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"items.csv": items_csv()}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        tr = {
            "materialized": "incremental_by_time_range",
            "time_column": "ds",
            "start": "2025-01-01",
        }
        rand_body = "select id, ds, rand() as r from {{ ref('items') }}"
        return {
            "grain_on.sql": model({**tr, "grains": ["id"]}),
            "grain_off.sql": model({**tr, "grains": ["id"], "grains_audit": False}),
            "grain_explicit.sql": model(
                {**tr, "grains": ["id"]},
                "[{'name': 'unique_values', 'columns': ['id'], 'blocking': false}]",
            ),
            "unknown_audit.sql": model(tr, "[{'name': 'no_such_audit'}, 'not_null(colums=[id])']"),
            # lookback 0: the batch is exactly the new day
            "scoped.sql": model({**tr, "lookback": 0}, "['number_of_rows(threshold := 5)']"),
            "random.sql": model(
                {"materialized": "incremental_unmanaged"},
                "[{'name': 'accepted_range', 'column': 'r', 'max': 0.5, 'blocking': false}]",
                rand_body,
            ),
        }

    def test_grains_imply_a_blocking_uniqueness_audit(self, project: Any) -> None:
        run("seed")
        vars_ = {EXEC: "2025-01-04", "bad": "all"}
        result = run("run", "-s", "grain_on", vars=vars_, expect_pass=False)
        message = model_message(result)
        assert (
            "Audit unique_combination_of_columns(columns=[id]) (from grains) failed for model "
            "grain_on, batch [1/1] 2025-01-01 - 2025-01-03: 1 offending row, "
            "e.g. {id: 1001, row_count: 2}"
        ) in message
        assert table_rows(project, "grain_on") == []
        assert state_rows(project, "grain_on") == []
        # turned off: the same data is written
        run("run", "-s", "grain_off", vars=vars_)
        assert len(table_rows(project, "grain_off")) == 6 + 8
        # an explicit non-blocking uniqueness audit on the grain replaces the implied one
        _, log = run_dbt_and_capture(
            [
                "run",
                "-s",
                "grain_explicit",
                "--vars",
                '{"vulcan_execution_time": "2025-01-04", "bad": "all"}',
            ]
        )
        assert "Audit unique_values(columns=[id]) (non-blocking) failed" in log
        assert "(from grains)" not in log
        assert len(table_rows(project, "grain_explicit")) == 14

    def test_bad_audit_config_fails_before_any_write(self, project: Any) -> None:
        result = run("run", "-s", "unknown_audit", vars={EXEC: "2025-01-04"}, expect_pass=False)
        message = model_message(result)
        assert "Invalid audits for model 'unknown_audit', 2 problem(s)" in message
        assert "unknown audit 'no_such_audit'" in message
        assert "not_null, unique_values, unique_combination_of_columns" in message
        assert "audit_no_such_audit" in message
        assert "not_null takes no argument 'colums'" in message
        tables = [str(r[1]) for r in rows(project, f"show tables in {project.test_schema}")]
        assert "unknown_audit" not in tables

    def test_audits_see_only_the_batch(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "scoped", vars={EXEC: "2025-01-04"})  # 6 rows > 5
        # one more day: the table would hold 8 rows, but the batch holds 2
        result = run("run", "-s", "scoped", vars={EXEC: "2025-01-05"}, expect_pass=False)
        assert (
            "Audit number_of_rows(threshold=5) failed for model scoped, batch [1/1] "
            "2025-01-04 - 2025-01-04: 1 offending row, e.g. {row_count: 2}"
        ) in model_message(result)
        assert len(table_rows(project, "scoped")) == 6
        assert [r[:2] for r in state_rows(project, "scoped")] == [
            ("2025-01-01 00:00:00", "2025-01-04 00:00:00")
        ]

    def test_batch_is_computed_once(self, project: Any) -> None:
        # rand() differs on every evaluation: the offending rows the audit saw are exactly
        # the rows written, so the write read the audited stage instead of recomputing
        run("seed")
        _, log = run_dbt_and_capture(
            ["run", "-s", "random", "--vars", '{"vulcan_execution_time": "2025-01-11"}']
        )
        seen = {
            (int(i), float(r))
            for i, r in re.findall(r"\{id: (\d+), ds: '[^']*', r: ([0-9.eE-]+)\}", log)
        }
        assert seen, log
        written = {(r[0], r[1]) for r in table_rows(project, "random", "id, r")}
        assert seen <= written
        match = re.search(
            r"accepted_range\(column=r, max=0.5\) \(non-blocking\) failed for "
            r"model random, batch \[1/1\] [^:]*: (\d+) offending rows",
            log,
        )
        assert match
        assert int(match.group(1)) == sum(1 for _, r in written if r > 0.5)
