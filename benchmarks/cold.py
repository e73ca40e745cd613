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
- `explicit_day`: rep r recomputes the processed day n - r (the same flags).
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
import os
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.generate import SOURCE_SCHEMA, Size, at, day  # noqa: E402
from benchmarks.harness import classify  # noqa: E402

DBT = ROOT / ".venv" / "bin" / "dbt"

# system -> (project, model)
SYSTEMS: dict[str, tuple[str, str]] = {
    "vulcan": ("adapter", "daily_vulcan"),
    "vulcan_package": ("package", "daily_vulcan"),
    "microbatch": ("package", "daily_microbatch"),
    "insert_overwrite": ("package", "daily_insert_overwrite"),
    "vulcan_before": ("before", "daily_vulcan"),
}
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


@dataclass
class Statement:
    """One statement a model sent: seconds from the model's start, duration, the unlogged gap
    before it (since the model started or the previous statement ended)."""

    sql: str
    category: str
    start: float
    seconds: float
    gap_before: float


@dataclass
class ColdRun:
    scenario: str
    system: str
    rep: int
    execution_time: float  # dbt's model time (run_results.json)
    wall: float  # the whole `dbt` process
    status: str
    message: str
    node_seconds: float = 0.0  # the node's span in dbt's log (first to last event)
    tail_gap: float = 0.0  # after the last statement until the node finished
    statements: list[Statement] = field(default_factory=list)

    @property
    def gaps(self) -> float:
        return sum(s.gap_before for s in self.statements) + self.tail_gap


