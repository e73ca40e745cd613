"""Fresh-process benchmarks: every run is a new `dbt` process, as a scheduler runs dbt.

The systems share one warehouse and metastore (embedded Spark, parquet) and run one after the
other, interleaved rep by rep (vulcan, vulcan in package mode, dbt-spark's strategies, vulcan,
...), so the machine's load hits all alike:

- `vulcan`: `type: vulcan` (the adapter);
- `vulcan_package`: stock `type: spark` with the dbt package;
- `microbatch`, `insert_overwrite`: dbt-spark's own strategies, on the same `type: spark` project;
- `raw`: the backfill's write statements issued by hand in a fresh SparkSession (the floor);
- `vulcan_before` (only with `--before <checkout>`): `type: vulcan` from an earlier checkout of
  this repository (its Python on PYTHONPATH), to measure a change before and after.

Each dbt run is timed three ways: dbt's own `execution_time` of the model (run_results.json),
the wall time of the whole `dbt` process, and, from dbt's debug log (JSON), every statement the
model sent with its duration and the unlogged gap before it: the gap table of the report.

Scenarios (n = the size's days):
- `backfill`: days [0, n) into an empty schema, each rep in a new schema;
- `one_day`: rep r adds day n + r - 1 to rep 1's tables (vulcan and microbatch: the day as
  dbt's `--event-time-start` / `--event-time-end`, the same command line; insert_overwrite: its
  own vars);
- `explicit_day`: rep r recomputes the processed day n - r (the same flags);
- `full_refresh`: rep r runs `dbt run --full-refresh` of rep r's backfilled tables (vulcan, in
  both modes, and insert_overwrite: the same n days rebuilt).
vulcan_before (`--before`, a checkout that may predate the flags) gets its days as vars
(`vulcan_execution_time`; `vulcan_start` / `vulcan_end`). A new value of `--vars` makes dbt
parse the whole project again (about 3 s of CPU with the package): the flags do not.

dbt microbatch's own 365-day backfill takes minutes (see the warm suite); its table for the
daily runs is a copy of insert_overwrite's backfill, made with one raw CREATE TABLE AS SELECT.

Spark is only ever started by the `dbt` processes and by `python -m benchmarks.cold task ...`
subprocesses (generate, raw statements, copies, checksums): the embedded Derby metastore admits
one process at a time.

With a `connection` (the Thrift target, `run.py --target thrift`), every system connects to
one long-running Spark Thrift Server instead (`method: thrift`): no process starts a JVM, every
statement is a network round trip, and the tasks send their SQL over their own connection.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import environments, job, kinds  # noqa: E402
from benchmarks.cold_process import (  # noqa: E402
    SYSTEMS,
    ColdRun,
    Projects,
    Statement,
    compare,
    spark_task,
)
from benchmarks.generate import SOURCE_SCHEMA, Size, at, day  # noqa: E402

SCHEMA = {
    "vulcan": "cold_adapter",
    "vulcan_package": "cold_package",
    "microbatch": "cold_microbatch",
    "insert_overwrite": "cold_io",
    "raw": "cold_raw",
    "vulcan_before": "cold_before",
}
DAILY_CHECKSUM = """
select count(*), sum(events), sum(amount_cents),
       sum(cast(hash(user_id, event_date, events, amount_cents, last_event_ts) as bigint))
