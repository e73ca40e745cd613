"""The scenarios, run by one worker process per table format (a SparkSession's table-format
settings are static, so Delta needs its own process):

- `parquet`: P1 (365-day backfill), P2 (one new day vs FULL), P3 (dbt-vulcan vs the same
  statements raw), P5 (bookkeeping statements vs processed intervals), repeated and
  interleaved run by run so every system sees the same machine load.
- `delta`: SCD type 2 by column and by time vs dbt's `snapshot` (check strategy).

Each returns a JSON-able dict of every run (timings, statements, Spark jobs) and the output
checks; a mismatch is listed in `problems`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from benchmarks.generate import SOURCE_SCHEMA, Size, at, create_customers, create_events, day
from benchmarks.harness import WRITE, Dbt, ModelRun, timed_sql
from benchmarks.project import write_project

DAILY_CHECKSUM = """
select count(*), sum(events), sum(amount_cents),
       sum(cast(hash(user_id, event_date, events, amount_cents, last_event_ts) as bigint))
from {table}
"""

SCD_CHECKSUM = """
select count(*), sum(cast(hash(id, name, price_cents) as bigint)),
       count_if({valid_to} is null),
       sum(if({valid_to} is null, cast(hash(id, name, price_cents) as bigint), 0))
from {table}
"""


def build_session(params: dict[str, str]) -> Any:
    """The process's SparkSession, built as dbt-spark's session method builds it (dbt reuses
    it: getOrCreate)."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.enableHiveSupport()
    for key, value in params.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def checksum(spark: Any, sql: str) -> list[Any]:
    row = spark.sql(sql).collect()[0]
    return [None if v is None else int(v) for v in row]


class Recorder:
    """Collects the runs of a worker and the output checks."""

    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []
        self.checks: list[dict[str, Any]] = []
        self.problems: list[str] = []

    def run(self, scenario: str, system: str, rep: int, run: ModelRun, **extra: Any) -> None:
        entry = {"scenario": scenario, "system": system, "rep": rep, **run.summary(), **extra}
        self.runs.append(entry)
        print(
            f"  {scenario:<10} {system:<22} rep {rep}: {run.execution_time:7.2f} s"
            f"  {len(run.statements)} statements ({run.bookkeeping} bookkeeping)"
            f"  {run.spark_jobs} jobs  [{run.message}]",
            flush=True,
        )

    def raw(self, scenario: str, system: str, rep: int, seconds: float, sqls: list[str]) -> None:
        self.runs.append(
            {
                "scenario": scenario,
                "system": system,
                "rep": rep,
                "execution_time": round(seconds, 3),
                "statements": len(sqls),
                "by_category": {WRITE: len(sqls)},
                "sql": [{"category": WRITE, "sql": s} for s in sqls],
            }
        )
        print(f"  {scenario:<10} {system:<22} rep {rep}: {seconds:7.2f} s  raw", flush=True)

    def compare(self, what: str, values: dict[str, list[Any]]) -> None:
        distinct = {tuple(v) for v in values.values()}
        ok = len(distinct) == 1 and all(v[0] for v in values.values())
        self.checks.append({"what": what, "ok": ok, "values": values})
        print(f"  check {what}: {'same' if ok else 'DIFFERENT'} {values}", flush=True)
        if not ok:
            self.problems.append(f"{what}: outputs differ: {values}")

    def result(self) -> dict[str, Any]:
        return {"runs": self.runs, "checks": self.checks, "problems": self.problems}


def _daily(spark: Any, schema: str, models: list[str]) -> dict[str, list[Any]]:
    return {m: checksum(spark, DAILY_CHECKSUM.format(table=f"{schema}.{m}")) for m in models}


