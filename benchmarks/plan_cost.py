"""The plan's read of the state log in a fresh JVM, against a plain `select *` of the same rows.

Every dbt run of a time-range model is a new process whose first statements run in a cold JVM:
there, a query's parse, its analysis and each distinct operator cost JIT compilation and code
generation on first use. This measures what the plan's one read (state/log.sql: its
scalar functions and order) costs on top of a bare SELECT of the relation's log rows (the
Jinja that plans from its rows runs in dbt's process: benchmarks/plan_jinja.py):

    .venv/bin/python benchmarks/plan_cost.py [--repeat 3] [--with-write] [--workdir DIR]

It builds a state log in DIR (a daily model's 365 processed days, one row per day), then, per
repetition and per query, starts a fresh Python process with its own SparkSession (parquet,
embedded, as the cold suite), issues dbt's first statement (a listing of the state schema,
untimed) and times ONE query: `read` (the relation's rows) or `plan` (the plan of the next
daily run: one new day due).

`--with-write` times the daily run's Spark work instead: the query (or none: `none`), then the
day's INSERT OVERWRITE into the model's table and the state append, in the same fresh session,
so what the query's warm-up saves the write is counted (the setup also generates the events
source of the cold suite and the model's table; each measurement restores both after it).

Printed per query: medians of the JVM's CPU seconds (utime + stime of the Spark driver, from
/proc: they inflate less than wall time when the machine is shared), of the wall time, and of
the number of Spark jobs. Not a test: numbers for benchmarks/FINDINGS_COLD.md.
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
NEW_DAY = (FIRST_DAY + timedelta(days=DAYS)).date().isoformat()
# the daily model's write of the new day and its state append, as a run issues them
WRITE = f"""insert overwrite table {RELATION} by name select * from (
select user_id, count(*) as events, sum(amount_cents) as amount_cents,
       max(event_ts) as last_event_ts, event_date
from bench_src.events where event_date between '{NEW_DAY}' and '{NEW_DAY}'
group by event_date, user_id) as vulcan_batch
where `event_date` >= cast('{NEW_DAY}' as date) and `event_date` <= cast('{NEW_DAY}' as date)"""


def queries() -> dict[str, str]:
    """`read`: the relation's rows as they are stored; `plan`: the read a run's plan issues
    (state/log.sql: times as epoch microseconds, in replay order), whose rows Jinja
    then plans."""
    from tests.support.macro_harness import Harness

    harness = Harness()
    harness.call("vulcan_log_read", [RELATION])
    (plan,) = [q for q in harness.statements if "vulcan_intervals" in q]
    return {"read": f"select * from {STATE} where relation = '{RELATION}'", "plan": plan}


def _session(workdir: Path) -> Any:
    from benchmarks.scenarios import build_session
    from tests.spark_targets import server_side_parameters

    return build_session(server_side_parameters("parquet", workdir))


def _state_rows(days: range) -> str:
    from tests.oracle.state import StateRow, values_sql

    return values_sql(
        [
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
            for d in days
        ]
    )


def setup(workdir: Path, with_write: bool) -> None:
    """The state log: one processed row per day, appended in 12 statements (12 files); with
    the write, the events source and the model's table holding the processed days."""
    spark = _session(workdir)
    spark.sql("create schema if not exists vulcan_state")
    spark.sql(f"drop table if exists {STATE}")
    spark.sql(
        f"create table {STATE} (relation string, model_id string, interval_start string, "
        "interval_end string, row_type string, fingerprint string, invocation_id string, "
        "recorded_at string, seq int, details string) using parquet"
    )
    for chunk in range(0, DAYS, 31):
        spark.sql(f"insert into {STATE} values {_state_rows(range(chunk, min(chunk + 31, DAYS)))}")
    if not with_write:
        return
    from benchmarks.generate import FULL, create_events

    create_events(spark, FULL)
    spark.sql("create schema if not exists bench")
    spark.sql(f"drop table if exists {RELATION}")
    spark.sql(
        f"create table {RELATION} (user_id int, events bigint, amount_cents bigint, "
        "last_event_ts timestamp, event_date date) using parquet "
        "options ('partitionOverwriteMode' = 'dynamic') partitioned by (event_date)"
    )
    spark.sql(
        f"insert overwrite table {RELATION} by name select user_id, count(*) as events, "
        "sum(amount_cents) as amount_cents, max(event_ts) as last_event_ts, event_date "
        f"from bench_src.events where event_date < '{NEW_DAY}' group by event_date, user_id"
    )
    spark.sql(f"drop table if exists {STATE}_before")
    spark.sql(f"create table {STATE}_before using parquet as select * from {STATE}")


def measure(workdir: Path, name: str, with_write: bool) -> dict[str, float]:
    """In this (fresh) process: dbt's first statement, then the timed statements."""
    timed = [] if name == "none" else [queries()[name]]
    if with_write:
        append = f"insert into {STATE} values {_state_rows(range(DAYS, DAYS + 1))}"
        timed += [WRITE, append]
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
    for sql in timed:
        spark.sql(sql).collect()
    wall = time.perf_counter() - wall0
    found = {"cpu": round(cpu() - cpu0, 2), "wall": round(wall, 2)}
    found["jobs"] = len(set(tracker.getJobIdsForGroup(None)) - before)
    if with_write:  # the next measurement starts from the same tables
        spark.sql(f"alter table {RELATION} drop if exists partition (event_date = '{NEW_DAY}')")
        spark.sql(f"insert overwrite table {STATE} select * from {STATE}_before")
    return found


def _child(workdir: Path, task: str, with_write: bool) -> Any:
    argv = [sys.executable, "-m", "benchmarks.plan_cost", "--workdir", str(workdir)]
    out = subprocess.run(
        [*argv, "--task", task, *(["--with-write"] if with_write else [])],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--with-write", action="store_true", help="time the daily run's writes too")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--task", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="vulcan-plan-cost-"))
    if args.task == "setup":
        setup(workdir, args.with_write)
        print(json.dumps({}))
        return 0
    if args.task:
        print(json.dumps(measure(workdir, args.task, args.with_write)))
        return 0
    _child(workdir, "setup", args.with_write)
    names = ["none", "read", "plan"] if args.with_write else ["read", "plan"]
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    for _ in range(args.repeat):
        for name in runs:  # interleaved, so load hits all alike
            runs[name].append(_child(workdir, name, args.with_write))
    what = "the query, the day's write and the state append" if args.with_write else "the query"
    print(f"fresh JVM, after dbt's first statement: {what}; medians of {args.repeat} ({workdir})")
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
