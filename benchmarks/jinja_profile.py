"""Where a one-day time-range run spends its Jinja: the macros a run compiles (as a fresh
`dbt` process does) and calls, with the time of each compile.

    .venv/bin/python benchmarks/jinja_profile.py [--mode adapter|package] [--top 40]
        [--model vulcan|microbatch]

One embedded Spark session, one project in a temporary folder with one daily time-range model;
`dbt run` backfills three days, then the measured run processes the next day. Before the
measured run dbt's template cache is emptied, so every macro compiles again as it would in a
new process (in adapter mode from the compiled code the adapter keeps on disk, as a new
process reads it; VULCAN_JINJA_CACHE=off compiles from the source). Prints the templates
compiled (bytes of source, milliseconds), those compiled inside the model's own time apart from
the run's hooks, the macro calls per macro, and the totals. `--model microbatch` profiles the
same day through dbt-spark's microbatch instead (`--event-time-start/-end`), for comparison.
Not a test: numbers for issue 32's item 5 and issue 49's item 1.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

MODEL = """{{ config(materialized='incremental_by_time_range', time_column='event_date',
    start='2025-01-01', cron='@daily', lookback=0, file_format='parquet',
    partitioned_by=['event_date']) }}
select cast(id % 7 as int) as user_id, count(*) as events,
       date_add(date'2025-01-01', cast(id % 30 as int)) as event_date
from range(3000)
group by 1, 3
"""

# the same day's work as dbt-spark's microbatch (`--model microbatch`, on `type: spark`): what
# the stock materialization compiles, for comparison
MICROBATCH = """{{ config(materialized='incremental', incremental_strategy='microbatch',
    event_time='event_date', begin='2025-01-01', batch_size='day', lookback=0,
    file_format='parquet', partition_by=['event_date']) }}
select cast(id % 7 as int) as user_id, count(*) as events,
       date_add(date'2025-01-01', cast(id % 30 as int)) as event_date
from range(3000)
group by 1, 3
"""


def write_project(folder: Path, mode: str, model: str = "vulcan") -> None:
    (folder / "models").mkdir(parents=True)
    (folder / "models" / "daily.sql").write_text(MODEL if model == "vulcan" else MICROBATCH)
    project = [
        "name: jprof",
        "version: '1.0'",
        "config-version: 2",
        "profile: jprof",
        "flags: {send_anonymous_usage_stats: false}",
    ]
    project.append("dispatch: [{macro_namespace: dbt, search_order: [jprof, dbt_vulcan, dbt]}]")
    (folder / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    (folder / "dbt_project.yml").write_text("\n".join(project) + "\n")
    work = folder / "spark"
    log4j = ROOT / "tests" / "log4j2.properties"
    adapter = "vulcan" if mode == "adapter" else "spark"
    derby = f"jdbc:derby:;databaseName={work}/metastore_db;create=true"
    java = f"-Dderby.system.home={work} -Dlog4j2.configurationFile={log4j}"
    (folder / "profiles.yml").write_text(
        f"""jprof:
  target: t
  outputs:
    t:
      type: {adapter}
      method: session
      host: localhost
      schema: jprof
      threads: 1
      server_side_parameters:
        spark.master: "local[2]"
        spark.sql.warehouse.dir: "{work}/warehouse"
        spark.hadoop.javax.jdo.option.ConnectionURL: "{derby}"
        spark.driver.extraJavaOptions: "{java}"
        spark.ui.enabled: "false"
        spark.sql.shuffle.partitions: "4"
        spark.sql.session.timeZone: "UTC"
