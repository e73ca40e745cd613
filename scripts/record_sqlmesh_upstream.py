"""Record SQLMesh's own answer to upstream-aware planning (tests/oracle/test_sqlmesh_upstream.py).

Each scenario is a parent and a child INCREMENTAL_BY_TIME_RANGE model (the child reads the
parent) run by SQLMesh's scheduler (`Context.run`, both models, its DuckDB engine: the interval
decisions do not depend on the engine) at a sequence of execution times; at some steps the
parent fails from a given time on. After every step the intervals SQLMesh recorded for both
models are written to tests/oracle/sqlmesh/upstream.json. The child has batch_size 1, so that
SQLMesh's unit of skipping (a child batch over a failed parent batch) is one interval, as in
dbt-vulcan's planning.

Not part of the test run: it needs SQLMesh, which the project does not depend on. In a venv of
its own:  python -m venv /tmp/sm && /tmp/sm/bin/pip install sqlmesh==0.236.4 &&
/tmp/sm/bin/python scripts/record_sqlmesh_upstream.py
"""

from __future__ import annotations

import json
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import sqlmesh
from sqlmesh import Context

OUT = Path(__file__).resolve().parents[1] / "tests" / "oracle" / "sqlmesh" / "upstream.json"

# an event every 30 minutes, 2025-04-01 .. 2025-04-04
EVENTS = (
    "create or replace table raw.events as select i as ev_id, "
    "timestamp '2025-04-01' + i * interval 30 minute as ts from range(0, 192) t(i)"
)

SCENARIOS: list[dict[str, Any]] = [
    {
        "name": "daily_over_hourly",
        "parent": {"cron": "@hourly", "batch_size": 6},
        "child": {"cron": "@daily"},
        "steps": [
            {"execution_time": "2025-04-03 00:05:00", "fail_from": "2025-04-02 23:00:00"},
            {"execution_time": "2025-04-03 05:00:00", "fail_from": "2025-04-02 23:00:00"},
            {"execution_time": "2025-04-03 06:00:00", "fail_from": None},
            {"execution_time": "2025-04-04 01:00:00", "fail_from": "2025-04-03 07:00:00"},
            {"execution_time": "2025-04-04 02:00:00", "fail_from": None},
        ],
    },
    {
        "name": "daily_over_hourly_one_batch",
        "parent": {"cron": "@hourly", "batch_size": 1},
        "child": {"cron": "@daily"},
        "steps": [
            {"execution_time": "2025-04-02 10:00:00", "fail_from": "2025-04-01 13:00:00"},
            {"execution_time": "2025-04-03 00:00:00", "fail_from": "2025-04-02 20:00:00"},
            {"execution_time": "2025-04-04 00:00:00", "fail_from": None},
        ],
    },
    {
        "name": "daily_over_daily_at_six",
        "parent": {"cron": "0 6 * * *", "batch_size": 1},
        "child": {"cron": "@daily"},
        "steps": [
            {"execution_time": "2025-04-02 00:05:00", "fail_from": None},
            {"execution_time": "2025-04-02 06:05:00", "fail_from": None},
            {"execution_time": "2025-04-03 00:05:00", "fail_from": None},
        ],
    },
    {
        "name": "hourly_over_daily",
        "parent": {"cron": "@daily", "batch_size": 1},
        "child": {"cron": "@hourly"},
        "steps": [
            {"execution_time": "2025-04-02 06:30:00", "fail_from": None},
            {"execution_time": "2025-04-03 03:00:00", "fail_from": "2025-04-02 00:00:00"},
            {"execution_time": "2025-04-04 00:00:00", "fail_from": None},
        ],
    },
]


def _model(name: str, cron: str, batch_size: int, query: str) -> str:
    return (
        f"MODEL (name sm.{name}, kind INCREMENTAL_BY_TIME_RANGE (time_column ts, "
        f"batch_size {batch_size}), cron '{cron}', start '2025-04-01');\n{query}\n"
    )


def _record(scenario: dict[str, Any]) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp())
    db = root / "db.duckdb"
    (root / "models").mkdir()
    (root / "config.yaml").write_text(
        "gateways:\n  local:\n    connection:\n      type: duckdb\n"
        f"      database: {db}\ndefault_gateway: local\nmodel_defaults:\n  dialect: duckdb\n"
    )
    fail = (
        "AND (CASE WHEN ts >= (SELECT fail_from FROM raw.ctl) "
        "THEN error('the parent failed') ELSE TRUE END)"
    )
    parent, child = scenario["parent"], scenario["child"]
    (root / "models" / "parent.sql").write_text(
        _model(
            "parent",
            parent["cron"],
            parent["batch_size"],
            f"SELECT ev_id, ts FROM raw.events WHERE ts BETWEEN @start_ts AND @end_ts {fail}",
        )
    )
    (root / "models" / "child.sql").write_text(
        _model(
            "child",
            child["cron"],
            1,
            "SELECT ev_id, ts FROM sm.parent WHERE ts BETWEEN @start_ts AND @end_ts",
        )
    )

    def sql(statement: str) -> None:
        con = duckdb.connect(str(db))
        con.execute(statement)
        con.close()

    sql("create schema if not exists raw")
    sql(EVENTS)
    sql("create or replace table raw.ctl as select timestamp '9999-12-31' as fail_from")
    ctx = Context(paths=str(root))
    ctx.plan(
        auto_apply=True, no_prompts=True, skip_backfill=True, execution_time="2025-04-01 00:00:00"
    )

    def intervals(name: str) -> list[list[str]]:
        def show(ms: int) -> str:
            return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")

        return [[show(a), show(b)] for a, b in ctx.get_snapshot(f"sm.{name}").intervals]

    steps = []
    for step in scenario["steps"]:
        sql(
            "create or replace table raw.ctl as select timestamp "
            f"'{step['fail_from'] or '9999-12-31'}' as fail_from"
        )
        ctx.run(execution_time=step["execution_time"])
        steps.append({**step, "parent": intervals("parent"), "child": intervals("child")})
    shutil.rmtree(root)
    return {**scenario, "steps": steps}


def main() -> None:
    recorded = {
        "sqlmesh": sqlmesh.__version__,
        "scenarios": [_record(s) for s in SCENARIOS],
    }
    OUT.write_text(json.dumps(recorded, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
