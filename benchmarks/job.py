"""A project's daily job: 25 daily models in four layers, eight threads, one fresh `dbt run`
per day, dbt-vulcan (the `vulcan` adapter and the package) against dbt-spark's microbatch.

Part of the fresh-process suite (`make bench`, embedded sessions; `make bench-thrift`, one
Spark Thrift Server): `run.py --part job`. The layers read `bench_src.events` (the daily
part's source, benchmarks/generate.py):

- 5 sources: slices of the events (`pmod(user_id, 5)`), as a project's raw tables;
- 10 staging models: each a half of one source's events (`pmod(product_id, 2)`), row by row;
- 10 marts: each the daily totals per user of two staging models;
- 5 tops: each the daily totals of two marts.

dbt-vulcan's models are `incremental_by_time_range` (daily, `event_date`), each filtering its
inputs with `@start_ds` / `@end_ds` and waiting for its parents (upstream-aware planning);
microbatch's are dbt-spark's `incremental` with `incremental_strategy='microbatch'`
(`event_time`, `batch_size='day'`, `lookback=0`, partitioned by `event_date`), whose inputs
dbt-core filters. The package's and microbatch's projects are `type: spark`, the adapter's
`type: vulcan`, with the same connection, `threads: 8`, each system in its own schema (the
adapter reads the state log once per invocation, the package once per model).

Scenarios: `job_backfill`, days [0, size.job_days) once (rep 1); then `job_one_day`, rep r
adds day job_days + r - 1. Both systems get each new day the same way, as a scheduler passes
it: dbt's `--event-time-start` / `--event-time-end` (a new `--vars` value would make dbt
parse the project again in every run: about 3 s of CPU with the package); dbt-vulcan's
backfill, its first run, plans the days due at `vulcan_execution_time`. After each round
every model's table is checked equal between the systems. Each run records the job's wall
time, every model's time, and the time the models' statements took summed by kind (data
writes, state read, state append, metadata), with the unlogged gaps between them.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from benchmarks.cold_process import Projects, compare, parse_log, spark_task
from benchmarks.generate import START, Size, at, day
from benchmarks.harness import strip_comments

SYSTEMS = ("vulcan", "vulcan_package", "microbatch")
SCHEMA = {"vulcan": "job_adapter", "vulcan_package": "job_package", "microbatch": "job_microbatch"}
PROJECT = {"vulcan": "job_adapter", "vulcan_package": "job_package", "microbatch": "job_microbatch"}
VULCAN = ("vulcan", "vulcan_package")
STATE_SCHEMA = "vulcan_state_job"
THREADS = 8

SOURCES = 5
STAGING = [(s, half) for s in range(SOURCES) for half in range(2)]  # stg_<s>_<half>
MARTS = 10  # mart_<k>: staging k and k + 1 (mod 10)
TOPS = 5  # top_<t>: marts 2t and 2t + 1

_VULCAN = (
    "{{ config(materialized='incremental_by_time_range', time_column='event_date',"
    f" start='{START}', cron='@daily', lookback=0, file_format='parquet') }}}}\n"
)
_MICROBATCH = (
    "{{ config(materialized='incremental', incremental_strategy='microbatch',"
    f" event_time='event_date', begin='{START}', batch_size='day', lookback=0,"
    " partition_by=['event_date'], file_format='parquet') }}\n"
)
_WINDOW = "event_date between @start_ds and @end_ds"

# the columns of each layer's table, checked equal between the systems
COLUMNS = {
    "stg": "event_id, user_id, product_id, amount_cents, event_ts, event_date",
    "mart": "user_id, event_date, events, amount_cents",
    "top": "event_date, users, events, amount_cents",
}


def _staging_names() -> list[str]:
    return [f"stg_{s}_{half}" for s, half in STAGING]


def models(system: str) -> dict[str, str]:
    """The 25 models of one system: name -> SQL."""
    vulcan = system in VULCAN
    head = _VULCAN if vulcan else _MICROBATCH
    window = f" and {_WINDOW}" if vulcan else ""
    where = f"where {_WINDOW}\n" if vulcan else ""
    out: dict[str, str] = {}
    for s, half in STAGING:
        out[f"stg_{s}_{half}"] = (
            head + f"select {COLUMNS['stg']}\nfrom {{{{ source('bench', 'events') }}}}\n"
            f"where pmod(user_id, {SOURCES}) = {s} and pmod(product_id, 2) = {half}{window}\n"
        )
    staging = _staging_names()
    for k in range(MARTS):
        a, b = staging[k], staging[(k + 1) % MARTS]
        out[f"mart_{k}"] = (
            head + "select user_id, event_date, count(*) as events,"
            " sum(amount_cents) as amount_cents\n"
            f"from (select * from {{{{ ref('{a}') }}}} union all"
            f" select * from {{{{ ref('{b}') }}}}) as s\n"
            f"{where}group by user_id, event_date\n"
        )
    for t in range(TOPS):
        a, b = f"mart_{2 * t}", f"mart_{2 * t + 1}"
        out[f"top_{t}"] = (
            head + "select event_date, count(distinct user_id) as users, sum(events) as events,"
            " sum(amount_cents) as amount_cents\n"
            f"from (select * from {{{{ ref('{a}') }}}} union all"
            f" select * from {{{{ ref('{b}') }}}}) as m\n"
            f"{where}group by event_date\n"
        )
    return out


def checks_sql(system: str) -> dict[str, str]:
    """Each model's checksum query in one system's schema."""
    out = {}
    for name in models(system):
        columns = COLUMNS[name.split("_", 1)[0]]
        table = f"{SCHEMA[system]}.{name}"
        out[name] = f"select count(*), sum(cast(hash({columns}) as bigint)) from {table}"
    return out


@dataclass
class JobRun:
    """One fresh `dbt run` of a whole job."""

    scenario: str
    system: str
    rep: int
    wall: float  # the whole `dbt` process
    model_seconds: dict[str, float]  # model -> dbt's execution_time
    statement_seconds: dict[str, float] = field(default_factory=dict)  # kind -> summed
    statement_counts: dict[str, int] = field(default_factory=dict)
    gaps: float = 0.0  # summed over the models: the time between their statements
    # busy core-seconds of the whole machine during the run (the Thrift server's JVM and the
    # `dbt` process: the job's CPU work when nothing else runs), from /proc/stat; None elsewhere
    cpu: float | None = None
    # of which the `dbt` process's (user + system, its rusage, with its children's): on the
    # Thrift server, Python and Jinja, the rest the server's Spark work; embedded, its JVM too
    dbt_cpu: float | None = None

    @property
    def summed(self) -> float:
        return sum(self.model_seconds.values())


def statement_kind(sql: str, category: str) -> str:
    """`state read`, `state append`, `write` or `metadata`."""
    if category == "state":
        text = strip_comments(sql).lower()  # dbt's query comment comes first
        return "state append" if text.startswith("insert") else "state read"
    return category


def job_run(
    projects: Projects, scenario: str, system: str, rep: int, vars_: dict[str, Any], *extra: str
) -> JobRun:
    """One fresh `dbt run` of the system's job, with its models' times and statements."""
    busy_before, children_before = _busy_seconds(), _children_seconds()
    results, wall, log_dir = projects.process(
        scenario, system, rep, vars_, PROJECT[system], "run", "path:models/jobs", *extra
    )
    busy_after, children_after = _busy_seconds(), _children_seconds()
    run = JobRun(
        scenario,
        system,
        rep,
        round(wall, 3),
        {r["unique_id"].split(".")[-1]: round(float(r["execution_time"]), 3) for r in results},
    )
    if busy_before is not None and busy_after is not None:
        run.cpu = round(busy_after - busy_before, 2)
    run.dbt_cpu = round(children_after - children_before, 2)
    for result in results:
        statements, _, tail_gap = parse_log(log_dir / "dbt.log", result["unique_id"])
        run.gaps += sum(s.gap_before for s in statements) + tail_gap
        for s in statements:
            kind = statement_kind(s.sql, s.category)
            run.statement_seconds[kind] = run.statement_seconds.get(kind, 0.0) + s.seconds
            run.statement_counts[kind] = run.statement_counts.get(kind, 0) + 1
    run.gaps = round(run.gaps, 3)
    run.statement_seconds = {k: round(v, 3) for k, v in run.statement_seconds.items()}
    if len(results) != len(models(system)):
        raise RuntimeError(f"job {system} ({scenario} rep {rep}): {len(results)} models ran")
    slowest = max(run.model_seconds.values())
    print(
        f"  {scenario:<13} {system:<15} rep {rep}: wall {run.wall:6.2f} s  cpu {run.cpu} s"
        f" (dbt {run.dbt_cpu} s)"
        f"  models summed {run.summed:6.2f} s (slowest {slowest:.2f})"
        f"  statements {run.statement_seconds}  gaps {run.gaps:.2f} s",
        flush=True,
    )
    return run


def _busy_seconds() -> float | None:
    """The machine's busy CPU time so far (every core, /proc/stat: all but idle and iowait)."""
    import os

    try:
        with open("/proc/stat") as stat:
            fields = [int(v) for v in stat.readline().split()[1:]]
    except OSError:
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _children_seconds() -> float:
    """CPU time (user + system) of this process's finished children: the `dbt` runs."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def write_projects(
    projects: Projects, params: dict[str, str], connection: Any, state_format: str = "parquet"
) -> None:
    """One project per system (the adapter's `type: vulcan`, the others `type: spark` with the
    package installed), eight threads, the models under models/jobs; dbt-vulcan's state table
    in `state_format`."""
    from benchmarks.project import write_project

    for system in SYSTEMS:
        folder = projects.folder(PROJECT[system])
        write_project(
            folder,
            params,
            "parquet",
            adapter_type="vulcan" if system == "vulcan" else "spark",
            connection=connection,
            models={f"jobs/{name}": sql for name, sql in models(system).items()},
            snapshots={},
            profile_extra={"threads": THREADS},
            extra_vars={
                "vulcan_state_schema": STATE_SCHEMA,
                "vulcan_state_file_format": state_format,
            },
        )
    projects.deps(*(PROJECT[s] for s in SYSTEMS))


def run(
    size: Size,
    projects: Projects,
    connection: dict[str, Any] | None = None,
    generate: bool = True,
    state_format: str = "parquet",
) -> dict[str, Any]:
    """The job's backfill, then `size.repeats` new days; runs, checks and problems.
    `generate`: (re)create the events source (the daily part already did otherwise).
    `state_format`: dbt-vulcan's state table's format (delta: the embedded sessions of both
    systems load Delta Lake; a Thrift server always has it)."""
    from tests.spark_targets import server_side_parameters

    started = time.perf_counter()
    workdir = projects.workdir
    n, reps = size.job_days, size.repeats
    if generate:
        made = spark_task(workdir, "generate", connection, size=asdict(size), extra_days=reps)
        print(f"job: generated {made['events']} events in {made['seconds']} s", flush=True)
    params = server_side_parameters(state_format, workdir)
    write_projects(projects, params, connection, state_format)
    runs: list[JobRun] = []
    checks: list[dict[str, Any]] = []

    def check(what: str) -> None:
        queries = {f"{s}|{name}": sql for s in SYSTEMS for name, sql in checks_sql(s).items()}
        sums = spark_task(workdir, "sums", connection, queries=queries)
        for name in models(SYSTEMS[0]):
            values = {s: sums[f"{s}|{name}"] for s in SYSTEMS}
            checks.append(compare(f"{what}, {name}", values))

    def days(system: str, first: int, end: int) -> tuple[dict[str, Any], list[str]]:
        """The vars and arguments that make `system` process days [first, end)."""
        vars_: dict[str, Any] = {"bench_schema": SCHEMA[system]}
        if system in VULCAN and first == 0:
            # a first run builds the whole history due at its execution time (a window given
            # to a table not built yet does not narrow it): the backfill's days, by that time
            return {**vars_, "vulcan_execution_time": str(at(end, 1))}, []
        return vars_, ["--event-time-start", str(day(first)), "--event-time-end", str(day(end))]

    print(f"job backfill of {n} days", flush=True)
    for system in SYSTEMS:
        vars_, extra = days(system, 0, n)
        runs.append(job_run(projects, "job_backfill", system, 1, vars_, *extra))
    check("job backfill")
    for rep in range(1, reps + 1):
        new = n + rep - 1
        print(f"job one new day rep {rep} (day {new})", flush=True)
        for system in SYSTEMS:
            vars_, extra = days(system, new, new + 1)
            runs.append(job_run(projects, "job_one_day", system, rep, vars_, *extra))
        check(f"job day {new}")
    return {
        "runs": [asdict(r) for r in runs],
        "checks": checks,
        "problems": [c["what"] + ": outputs differ" for c in checks if not c["ok"]],
        "days": n,
        "models": len(models(SYSTEMS[0])),
        "threads": THREADS,
        "state_format": state_format,
        "seconds": round(time.perf_counter() - started, 1),
    }