"""
    )


def time_macros() -> dict[str, list[float]]:
    """Times every macro call of this process: name -> [own seconds, calls], where a macro's
    own time leaves out the macros it calls and its SQL (under "(SQL)": the statement sent and
    its result fetched, where an embedded session runs a SELECT)."""
    import threading

    from dbt.adapters.sql.connections import SQLConnectionManager
    from dbt.clients.jinja import MacroGenerator

    totals: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0])
    local = threading.local()

    def timed(name: str, run: Any) -> Any:
        frames = local.__dict__.setdefault("frames", [])
        frames.append([0.0])
        start = time.perf_counter()
        try:
            return run()
        finally:
            spent = time.perf_counter() - start
            (children,) = frames.pop()
            totals[name][0] += spent - children
            totals[name][1] += 1
            if frames:
                frames[-1][0] += spent

    call, execute = MacroGenerator.__call__, SQLConnectionManager.execute
    MacroGenerator.__call__ = lambda self, *a, **k: timed(  # type: ignore[method-assign]
        self.get_name(), lambda: call(self, *a, **k)
    )
    SQLConnectionManager.execute = lambda self, *a, **k: timed(  # type: ignore[method-assign]
        "(SQL)", lambda: execute(self, *a, **k)
    )
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("adapter", "package"), default="adapter")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--model", choices=("vulcan", "microbatch"), default="vulcan")
    parser.add_argument(
        "--timing",
        action="store_true",
        help="the measured run keeps the compiled templates and prints each macro's own time",
    )
    args = parser.parse_args()

    from dbt.cli.main import dbtRunner
    from dbt_common.clients import jinja

    folder = Path(tempfile.mkdtemp(prefix="jprof_"))
    if args.model == "microbatch":
        args.mode = "package"  # dbt-spark's own materialization, on type: spark
    write_project(folder, args.mode, args.model)
    os.chdir(folder)
    base = ["--project-dir", str(folder), "--profiles-dir", str(folder), "--quiet"]
    dbtRunner().invoke(["deps", *base])
    runner = dbtRunner()
    days = {
        "vulcan": (
            ["--vars", "{vulcan_execution_time: '2025-01-04'}"],
            ["--vars", "{vulcan_execution_time: '2025-01-05'}"],
        ),
        "microbatch": (
            ["--event-time-start", "2025-01-01", "--event-time-end", "2025-01-04"],
            ["--event-time-start", "2025-01-04", "--event-time-end", "2025-01-05"],
        ),
    }[args.model]
    first = runner.invoke(["run", *base, *days[0]])
    assert first.success, first.exception

    compiled: dict[str, tuple[int, float]] = {}
    compiled_at: dict[str, float] = {}
    calls: collections.Counter[str] = collections.Counter()
    files: collections.Counter[str] = collections.Counter()
    file_ms: collections.Counter[str] = collections.Counter()
    cache = jinja.template_cache
    original_get = cache.get_node_template

    def timed_get(node: Any) -> Any:
        calls[node.name] += 1
        if node.macro_sql in cache.file_cache:
            return cache.file_cache[node.macro_sql]
        start = time.perf_counter()
        template = original_get(node)
        files[node.original_file_path.split("macros/", 1)[-1]] += len(node.macro_sql)
        file_ms[node.original_file_path.split("macros/", 1)[-1]] += (
            time.perf_counter() - start
        ) * 1000
        compiled_at[f"{node.package_name}.{node.name}"] = time.time()
        compiled[f"{node.package_name}.{node.name}"] = (
            len(node.macro_sql),
            (time.perf_counter() - start) * 1000,
        )
        return template

    if args.timing:
        own = time_macros()
        start = time.perf_counter()
        second = runner.invoke(["run", *base, *days[1]])
        assert second.success, second.exception
        result = next(r for r in second.result.results if r.node.unique_id == "model.jprof.daily")
        sql = own.pop("(SQL)", [0.0, 0])
        print(
            f"{args.model}, mode {args.mode}: model time {result.execution_time:.2f} s, dbt run"
            f" {time.perf_counter() - start:.2f} s; nothing compiled; SQL {sql[0]:.2f} s in"
            f" {sql[1]} statements; the macros' own time {sum(v[0] for v in own.values()):.2f} s"
        )
        print("\nown time (ms: the macro's Jinja, without the macros it calls or its SQL), calls:")
        for name, (seconds, count) in sorted(own.items(), key=lambda kv: -kv[1][0])[: args.top]:
            print(f"  {seconds * 1000:8.1f} {count:6d}  {name}")
        shutil.rmtree(folder, ignore_errors=True)
        return

    cache.clear()
    if args.mode == "adapter":
        from dbt.adapters.vulcan import jinja_cache

        # as in a new process: the adapter reads each template's compiled code from its disk
        # cache (VULCAN_JINJA_CACHE=off: compiles it, as the package does)
        jinja_cache._memory.clear()
    cache.get_node_template = timed_get  # type: ignore[method-assign]
    start = time.perf_counter()
    second = runner.invoke(["run", *base, *days[1]])
    wall = time.perf_counter() - start
    assert second.success, second.exception
    result = next(r for r in second.result.results if r.node.unique_id == "model.jprof.daily")
    model_time = result.execution_time
    began = min(t.started_at for t in result.timing if t.started_at).timestamp()
    ended = max(t.completed_at for t in result.timing if t.completed_at).timestamp()
    inside = [k for k, at in compiled_at.items() if began <= at <= ended]

    print(f"{args.model}, mode {args.mode}: model time {model_time:.2f} s, dbt run {wall:.2f} s")
    total_bytes = sum(size for size, _ in compiled.values())
    total_ms = sum(ms for _, ms in compiled.values())
    ours = {k: v for k, v in compiled.items() if k.split(".")[0] in ("vulcan", "dbt_vulcan")}
    print(
        f"templates compiled: {len(compiled)} ({total_bytes / 1000:.0f} KB, {total_ms:.0f} ms);"
        f" dbt-vulcan's: {len(ours)} ({sum(s for s, _ in ours.values()) / 1000:.0f} KB,"
        f" {sum(m for _, m in ours.values()):.0f} ms)"
    )
    print(
        f"compiled during the model's own time: {len(inside)}"
        f" ({sum(compiled[k][0] for k in inside) / 1000:.0f} KB,"
        f" {sum(compiled[k][1] for k in inside):.0f} ms); the rest in the run's hooks"
    )
    print(f"macro calls: {sum(calls.values())} to {len(calls)} macros")
    print("\ncompiled outside the model's own time (the run's hooks):")
    for name in sorted(set(compiled) - set(inside), key=lambda k: -compiled[k][0]):
        print(f"  {compiled[name][1]:7.1f} {compiled[name][0]:7d}  {name}")
    print("\nslowest compiles (ms, bytes, macro):")
    for name, (size, ms) in sorted(compiled.items(), key=lambda kv: -kv[1][1])[: args.top]:
        print(f"  {ms:7.1f} {size:7d}  {name}")
    print("\ncompiled source per file (ms, bytes, file):")
    for name, size in files.most_common():
        print(f"  {file_ms[name]:7.1f} {size:7d}  {name}")
    print("\nmost called (calls, macro):")
    for name, count in calls.most_common(args.top):
        print(f"  {count:6d}  {name}")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
