"""dbt-vulcan benchmarks: `.venv/bin/python benchmarks/run.py [--suite cold|warm] [--quick]`.

- `cold` (default, `make bench`): a fresh `dbt` process per run, as schedulers run dbt
  (benchmarks/cold.py): dbt-vulcan in both modes beside dbt-spark's microbatch and
  insert_overwrite and the raw statements → docs/benchmarks.md. With `--target thrift`
  (`make bench-thrift`) every process connects to one Spark Thrift Server that this starts
  (scripts/spark_server.sh: a local standalone cluster) → docs/benchmarks-thrift.md.
- `warm` (`make bench-warm`): every dbt invocation inside one warm process per table format
  (P1, P3, P2 per repetition, then P5, in a parquet SparkSession; then SCD type 2 in a Delta
  SparkSession) → docs/benchmarks-warm.md.

Each checks that every system produced the same table. With --quick the report goes to the
work directory. Exits 1 when outputs differ or a run fails.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.generate import FULL, QUICK, Size  # noqa: E402
from benchmarks.report import machine, write_report  # noqa: E402

WORKERS = ("parquet", "delta")
COLD_INTRO = """dbt-vulcan's speed as users get it: every run is a fresh `dbt` process (as a
scheduler runs dbt), side by side with dbt-spark's own strategies on the same data and Spark,
in both modes of dbt-vulcan (the `vulcan` adapter; the package on stock `type: spark`). `make bench`
writes this page (about 90 minutes on a 2-core machine: the daily model's scenarios 27, every
kind at 1M rows 52, the 25-model job 13; the run's own duration and the machine's load are
below); `make bench-quick` runs it on small
data (a smoke test). The same suite against one warm Spark Thrift Server (as jobs reach a
cluster) is [benchmarks-thrift.md](benchmarks-thrift.md) (`make bench-thrift`). The warm,
in-process numbers (every dbt invocation in one process: no JVM start, no parse) are in
[benchmarks-warm.md](benchmarks-warm.md) (`make bench-warm`).
Absolute times depend on the machine; the ratios are what the goals are about."""
THRIFT_INTRO = """dbt-vulcan's speed on a Spark server: every run is a fresh `dbt` process (as a
scheduler runs dbt) that connects to one long-running Spark Thrift Server (`method: thrift`),
as jobs reach a cluster, EMR or Databricks: no run starts a JVM, the server's JVM is warm, and
every statement is a network round trip. Side by side with dbt-spark's own strategies on the
same server and data, in both modes of dbt-vulcan. `make bench-thrift` writes this page; the
embedded-session report (each run its own JVM) is [benchmarks.md](benchmarks.md). Absolute
times depend on the machine; the ratios are what the goals are about."""
THRIFT_SPARK = (
    "Spark is one Spark Thrift Server started for the whole run (scripts/spark_server.sh: a "
    "standalone master and one worker on this machine, 2 cores, executor {executor}, server "
    "driver {driver}, 4 shuffle partitions), reached by every process with `method: thrift` "
    "(PyHive, as dbt-spark connects; `poll_interval: 1` for every system, as README advises "
    "on a Thrift server): no process starts a JVM; the first runs warm the "
    "server's JVM for all (the medians discount them)."
)
# the server's sizes: as much memory as the embedded session's driver (4g) where the work runs
THRIFT_MEMORY = {
    "VULCAN_THRIFT_EXECUTOR_MEMORY": "4g",
    "VULCAN_THRIFT_WORKER_MEMORY": "4g",
    "VULCAN_THRIFT_DRIVER_MEMORY": "2g",
}


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        return out.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")
    except OSError:
        return "?"


@contextlib.contextmanager
def thrift_server(workdir: Path) -> Iterator[dict[str, Any]]:
    """A Spark Thrift Server for the run (scripts/spark_server.sh start/stop, its files in
    workdir/server): yields the profiles' connection keys; stopped however the run ends."""
    folder = workdir / "server"
    script = str(ROOT / "scripts" / "spark_server.sh")
    env = {**os.environ, **THRIFT_MEMORY}
    started = subprocess.run(
        ["bash", script, "start", str(folder)], env=env, check=True, capture_output=True, text=True
    )
    found = dict(
        line.split("=", 1)
        for line in Path(started.stdout.strip().splitlines()[-1]).read_text().splitlines()
        if "=" in line
    )
    try:
        yield {
            "method": "thrift",
            "host": found["VULCAN_THRIFT_HOST"],
            "port": int(found["VULCAN_THRIFT_PORT"]),
            "user": "dbt",
            "connect_retries": 3,
            "connect_timeout": 5,
            # stock dbt-spark (the package's and the counterparts' `type: spark`) sleeps
            # poll_interval (5 s by default) after the server's first 5-s long poll, so a
            # statement of 5.3 s is seen done after 10 s; 1 s for every system, as README
            # advises on a Thrift server (dbt-vulcan's adapter caps its doubling waits at it)
            "poll_interval": 1,
        }
    finally:
        subprocess.run(["bash", script, "stop", str(folder)], check=False)


