"""What a kind writes into a table that already exists, on every format and in both modes:
- a SELECT whose columns are reordered between runs (same names, same types) never moves a
  value into another column, alone or with an added column under each on_additive_change;
- a model converted in place from `table` to a kind is rebuilt as the kind's own, and after
  every later run its rows equal a clean build's; a model that keeps history stops instead.

Each step runs every model of a class in one dbt invocation."""

from __future__ import annotations

from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture, write_file

from tests.support.functional import STATE, model_message, rows, run

# id, step, d, a, b, updated_at: b is always a * 100 + 0.5, so a value written into the other
# column shows. Step 2 updates id 1 (to the day of step 2) and adds ids 4..6.
SOURCE = """
select * from values
  (1, 1, date'2025-01-01', 1.0D, 100.5D, timestamp'2025-01-01 00:00:00'),
  (2, 1, date'2025-01-02', 2.0D, 200.5D, timestamp'2025-01-02 00:00:00'),
  (3, 1, date'2025-01-03', 3.0D, 300.5D, timestamp'2025-01-03 00:00:00'),
  (1, 2, date'2025-01-04', 11.0D, 1100.5D, timestamp'2025-01-04 00:00:00'),
  (4, 2, date'2025-01-04', 4.0D, 400.5D, timestamp'2025-01-04 00:00:00'),
  (5, 2, date'2025-01-05', 5.0D, 500.5D, timestamp'2025-01-05 00:00:00'),
  (6, 2, date'2025-01-06', 6.0D, 600.5D, timestamp'2025-01-06 00:00:00')
  as t(id, step, d, a, b, updated_at)
"""
STEP_TIME = {1: "2025-01-04", 2: "2025-01-07"}
ORDER = "id, d, updated_at, a, b"
REORDERED = "id, d, updated_at, b, a"

TR = {"materialized": "incremental_by_time_range", "time_column": "d", "start": "2025-01-01"}
KINDS: dict[str, dict[str, Any]] = {
    "tr": TR,
    "part": {"materialized": "incremental_by_partition", "partitioned_by": ["d"]},
    "uk": {"materialized": "incremental_by_unique_key", "unique_key": "id"},
    "um": {"materialized": "incremental_unmanaged"},
    "scdt": {"materialized": "scd_type_2_by_time", "unique_key": "id"},
    "scdc": {"materialized": "scd_type_2_by_column", "unique_key": "id", "columns": ["a", "b"]},
}
# rows after step 1 and step 2, per kind (the time range keeps id 1's first day)
EXPECTED_ROWS = {
    "tr": (3, 7),
    "part": (3, 7),
    "uk": (3, 6),
    "um": (3, 7),
    "scdt": (3, 7),
    "scdc": (3, 7),
}


def body(select_list: str) -> str:
    return (
        f"select {select_list} from ({SOURCE}) as src\n"
        "{% if model.config.materialized == 'incremental_by_time_range' %}"
        "where d between @start_ds and @end_ds"
        "{% else %}where step = {{ var('step', 1) }}{% endif %}\n"
    )


def model_sql(config: dict[str, Any], select_list: str = ORDER) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in config.items())
    return "{{ config(" + args + ") }}\n" + body(select_list)


def step(number: int, *args: str, expect_pass: bool = True) -> Any:
    return run(
        "run",
        *args,
        vars={"step": number, "vulcan_execution_time": STEP_TIME[number]},
        expect_pass=expect_pass,
    )


def values(project: Any, name: str, columns: str = "id, d, a, b") -> list[tuple[Any, ...]]:
    return rows(project, f"select {columns} from {project.test_schema}.{name} order by 1, 2, 3")


def assert_no_value_moved(project: Any, name: str) -> None:
    for row_id, _d, a, b in values(project, name):
        assert b == a * 100 + 0.5, f"{name}: id {row_id} has a={a}, b={b}"


