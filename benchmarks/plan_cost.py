"""The plan query's cost in a fresh JVM, against a plain read of the same state rows.

Every dbt run of a time-range model is a new process whose first statements run in a cold JVM:
there, each distinct operator of a query costs JIT compilation and code generation, and each
stage a job. This measures what the planner (macros/planning/plan_intervals.sql) costs on top
of what the Python planner of earlier versions paid (one SELECT of the relation's log rows):

    .venv/bin/python benchmarks/plan_cost.py [--repeat 3] [--workdir DIR]

It builds a state log in DIR (a daily model's 365 processed days, one row per day), then, per
repetition and per query, starts a fresh Python process with its own SparkSession (parquet,
embedded, as the cold suite), issues dbt's first statement (a listing of the state schema,
untimed) and times ONE query: `read` (the relation's rows) or `plan` (the plan of the next
daily run: one new day due). Printed per query: medians of the JVM's CPU seconds (utime +
stime of the Spark driver, from /proc: they inflate less than wall time when the machine is
shared), of the wall time, and the number of Spark jobs. Not a test: numbers for
benchmarks/FINDINGS_COLD.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

RELATION = "bench.daily"
STATE = "vulcan_state.vulcan_intervals"
FIRST_DAY = datetime(2025, 1, 1)
DAYS = 365


def plan_params() -> dict[str, Any]:
    """The daily model's next run: every day processed but the last one."""
    return {
        "start": FIRST_DAY.isoformat(" "),
        "end": None,
        "unit": "day",
        "week_start": 0,
        "due_end": (FIRST_DAY + timedelta(days=DAYS + 1)).isoformat(" "),
        "allow_partials": False,
        "lookback": 0,
        "batch_size": None,
        "explicit": None,
        "rebuild": False,
    }


def queries() -> dict[str, str]:
    from tests.unit.macro_harness import Harness

    plan = Harness().call("vulcan_plan_intervals_sql", STATE, RELATION, plan_params())
    return {"read": f"select * from {STATE} where relation = '{RELATION}'", "plan": plan}


def _session(workdir: Path) -> Any:
    from benchmarks.scenarios import build_session
    from tests.spark_targets import server_side_parameters

    return build_session(server_side_parameters("parquet", workdir))


def setup(workdir: Path) -> None:
    """The state log: one processed row per day, appended in 12 statements (12 files)."""
    from dbt.adapters.vulcan.state import StateRow
    from dbt.adapters.vulcan.state_cache import values_sql

    spark = _session(workdir)
    spark.sql("create schema if not exists vulcan_state")
    spark.sql(f"drop table if exists {STATE}")
    spark.sql(
        f"create table {STATE} (relation string, model_id string, interval_start string, "
        "interval_end string, row_type string, fingerprint string, invocation_id string, "
        "recorded_at string, seq int, details string) using parquet"
    )
    rows = [
        StateRow(
            relation=RELATION,
            start=FIRST_DAY + timedelta(days=d),
            end=FIRST_DAY + timedelta(days=d + 1),
            kind="processed",
            fingerprint="fp",
            invocation_id=f"inv{d}",
            recorded_at=FIRST_DAY + timedelta(days=d + 1, hours=1),
            seq=1,
            details='{"time_type": "date"}',
        )
        for d in range(DAYS)
    ]
    for chunk in range(0, DAYS, 31):
        spark.sql(f"insert into {STATE} values {values_sql(rows[chunk : chunk + 31])}")


def measure(workdir: Path, name: str) -> dict[str, float]:
    """In this (fresh) process: dbt's first statement, then the one timed query."""
    sql = queries()[name]
    spark = _session(workdir)
    pid = spark.sparkContext._jvm.ProcessHandle.current().pid()
    tick = os.sysconf("SC_CLK_TCK")

    def cpu() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    spark.sql("show table extended in vulcan_state like '*'").collect()
    tracker = spark.sparkContext.statusTracker()
    before = set(tracker.getJobIdsForGroup(None))
    cpu0, wall0 = cpu(), time.perf_counter()
    spark.sql(sql).collect()
    wall = time.perf_counter() - wall0
    jobs = len(set(tracker.getJobIdsForGroup(None)) - before)
    return {"cpu": round(cpu() - cpu0, 2), "wall": round(wall, 2), "jobs": jobs}


def _child(workdir: Path, task: str) -> Any:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.plan_cost", "--workdir", str(workdir), "--task", task],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--task", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="vulcan-plan-cost-"))
    if args.task == "setup":
        setup(workdir)
        print(json.dumps({}))
        return 0
    if args.task:
        print(json.dumps(measure(workdir, args.task)))
        return 0
    _child(workdir, "setup")
    runs: dict[str, list[dict[str, float]]] = {"read": [], "plan": []}
    for _ in range(args.repeat):
        for name in runs:  # interleaved, so load hits both alike
            runs[name].append(_child(workdir, name))
    print(f"fresh JVM, after dbt's first statement; medians of {args.repeat} ({workdir})")
    print("| query | JVM CPU s | wall s | Spark jobs |")
    print("|---|---|---|---|")
    for name, found in runs.items():
        cpu = statistics.median(r["cpu"] for r in found)
        wall = statistics.median(r["wall"] for r in found)
        jobs = statistics.median(r["jobs"] for r in found)
        print(f"| {name} | {cpu:.1f} | {wall:.1f} | {jobs:g} |")
    print(json.dumps(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