def merged_results(saved: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """One page's results from several runs' results files (`--report-from` repeated): the
    first run's results and machine, with each later run's parts added (each part keeping
    its run's `_meta`: command, commit, machine) and its problems."""
    cold, meta = dict(saved[0]["cold"]), saved[0]["_meta"]
    for later in saved[1:]:
        for part, value in later["cold"].items():
            if isinstance(value, dict):
                cold[part] = {**value, "_meta": later["_meta"]}
        cold["problems"] = [*cold.get("problems", []), *later["cold"].get("problems", [])]
    return cold, meta


def run_cold(args: argparse.Namespace, size: Size, argv: list[str] | None = None) -> int:
    """The fresh-process suite (embedded sessions, or one Thrift server) and its report."""
    from benchmarks import cold, cold_report

    thrift = args.target == "thrift"
    page = "benchmarks-thrift.md" if thrift else "benchmarks.md"
    intro, findings = (
        (THRIFT_INTRO, "FINDINGS_THRIFT.md") if thrift else (COLD_INTRO, "FINDINGS_COLD.md")
    )
    report = functools.partial(cold_report.write, intro=intro, findings=findings)
    if args.report_from:
        results, saved_meta = merged_results([json.loads(p.read_text()) for p in args.report_from])
        out = args.out or ROOT / "docs" / page
        problems = report(out, results, size, saved_meta)
        print(f"report: {out}")
        return 1 if problems else 0
    workdir = args.workdir or Path(
        tempfile.mkdtemp(prefix=f"vulcan-bench-{args.target}-{size.name}-")
    )
    workdir.mkdir(parents=True, exist_ok=True)
    out = args.out or (workdir / "benchmarks-quick.md" if args.quick else ROOT / "docs" / page)
    print(f"benchmarks, fresh processes ({size.name}, {args.target}) in {workdir}", flush=True)
    started = time.perf_counter()
    meta: dict[str, Any] = {}
    try:
        with contextlib.ExitStack() as stack:
            connection = stack.enter_context(thrift_server(workdir)) if thrift else None
            if thrift:
                meta["spark"] = THRIFT_SPARK.format(
                    executor=THRIFT_MEMORY["VULCAN_THRIFT_EXECUTOR_MEMORY"],
                    driver=THRIFT_MEMORY["VULCAN_THRIFT_DRIVER_MEMORY"],
                )
            parts = tuple(args.part or cold.PARTS)
            result = cold.run(
                size,
                workdir,
                args.before,
                connection,
                parts,
                tuple(args.kind or ()),
                args.state_format,
                tuple(args.kind_keys or ()),
            )
    except Exception as exc:  # reported, and the exit code says it
        print(f"cold suite failed: {exc}", file=sys.stderr, flush=True)
        return 1
    command = " ".join(["benchmarks/run.py", *(argv if argv is not None else sys.argv[1:])])
    meta |= {**machine(), "command": command, "commit": _commit()}
    meta["total_seconds"] = round(time.perf_counter() - started)
    (workdir / "results-cold.json").write_text(
        json.dumps({"cold": result, "_meta": meta}, indent=1, default=str)
    )
    problems = report(out, result, size, meta)
    print(
        f"report: {out}; raw results: {workdir / 'results-cold.json'} ({meta['total_seconds']} s)"
    )
    if not args.keep and not args.workdir:
        shutil.rmtree(workdir / "warehouse", ignore_errors=True)
        shutil.rmtree(workdir / "server" / "warehouse", ignore_errors=True)
    for problem in problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return 1 if problems else 0


def _size(args: argparse.Namespace) -> Size:
    size = QUICK if args.quick else FULL
    if args.repeat:
        size = Size(**{**size.__dict__, "repeats": args.repeat})
    return size


def run_worker(fmt: str, size: Size, workdir: Path, out: Path, microbatch_repeats: int) -> None:
    """One worker: a SparkSession of format `fmt` in this process, its scenarios, JSON out."""
    from benchmarks import scenarios
    from tests.spark_targets import server_side_parameters

    workdir.mkdir(parents=True, exist_ok=True)
    params = server_side_parameters(fmt, workdir)
    worker = scenarios.parquet_worker if fmt == "parquet" else scenarios.delta_worker
    started = time.perf_counter()
    rec = scenarios.Recorder()
    try:
        result = worker(size, workdir, params, rec, microbatch_repeats)
    except Exception as exc:  # reported with the runs so far, and the exit code says it
        print(f"{fmt} worker failed: {exc!r}", file=sys.stderr, flush=True)
        rec.problems.append(f"{fmt} worker failed: {exc!r}")
        result = rec.result()
    result["seconds"] = round(time.perf_counter() - started, 1)
    out.write_text(json.dumps(result, indent=1, default=str))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", choices=("cold", "warm"), default="cold", help="default cold")
    parser.add_argument("--quick", action="store_true", help="small data, one repetition (CI)")
    parser.add_argument(
        "--before",
        type=Path,
        help="cold suite: an earlier checkout of this repository, run as system vulcan_before",
    )
    parser.add_argument(
        "--target",
        choices=("session", "thrift"),
        default="session",
        help="cold suite: embedded sessions (default) or one Spark Thrift Server",
    )
    parser.add_argument(
        "--part",
        choices=("daily", "kinds", "job", "environments"),
        action="append",
        help="cold suite: only the daily model's scenarios, the kinds, the daily job"
        " of 25 models or its environments (default all)",
    )
    parser.add_argument(
        "--kind",
        choices=("unique_key", "partition", "unmanaged", "scd_by_time", "scd_by_column", "tracked"),
        action="append",
        help="cold suite, kinds part: only this kind's pair (default every one)",
    )
    parser.add_argument(
        "--kind-keys",
        type=int,
        action="append",
        help="cold suite, kinds part: the target's rows (default 1,000,000; quick 2,000);"
        " repeated: the part once per size, and each pair's ratio compared across them",
    )
    parser.add_argument(
        "--state-format",
        choices=("parquet", "delta"),
        default="parquet",
        help="cold suite, job part: dbt-vulcan's state table format (default parquet)",
    )
    parser.add_argument("--repeat", type=int, default=0, help="repetitions (default 3; quick 1)")
    parser.add_argument(
        "--microbatch-repeat",
        type=int,
        default=0,
        help="P1/P2 microbatch repetitions (default all)",
    )
    parser.add_argument(
        "--report-from",
        type=Path,
        action="append",
        help="only write the report from results.json; cold suite: repeated, each later"
        " file's parts added to the first's",
    )
    parser.add_argument("--workdir", type=Path, help="default: a new temporary directory")
    parser.add_argument("--out", type=Path, help="the report (markdown)")
    parser.add_argument("--only", choices=WORKERS, action="append", help="run only this worker")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--worker", choices=WORKERS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    size = _size(args)
    microbatch_repeats = args.microbatch_repeat or size.repeats
    if args.suite == "cold" and not args.worker:
        return run_cold(args, size, argv)

    if args.worker:
        out = args.workdir / f"{args.worker}.json"
        run_worker(args.worker, size, args.workdir / args.worker, out, microbatch_repeats)
        return 0
    if args.report_from:
        saved: dict[str, Any] = json.loads(args.report_from[0].read_text())
        meta = saved.pop("_meta")
        out = args.out or ROOT / "docs" / "benchmarks-warm.md"
        problems = write_report(out, saved, size, meta, microbatch_repeats)
        print(f"report: {out}")
        return 1 if problems else 0

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix=f"vulcan-bench-{size.name}-"))
    workdir.mkdir(parents=True, exist_ok=True)
    default = (
        workdir / "benchmarks-quick.md" if args.quick else ROOT / "docs" / "benchmarks-warm.md"
    )
    out = args.out or default
    command = "make bench-warm-quick" if args.quick else "make bench-warm"
    print(f"benchmarks ({size.name}) in {workdir}", flush=True)
    results: dict[str, Any] = {}
    started = time.perf_counter()
    for fmt in args.only or WORKERS:
        print(f"== {fmt} worker", flush=True)
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", fmt]
        cmd += ["--suite", "warm", "--workdir", str(workdir)] + (["--quick"] if args.quick else [])
        cmd += ["--repeat", str(size.repeats), "--microbatch-repeat", str(microbatch_repeats)]
        code = subprocess.call(cmd, cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        path = workdir / f"{fmt}.json"
        if path.exists():
            results[fmt] = json.loads(path.read_text())
        else:
            results[fmt] = {"runs": [], "checks": [], "problems": [f"{fmt} worker exited {code}"]}
    meta = {**machine(), "command": " ".join(["benchmarks/run.py", *(argv or sys.argv[1:])])}
    meta |= {"make": command, "total_seconds": round(time.perf_counter() - started)}
    problems = write_report(out, results, size, meta, microbatch_repeats)
    dump = {**results, "_meta": meta}
    (workdir / "results.json").write_text(json.dumps(dump, indent=1, default=str))
    print(f"report: {out}; raw results: {workdir / 'results.json'} ({meta['total_seconds']} s)")
    if not args.keep and not args.workdir:
        for fmt in WORKERS:
            shutil.rmtree(workdir / fmt, ignore_errors=True)
    for problem in problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