def parquet_worker(
    size: Size, workdir: Path, params: dict[str, str], rec: Recorder, microbatch_repeats: int
) -> dict[str, Any]:
    spark = build_session(params)
    started = time.perf_counter()
    create_events(spark, size)
    generated = time.perf_counter() - started
    rows = spark.sql(f"select count(*) from {SOURCE_SCHEMA}.events").collect()[0][0]
    print(f"generated {rows} events in {generated:.1f} s", flush=True)
    project = workdir / "project"
    write_project(project, params, "parquet")
    dbt = Dbt(project, spark)
    dbt.invoke(["deps"])
    n = size.days

    # warm-up: the JVM's first statements, the state table, dbt's first parse
    warm = {"bench_schema": "bench_warm", "bench_from": str(day(0)), "bench_to": str(day(1))}
    dbt.run_one("run", "daily_full", warm)
    dbt.run_one("run", "daily_vulcan", {**warm, "vulcan_execution_time": str(at(1, 1))})

    for rep in range(1, size.repeats + 1):
        schema = f"bench_r{rep}"
        base = {"bench_schema": schema}
        backfill = {**base, "vulcan_execution_time": str(at(n, 1))}
        print(f"repetition {rep} (schema {schema})", flush=True)

        # P1: backfill of n days
        vulcan = dbt.run_one("run", "daily_vulcan", backfill)
        rec.run("P1", "vulcan", rep, vulcan)
        rec.run("P1", "vulcan_batch30", rep, dbt.run_one("run", "daily_vulcan_b30", backfill))
        default = dbt.run_one("run", "daily_vulcan_default", backfill)
        rec.run("P1", "vulcan_default_lookback", rep, default)
        # microbatch's 365 batches take minutes: --microbatch-repeat may run it fewer times
        microbatch = rep <= microbatch_repeats
        window = ["--event-time-start", str(day(0)), "--event-time-end", str(day(n))]
        if microbatch:
            run = dbt.run_one("run", "daily_microbatch", base, *window)
            rec.run("P1", "microbatch", rep, run)
        io_vars = {**base, "bench_from": str(day(0)), "bench_to": str(day(n))}
        rec.run(
            "P1", "insert_overwrite", rep, dbt.run_one("run", "daily_insert_overwrite", io_vars)
        )
        models = ["daily_vulcan", "daily_vulcan_b30", "daily_vulcan_default"]
        models += ["daily_insert_overwrite"] + (["daily_microbatch"] if microbatch else [])
        p1 = _daily(spark, schema, models)

        # P3: the same write statements, raw, in the warm session (on a dropped table)
        writes = [s.sql for s in vulcan.statements if s.category == WRITE]
        spark.sql(f"drop table {schema}.daily_vulcan")
        rec.raw("P3", "raw_backfill", rep, timed_sql(spark, writes), writes)
        p1["raw (vulcan's statements)"] = checksum(
            spark, DAILY_CHECKSUM.format(table=f"{schema}.daily_vulcan")
        )
        rec.compare(f"P1 backfill of {n} days, rep {rep}", p1)

        # P2: one new day, then the FULL rebuild of the n + 1 days
        one_day = {**base, "vulcan_execution_time": str(at(n + 1, 1))}
        vulcan_day = dbt.run_one("run", "daily_vulcan", one_day)
        rec.run("P2", "vulcan", rep, vulcan_day)
        day_writes = [s.sql for s in vulcan_day.statements if s.category == WRITE]
        rec.raw("P3", "raw_one_day", rep, timed_sql(spark, day_writes), day_writes)
        default = dbt.run_one("run", "daily_vulcan_default", one_day)
        rec.run("P2", "vulcan_default_lookback", rep, default)
        window = ["--event-time-start", str(day(n)), "--event-time-end", str(day(n + 1))]
        if microbatch:
            run = dbt.run_one("run", "daily_microbatch", base, *window)
            rec.run("P2", "microbatch", rep, run)
        io_vars = {**base, "bench_from": str(day(n)), "bench_to": str(day(n + 1))}
        rec.run(
            "P2", "insert_overwrite", rep, dbt.run_one("run", "daily_insert_overwrite", io_vars)
        )
        full_vars = {**base, "bench_from": str(day(0)), "bench_to": str(day(n + 1))}
        rec.run("P2", "full", rep, dbt.run_one("run", "daily_full", full_vars))
        models = ["daily_vulcan", "daily_vulcan_default", "daily_insert_overwrite", "daily_full"]
        models += ["daily_microbatch"] if microbatch else []
        rec.compare(f"P2 one new day (day {n + 1}), rep {rep}", _daily(spark, schema, models))

    # P5: bookkeeping statements vs the number of processed (hourly) intervals
    p5 = [(count, "p5_hourly") for count in size.hourly_intervals]
    p5.append((size.hourly_intervals[0], "p5_hourly_default"))
    for count, model in p5:
        schema = f"bench_p5_{count}"
        print(f"P5 {model} with {count} hourly intervals (schema {schema})", flush=True)
        for label, hours in (
            (f"backfill {count}", count),
            ("next hour", count + 1),
            ("nothing due", count + 1),
        ):
            run_vars = {"bench_schema": schema, "vulcan_execution_time": str(at(0, hours))}
            run = dbt.run_one("run", model, run_vars)
            system = f"{model}: {label}"
            rec.run("P5", system, 1, run, intervals=count, step=label, model=model)
        got = checksum(spark, f"select count(*), sum(events) from {schema}.{model}")
        expected = checksum(
            spark,
            f"select count(distinct date_trunc('hour', event_ts)), count(*) "
            f"from {SOURCE_SCHEMA}.events where event_ts < timestamp'{at(0, count + 1)}'",
        )
        what = f"P5 {model}, {count} + 1 hourly intervals vs the source"
        rec.compare(what, {model: got, "source": expected})

    out = rec.result()
    out["generated"] = {"events": int(rows), "seconds": round(generated, 1)}
    return out


def delta_worker(
    size: Size, workdir: Path, params: dict[str, str], rec: Recorder, microbatch_repeats: int
) -> dict[str, Any]:
    spark = build_session(params)
    project = workdir / "project"
    write_project(project, params, "delta")
    dbt = Dbt(project, spark)
    schema = "bench_scd"
    systems = [
        ("scd_by_column", "run", "scd_by_column"),
        ("scd_by_time", "run", "scd_by_time"),
        ("snapshot_check", "snapshot", "scd_snapshot"),
    ]
    # warm-up: the JVM's and Delta's first statements, the state table, dbt's first parse
    create_customers(spark, size, 0)
    dbt.run_one("run", "scd_by_time", {"bench_schema": "bench_scd_warm"})
    for snapshot_day in range(size.scd_days + 1):
        create_customers(spark, size, snapshot_day)
        step = "initial load" if snapshot_day == 0 else "daily change"
        print(f"SCD2 day {snapshot_day} ({step})", flush=True)
        run_vars = {"bench_schema": schema, "vulcan_execution_time": str(at(snapshot_day, 6))}
        for system, verb, node in systems:
            run = dbt.run_one(verb, node, run_vars)
            rec.run("SCD2", system, snapshot_day, run, step=step)
    values = {
        system: checksum(
            spark,
            SCD_CHECKSUM.format(
                table=f"{schema}.{node}",
                valid_to="dbt_valid_to" if verb == "snapshot" else "valid_to",
            ),
        )
        for system, verb, node in systems
    }
    rec.compare(f"SCD2 after {size.scd_days} daily changes of {size.scd_keys} keys", values)
    out = rec.result()
    out["keys"] = size.scd_keys
    return out