class TestReorderedSelect:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        found = {f"{name}.sql": model_sql(config) for name, config in KINDS.items()}
        for setting in ("allow", "warn", "ignore", "error"):
            found[f"tr_add_{setting}.sql"] = model_sql({**TR, "on_additive_change": setting})
        return found

    def test_reorder_moves_no_value_and_adds_columns_by_name(self, project: Any) -> None:
        step(1)
        for name in KINDS:
            write_file(
                model_sql(KINDS[name], REORDERED), project.project_root, "models", f"{name}.sql"
            )
        for setting in ("allow", "warn", "ignore", "error"):
            write_file(
                model_sql({**TR, "on_additive_change": setting}, REORDERED + ", 'x' as c"),
                project.project_root,
                "models",
                f"tr_add_{setting}.sql",
            )
        result = step(2, expect_pass=False)
        failed = {r.node.name for r in result.results if str(r.status) == "error"}
        assert failed == {"tr_add_error"}
        for name, (_first, second) in EXPECTED_ROWS.items():
            assert_no_value_moved(project, name)
            assert len(values(project, name)) == second, name
        assert rows(project, f"select a from {project.test_schema}.uk where id = 1") == [(11.0,)]
        for setting in ("allow", "warn", "ignore", "error"):
            name = f"tr_add_{setting}"
            assert_no_value_moved(project, name)
            columns = [
                str(r[0]).lower()
                for r in rows(project, f"describe {project.test_schema}.{name}")
                if r[0] and not str(r[0]).startswith("#")
            ]
            if setting in ("allow", "warn"):
                assert "c" in columns, name
                added = rows(
                    project, f"select count(*) from {project.test_schema}.{name} where c = 'x'"
                )
                assert added == [(4,)], name  # the new days carry it, the old ones are NULL
            else:
                assert "c" not in columns, name
            assert len(values(project, name)) == (3 if setting == "error" else 7), name


class TestConvertedFromTable:
    """`table` -> each kind, in place: rows equal a clean build (the *_clean twin, built by
    the kind from nothing) after every run."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        found = {}
        for name, config in KINDS.items():
            found[f"{name}.sql"] = model_sql({"materialized": "table"})
            found[f"{name}_clean.sql"] = model_sql(config)
        found["tr_forward.sql"] = model_sql({"materialized": "table"})
        return found

    def test_conversion_equals_a_clean_build_after_every_run(self, project: Any) -> None:
        # the `table` models hold step 2's rows (a table models reads the step filter), which
        # a clean build of step 1 does not have: only a rebuild gives the clean build's rows
        run("run", "-s", *KINDS, "tr_forward", vars={"step": 2})
        for name, config in KINDS.items():
            write_file(model_sql(config), project.project_root, "models", f"{name}.sql")
        write_file(
            model_sql({**TR, "forward_only": True}),
            project.project_root,
            "models",
            "tr_forward.sql",
        )
        selected = [*KINDS, *(f"{n}_clean" for n in KINDS)]
        _, logs = run_dbt_and_capture(
            ["run", "-s", *selected, "--vars", '{"step": 1, "vulcan_execution_time": "2025-01-04"}']
        )
        assert logs.count("has no dbt-vulcan state") == len(KINDS)
        self.assert_equal_to_clean(project)
        step(2, "-s", *selected)
        self.assert_equal_to_clean(project)

        # forward_only keeps what it finds: it stops, names the key and the fix, writes nothing
        before = values(project, "tr_forward")
        state_rows = rows(project, f"select count(*) from {STATE}")
        result = step(1, "-s", "tr_forward", expect_pass=False)
        message = model_message(result)
        assert "tr_forward" in message and "forward_only is true" in message
        assert "--full-refresh" in message
        assert values(project, "tr_forward") == before
        assert rows(project, f"select count(*) from {STATE}") == state_rows

    @staticmethod
    def assert_equal_to_clean(project: Any) -> None:
        for name in KINDS:
            columns = "id, d, a, b"
            if name.startswith("scd"):
                columns += ", valid_from, valid_to"
            assert values(project, name, columns) == values(project, f"{name}_clean", columns), name
