"""The environments part of the fresh-process benchmarks (benchmarks/environments.py): how a
statement is counted, a run's log read, the changed model's children, the change itself, the
goals, and several runs' results merged into one page (benchmarks/run.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from benchmarks import environments as env
from benchmarks.run import merged_results


@pytest.mark.parametrize(
    ("sql", "kind"),
    [
        ('/* {"app": "dbt"} */ insert into s.vulcan_intervals values (1)', "state append"),
        ("select relation, interval_start from s.vulcan_intervals", "state read"),
        ("insert overwrite table p.stg__ab partition (event_date) select 1", "data"),
        ("merge into t using s on t.id = s.id when matched then update set *", "data"),
        ("create table s.t using parquet partitioned by (event_date) as select 1", "data"),
        ("create or replace table s.t as (with a as (select 1) select * from a)", "data"),
        ("create or replace view s.stg_0_0 as select * from p.stg_0_0__ab", "view"),
        ("create temporary view t__dbt_tmp as select * from review", "view"),
        ("drop view if exists s.v", "view"),
        ("create table p.t (a int, b string) using parquet", "ddl"),
        ("drop table if exists s.t", "ddl"),
        ("create schema if not exists s", "ddl"),
        ("show table extended in s like '*'", "metadata"),
        ("describe table s.t", "metadata"),
        ("select * from s.t where false limit 0", "metadata"),
        ("", "metadata"),
    ],
)
def test_a_statement_is_counted_by_what_it_does(sql: str, kind: str) -> None:
    assert env.statement_kind(sql) == kind


def _event(name: str, ts: str, thread: str, **data: object) -> str:
    return json.dumps({"data": data, "info": {"name": name, "ts": ts, "thread": thread}})


def test_the_log_gives_every_statement_of_the_run_with_its_connection() -> None:
    lines = [
        _event("SQLQuery", "2026-01-01T00:00:00.000000Z", "Main", conn_name="master", sql="show"),
        _event("SQLQuery", "2026-01-01T00:00:00.500000Z", "T1", conn_name="model.b.m", sql="a"),
        "not json",
        _event("SQLQueryStatus", "2026-01-01T00:00:01.000000Z", "Main"),
        _event("SQLQueryStatus", "2026-01-01T00:00:03.000000Z", "T1"),
        _event("SQLQueryStatus", "2026-01-01T00:00:04.000000Z", "T2"),  # no statement: left out
    ]
    assert env.log_statements(lines) == [("master", "show", 1.0), ("model.b.m", "a", 2.5)]


def test_a_run_is_tallied_by_kind_with_the_models_that_wrote_rows() -> None:
    run = env.EnvRun("deploy", "vulcan", "dbt", 1, 10.0, "dbt run", 2)
    statements = [
        ("master", "show schemas", 0.5),
        ("model.bench.a", "insert into s.a select 1", 2.0),
        ("model.bench.a", "insert into s.vulcan_intervals values (1)", 0.25),
        ("model.bench.b", "create or replace view s.b as select 1", 0.5),
        ("model.bench.b", "create or replace view s.c as select 1", 0.25),
    ]
    tallied = env.tally(run, statements)
    assert tallied.statement_counts == {"metadata": 1, "data": 1, "state append": 1, "view": 2}
    assert tallied.statement_seconds["view"] == 0.75
    assert tallied.data_models == ["a"]


def test_the_changed_staging_models_children_are_its_marts_and_their_tops() -> None:
    models = env.models_of("vulcan")
    assert len(models) == 25
    assert env.descendants(models, env.CHANGED) == ["mart_0", "mart_9", "top_0", "top_4"]
    assert env.descendants(models, "top_0") == []


def test_the_change_multiplies_the_amounts_and_only_a_staging_model_takes_it() -> None:
    models = env.models_of("vulcan")
    changed = env.changed_sql(models[env.CHANGED], 3)
    assert "amount_cents * 3 as amount_cents" in changed
    assert changed.replace(" * 3 as amount_cents", "") == models[env.CHANGED]
    with pytest.raises(ValueError):
        env.changed_sql(models["top_0"], 3)


def _run(scenario: str, mode: str, side: str, wall: float, **counts: int) -> dict[str, Any]:
    return {
        "scenario": scenario,
        "mode": mode,
        "side": side,
        "rep": 1,
        "wall": wall,
        "command": "dbt run",
        "models": 25,
        "statement_counts": {k.replace("_", " "): v for k, v in counts.items()},
        "statement_seconds": {"view": 1.0},
        "data_models": [],
    }


def test_the_goals_are_no_data_statement_and_one_view_a_model() -> None:
    results = {
        "models": 25,
        "runs": [
            _run("deploy", "vulcan", "virtual", 20.0, view=25, state_read=1),
            _run("dev_unchanged", "vulcan", "virtual", 20.0, view=25),
            _run("deploy", "vulcan_package", "virtual", 20.0, view=25, data=1),
            _run("dev_unchanged", "vulcan_package", "virtual", 20.0, view=24),
        ],
    }
    assert [row[2:] for row in env.goals(results)] == [
        ["0", "yes"],
        ["0", "yes"],
        ["25", "yes"],
        ["1", "**no**"],
        ["0", "yes"],
        ["24", "**no**"],
    ]


def test_the_section_shows_each_side_against_dbts_wall() -> None:
    results = {
        "models": 25,
        "days": 3,
        "threads": 8,
        "changed": ["stg_0_0", "mart_0"],
        "checks": [{"what": "x", "ok": True, "values": {}}],
        "runs": [
            _run("deploy", "vulcan", "virtual", 20.0, view=25),
            _run("deploy", "vulcan", "dbt", 40.0, data=5),
        ],
        "_meta": {"command": "benchmarks/run.py --part environments", "total_seconds": 9},
    }
    page = "\n".join(env.section(results))
    assert "| dbt-vulcan, virtual layer, `type: vulcan` | `dbt run` | 20.0 s | 20.0 | 0.50x |" in (
        page
    )
    assert "Checks: 1 of 1 tables the same" in page
    assert "This part's run: `benchmarks/run.py --part environments` (9 s)" in page


def test_later_results_files_add_their_parts_to_the_first() -> None:
    first = {"cold": {"runs": [1], "problems": ["a"], "job": {"x": 1}}, "_meta": {"cpu": "A"}}
    later = {"cold": {"runs": [], "problems": ["b"], "environments": {"y": 2}}, "_meta": {"c": 1}}
    cold, meta = merged_results([first, later])
    assert meta == {"cpu": "A"}
    assert cold["runs"] == [1] and cold["job"] == {"x": 1}
    assert cold["environments"] == {"y": 2, "_meta": {"c": 1}}
    assert cold["problems"] == ["a", "b"]