def _ts(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def parse_log(path: Path, unique_id: str) -> tuple[list[Statement], float, float]:
    """The model's statements from dbt's JSON debug log, with the node's span and tail gap."""
    node_start = node_end = None
    pending: dict[str, Any] | None = None
    raw: list[tuple[str, float, float]] = []  # sql, start ts, end ts
    for line in path.read_text().splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        info, data = event.get("info", {}), event.get("data", {})
        name, ts = info.get("name"), info.get("ts")
        node = (data.get("node_info") or {}).get("unique_id")
        if name == "NodeExecuting" and node == unique_id:
            node_start = _ts(ts)
        elif name == "NodeFinished" and node == unique_id:
            node_end = _ts(ts)
        elif name == "SQLQuery" and data.get("conn_name") == unique_id:
            pending = {"sql": data.get("sql", ""), "start": _ts(ts), "thread": info.get("thread")}
        elif (
            name == "SQLQueryStatus"
            and pending is not None
            and info.get("thread") == pending["thread"]
        ):
            raw.append((pending["sql"], pending["start"], _ts(ts)))
            pending = None
    if node_start is None or node_end is None:
        return [], 0.0, 0.0
    statements: list[Statement] = []
    previous_end = node_start
    for sql, start, end in raw:
        statements.append(
            Statement(
                sql=sql,
                category=classify(sql),
                start=round(start - node_start, 3),
                seconds=round(end - start, 3),
                gap_before=round(max(0.0, start - previous_end), 3),
            )
        )
        previous_end = end
    return statements, node_end - node_start, max(0.0, node_end - previous_end)


class Projects:
    """The two dbt projects (adapter, package) of one work directory."""

    def __init__(self, workdir: Path, before: Path | None = None) -> None:
        self.workdir = workdir
        self.before = before
        self.logs = workdir / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.count = 0

    def folder(self, project: str) -> Path:
        return self.workdir / f"project_{project}"

    def deps(self, *names: str) -> None:
        """`dbt deps` in each named project (the package from this checkout)."""
        for project in names:
            folder = self.folder(project)
            subprocess.run(
                [str(DBT), "deps", "--project-dir", str(folder), "--profiles-dir", str(folder)],
                cwd=folder,
                check=True,
                capture_output=True,
            )

    def dbt(
        self, scenario: str, system: str, rep: int, vars_: dict[str, Any], *extra: str
    ) -> ColdRun:
        """One fresh `dbt run --select <model>` process; raises unless the model succeeded."""
        project, model = SYSTEMS[system]
        return self.invoke(scenario, system, rep, vars_, project, "run", model, *extra)

    def process(
        self,
        scenario: str,
        system: str,
        rep: int,
        vars_: dict[str, Any],
        project: str,
        verb: str,
        select: str,
        *extra: str,
    ) -> tuple[list[dict[str, Any]], float, Path]:
        """One fresh `dbt <verb> --select <select>` process of `project`: the results of its
        models and snapshots (run_results.json), its wall time and its log folder; raises
        unless every one succeeded."""
        folder = self.folder(project)
        self.count += 1
        log_dir = self.logs / f"{self.count:03d}-{scenario}-{system}-r{rep}"
        argv = [str(DBT), verb, "--select", select, "--project-dir", str(folder)]
        argv += ["--profiles-dir", str(folder), "--vars", json.dumps(vars_), *extra]
        argv += ["--log-path", str(log_dir), "--log-format-file", "json"]
        argv += ["--log-level-file", "debug", "--log-level", "warn"]
        env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
        if project == "before" and self.before is not None:
            env["PYTHONPATH"] = str(self.before)
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        results = json.loads((folder / "target" / "run_results.json").read_text())["results"]
        results = [r for r in results if r["unique_id"].startswith(("model.", "snapshot."))]
        if done.returncode != 0 or not results or any(r["status"] != "success" for r in results):
            tail = (done.stdout + done.stderr)[-3000:]
            raise RuntimeError(f"dbt {verb} {system} ({scenario} rep {rep}) failed:\n{tail}")
        return results, wall, log_dir

    def invoke(
        self,
        scenario: str,
        system: str,
        rep: int,
        vars_: dict[str, Any],
        project: str,
        verb: str,
        node: str,
        *extra: str,
    ) -> ColdRun:
        """One fresh `dbt <verb> --select <node>` process of `project`; raises unless the node
        succeeded."""
        results, wall, log_dir = self.process(
            scenario, system, rep, vars_, project, verb, node, *extra
        )
        if len(results) != 1:
            raise RuntimeError(
                f"dbt {verb} {system} ({scenario} rep {rep}): {len(results)} nodes ran"
            )
        result = results[0]
        statements, span, tail_gap = parse_log(log_dir / "dbt.log", result["unique_id"])
        run = ColdRun(
            scenario=scenario,
            system=system,
            rep=rep,
            execution_time=round(float(result["execution_time"]), 3),
            wall=round(wall, 3),
            status=result["status"],
            message=str(result.get("message") or ""),
            node_seconds=round(span, 3),
            tail_gap=round(tail_gap, 3),
            statements=statements,
        )
        print(
            f"  {scenario:<13} {system:<21} rep {rep}: model {run.execution_time:6.2f} s"
            f"  wall {run.wall:6.2f} s  {len(statements)} statements"
            f"  gaps {run.gaps:5.2f} s  [{run.message}]",
            flush=True,
        )
        return run


def spark_task(
    workdir: Path, task: str, connection: dict[str, Any] | None = None, **kwargs: Any
) -> Any:
    """Runs `task` in a fresh Python process with its own SparkSession (or, with a
    `connection`, its own Thrift connection); its JSON result."""
    out = workdir / "task.json"
    argv = [sys.executable, "-m", "benchmarks.cold", "task", str(workdir), task]
    argv.append(json.dumps({**kwargs, "connection": connection}))
    subprocess.run(argv, cwd=ROOT, check=True)
    return json.loads(out.read_text())


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


PARTS = ("daily", "kinds", "job")


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
    (benchmarks/job.py, under "job"); runs, checks and problems. `before`: an
    earlier checkout, run as the extra system `vulcan_before` (the daily part). `connection`:
    the profiles' connection keys of a running Spark server (default: embedded sessions).
    `pairs`: only these kinds' pairs (default every one). `kind_keys`: the kinds' target
    sizes (default the size's one); with several, the part runs once per size, from nothing,
    under "kinds_scale" (the first also under "kinds"). `job_state_format`: the job's state
    table format."""
    from benchmarks import job, kinds

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
    return result


def daily(
    size: Size, projects: Projects, connection: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The daily model: backfill, one new day, one explicit day, interleaved rep by rep."""
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

    # every system produced the same table
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
    problems += [c["what"] + ": outputs differ" for c in checks if not c["ok"]]
    return {
        "runs": [asdict(r) for r in runs],
        "checks": checks,
        "problems": problems,
        "generated": generated,
        "seconds": round(time.perf_counter() - started, 1),
    }


def compare(what: str, values: dict[str, list[Any]]) -> dict[str, Any]:
    ok = len({tuple(v) for v in values.values()}) == 1 and all(v[0] for v in values.values())
    print(f"  check {what}: {'same' if ok else 'DIFFERENT'} {values}", flush=True)
    return {"what": what, "ok": ok, "values": values}


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