from {table}
"""


class ThriftSql:
    """What the tasks use of a SparkSession (`sql(...)`, then `collect()`), over a Thrift
    connection opened as dbt-spark opens one (pyhive)."""

    def __init__(self, connection: dict[str, Any]) -> None:
        from pyhive import hive

        self.conn = hive.connect(
            host=connection["host"], port=int(connection["port"]), username=connection["user"]
        )

    def sql(self, query: str) -> ThriftSql._Rows:
        cursor = self.conn.cursor()
        cursor.execute(query)  # synchronous: returns when the statement has run
        return ThriftSql._Rows(cursor.fetchall() if cursor.description else [])

    class _Rows:
        def __init__(self, rows: list[Any]) -> None:
            self.rows = rows

        def collect(self) -> list[Any]:
            return self.rows


def _task(workdir: Path, task: str, kwargs: dict[str, Any]) -> Any:
    from benchmarks.generate import create_customers, create_events
    from benchmarks.scenarios import build_session, checksum
    from tests.spark_targets import server_side_parameters

    connection = kwargs.pop("connection", None)
    if connection:
        spark: Any = ThriftSql(connection)
    else:
        spark = build_session(server_side_parameters(kwargs.pop("fmt", "parquet"), workdir))
    if task == "generate":
        size = Size(**kwargs["size"])
        started = time.perf_counter()
        create_events(spark, size, extra_days=kwargs["extra_days"])
        rows = spark.sql(f"select count(*) from {SOURCE_SCHEMA}.events").collect()[0][0]
        return {"events": int(rows), "seconds": round(time.perf_counter() - started, 1)}
    if task == "raw":
        # dbt's first statements of a process list the schemas (its relation cache); so does
        # this, untimed, before the timed statements
        spark.sql(f"show tables in {SOURCE_SCHEMA}").collect()
        spark.sql(f"create schema if not exists {kwargs['schema']}")
        started = time.perf_counter()
        for sql in kwargs["statements"]:
            spark.sql(sql).collect()
        return {"seconds": round(time.perf_counter() - started, 3)}
    if task == "copy":
        spark.sql(f"create schema if not exists {kwargs['schema']}")
        spark.sql(f"drop table if exists {kwargs['target']}")
        spark.sql(
            f"create table {kwargs['target']} using parquet partitioned by (event_date)"
            f" as select * from {kwargs['source']}"
        )
        return {}
    if task == "checksums":
        return {t: checksum(spark, DAILY_CHECKSUM.format(table=t)) for t in kwargs["tables"]}
    if task == "customers":  # the kinds suite's source, as the snapshot of one day
        size = Size(**kwargs["size"])
        started = time.perf_counter()
        create_customers(spark, size, kwargs["day"], keys=kwargs["keys"])
        rows = spark.sql(f"select count(*) from {SOURCE_SCHEMA}.customers").collect()[0][0]
        return {"rows": int(rows), "seconds": round(time.perf_counter() - started, 1)}
    if task == "drop_schemas":
        for schema in kwargs["schemas"]:
            spark.sql(f"drop schema if exists {schema} cascade")
        return {}
    if task == "sums":  # name -> checksum query
        return {name: checksum(spark, sql) for name, sql in kwargs["queries"].items()}
    raise ValueError(task)


def write_projects(
    workdir: Path, before: Path | None = None, connection: dict[str, Any] | None = None
) -> Projects:
    from benchmarks.project import write_project
    from tests.spark_targets import server_side_parameters

    projects = Projects(workdir, before)
    params = server_side_parameters("parquet", workdir)
    common: dict[str, Any] = {"connection": connection}
    write_project(projects.folder("adapter"), params, "parquet", adapter_type="vulcan", **common)
    write_project(projects.folder("package"), params, "parquet", adapter_type="spark", **common)
    names = ["adapter", "package"]
    if before is not None:
        # its own state table: the layout of an earlier checkout may differ
        extra = {"state_schema": "vulcan_state_before"}
        write_project(
            projects.folder("before"),
            params,
            "parquet",
            package=before,
            profile_extra=extra,
            **common,
        )
        names.append("before")
    projects.deps(*names)
    return projects


PARTS = ("daily", "kinds", "job", "environments")


def run(
    size: Size,
    workdir: Path,
    before: Path | None = None,
    connection: dict[str, Any] | None = None,
    parts: tuple[str, ...] = PARTS,
    pairs: tuple[str, ...] = (),
    job_state_format: str = "parquet",
    kind_keys: tuple[int, ...] = (),
) -> dict[str, Any]:
    """The cold suite: the daily model's scenarios, then every kind against its dbt
    counterpart (benchmarks/kinds.py, under "kinds"), then a project's daily job
    (benchmarks/job.py, under "job"), then environments against dbt's own ways
    (benchmarks/environments.py, under "environments"); runs, checks and problems. `before`: an
    earlier checkout, run as the extra system `vulcan_before` (the daily part). `connection`:
    the profiles' connection keys of a running Spark server (default: embedded sessions).
    `pairs`: only these kinds' pairs (default every one). `kind_keys`: the kinds' target
    sizes (default the size's one); with several, the part runs once per size, from nothing,
    under "kinds_scale" (the first also under "kinds"). `job_state_format`: the job's state
    table format."""
    projects = write_projects(workdir, before, connection)
    result: dict[str, Any] = {"runs": [], "checks": [], "problems": []}
    if "daily" in parts:
        result = daily(size, projects, connection)
    if "kinds" in parts:
        scales = [
            kinds.run(replace(size, kind_keys=keys), projects, connection, pairs)
            for keys in kind_keys or (size.kind_keys,)
        ]
        result["kinds"] = scales[0]
        if len(scales) > 1:
            result["kinds_scale"] = scales
        for scale in scales:
            result["problems"] = [*result["problems"], *scale["problems"]]
    if "job" in parts:
        result["job"] = job.run(size, projects, connection, "daily" not in parts, job_state_format)
        result["problems"] = [*result["problems"], *result["job"]["problems"]]
    if "environments" in parts:
        generate = not {"daily", "job"} & set(parts)
        result["environments"] = environments.run(size, projects, connection, generate)
        result["problems"] = [*result["problems"], *result["environments"]["problems"]]
    return result


def daily(
    size: Size, projects: Projects, connection: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The daily model: backfill, one new day, one explicit day, `--full-refresh`, interleaved
    rep by rep."""
    n, reps = size.days, size.repeats
    started = time.perf_counter()
    workdir = projects.workdir
    before = projects.before
    vulcans = ("vulcan", "vulcan_package") + (("vulcan_before",) if before else ())
    generated = spark_task(
        workdir, "generate", connection, size=asdict(size), extra_days=reps
    )  # days [0, n + reps)
    print(f"cold: generated {generated['events']} events in {generated['seconds']} s", flush=True)
    runs: list[ColdRun] = []
    problems: list[str] = []
    checks: list[dict[str, Any]] = []

    def vulcan_vars(system: str, rep: int, **more: Any) -> dict[str, Any]:
        return {"bench_schema": f"{SCHEMA[system]}_r{rep}", **more}

    # backfill of n days, each rep into new schemas
    for rep in range(1, reps + 1):
        print(f"cold backfill rep {rep}", flush=True)
        for system in vulcans:
            backfill = vulcan_vars(system, rep, vulcan_execution_time=str(at(n, 1)))
            runs.append(projects.dbt("backfill", system, rep, backfill))
        io = {"bench_schema": f"cold_io_r{rep}", "bench_from": str(day(0)), "bench_to": str(day(n))}
        runs.append(projects.dbt("backfill", "insert_overwrite", rep, io))
        # the floor: the write statements of this rep's vulcan backfill, by hand
        vulcan = next(r for r in runs if r.system == "vulcan" and r.rep == rep)
        writes = [
            s.sql.replace(f"cold_adapter_r{rep}", f"cold_raw_r{rep}")
            for s in vulcan.statements
            if s.category == "write"
        ]
        raw = spark_task(workdir, "raw", connection, schema=f"cold_raw_r{rep}", statements=writes)
        runs.append(
            ColdRun("backfill", "raw", rep, raw["seconds"], raw["seconds"], "success", "raw")
        )
        runs[-1].statements = [Statement(sql, "write", 0, 0, 0) for sql in writes]
        print(f"  backfill      raw               rep {rep}: {raw['seconds']:6.2f} s", flush=True)

    # microbatch's table: a copy of insert_overwrite's backfill (rep 1)
    spark_task(
        workdir,
        "copy",
        connection,
        schema="cold_microbatch_r1",
        source="cold_io_r1.daily_insert_overwrite",
        target="cold_microbatch_r1.daily_microbatch",
    )

    # one new day: rep r adds day n + r - 1 to rep 1's tables
    for rep in range(1, reps + 1):
        new = n + rep - 1
        print(f"cold one new day rep {rep} (day {new})", flush=True)
        window = ["--event-time-start", str(day(new)), "--event-time-end", str(day(new + 1))]
        for system in vulcans:
            if system == "vulcan_before":
                one = vulcan_vars(system, 1, vulcan_execution_time=str(at(new + 1, 1)))
                runs.append(projects.dbt("one_day", system, rep, one))
            else:
                runs.append(projects.dbt("one_day", system, rep, vulcan_vars(system, 1), *window))
        mb = {"bench_schema": "cold_microbatch_r1"}
        runs.append(projects.dbt("one_day", "microbatch", rep, mb, *window))
        io = {
            "bench_schema": "cold_io_r1",
            "bench_from": str(day(new)),
            "bench_to": str(day(new + 1)),
        }
        runs.append(projects.dbt("one_day", "insert_overwrite", rep, io))

    # one explicit (already processed) day: rep r recomputes day n - r
    last_exec = str(at(n + reps, 1))
    for rep in range(1, reps + 1):
        old = n - rep
        print(f"cold explicit day rep {rep} (day {old})", flush=True)
        window = ["--event-time-start", str(day(old)), "--event-time-end", str(day(old + 1))]
        for system in vulcans:
            if system == "vulcan_before":
                explicit = vulcan_vars(
                    system,
                    1,
                    vulcan_start=str(day(old)),
                    vulcan_end=str(day(old)),  # a day-only end is inclusive (its whole day)
                    vulcan_execution_time=last_exec,
                )
                runs.append(projects.dbt("explicit_day", system, rep, explicit))
            else:
                runs.append(
                    projects.dbt("explicit_day", system, rep, vulcan_vars(system, 1), *window)
                )
        mb = {"bench_schema": "cold_microbatch_r1"}
        runs.append(projects.dbt("explicit_day", "microbatch", rep, mb, *window))

    # every system produced the same table (the backfills' before their rebuild below)
    tables = {
        f"{SCHEMA[s]}_r1.{SYSTEMS[s][1]}": s for s in (*vulcans, "microbatch", "insert_overwrite")
    }
    model = {
        s: "daily_insert_overwrite" if s == "insert_overwrite" else "daily_vulcan" for s in SCHEMA
    }
    backfills = [
        f"{SCHEMA[s]}_r{rep}.{model[s]}"
        for rep in range(2, reps + 1)
        for s in (*vulcans, "insert_overwrite", "raw")
    ]
    backfills += ["cold_raw_r1.daily_vulcan"]
    sums = spark_task(workdir, "checksums", connection, tables=[*tables, *backfills])
    after = {tables[t]: sums[t] for t in tables}
    checks.append(compare(f"after the backfill, {reps} new days and {reps} explicit days", after))
    for rep in range(2, reps + 1):
        same = {t: sums[t] for t in backfills if f"_r{rep}." in t}
        checks.append(compare(f"backfill of {n} days, rep {rep}", same))

    # `--full-refresh` of the n days: rep r rebuilds rep r's backfilled tables in place
    rebuilt: list[str] = []
    for rep in range(1, reps + 1):
        print(f"cold full refresh rep {rep}", flush=True)
        for system in ("vulcan", "vulcan_package"):
            again = vulcan_vars(system, rep, vulcan_execution_time=str(at(n, 1)))
            runs.append(projects.dbt("full_refresh", system, rep, again, "--full-refresh"))
        io = {"bench_schema": f"cold_io_r{rep}", "bench_from": str(day(0)), "bench_to": str(day(n))}
        runs.append(projects.dbt("full_refresh", "insert_overwrite", rep, io, "--full-refresh"))
        rebuilt += [
            f"{SCHEMA[s]}_r{rep}.{model[s]}"
            for s in ("vulcan", "vulcan_package", "insert_overwrite")
        ]
    # a rebuilt table equals the rep's insert_overwrite rebuild and the backfill of rep 2
    sums |= {
        f"rebuilt {t}": v
        for t, v in spark_task(workdir, "checksums", connection, tables=rebuilt).items()
    }
    for rep in range(1, reps + 1):
        same = {t: v for t, v in sums.items() if t.startswith("rebuilt") and f"_r{rep}." in t}
        if reps > 1:
            same["backfill rep 2"] = sums["cold_adapter_r2.daily_vulcan"]
        checks.append(compare(f"--full-refresh of {n} days, rep {rep}", same))
    problems += [c["what"] + ": outputs differ" for c in checks if not c["ok"]]
    return {
        "runs": [asdict(r) for r in runs],
        "checks": checks,
        "problems": problems,
        "generated": generated,
        "seconds": round(time.perf_counter() - started, 1),
    }


def median(runs: list[dict[str, Any]], key: str = "execution_time") -> float:
    values = [float(r[key]) for r in runs]
    return statistics.median(values) if values else float("nan")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "task":
        folder = Path(sys.argv[2])
        result = _task(folder, sys.argv[3], json.loads(sys.argv[4]))
        (folder / "task.json").write_text(json.dumps(result, default=str))
    else:
        sys.exit("usage: python -m benchmarks.cold task <workdir> <task> <json> (see run.py)")
