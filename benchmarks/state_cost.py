"""What a state statement costs on a Spark Thrift Server, against statements that start no Spark
job (issue #49, decision 2's stretch and item 5's decision): numbers for the owner's choice,
not a design.

    .venv/bin/python benchmarks/state_cost.py [--models 25] [--threads 8] [--repeat 3]

One Thrift server (scripts/spark_server.sh, as `run.py --target thrift`), one schema of
`--models` parquet tables and dbt-vulcan's state table (parquet, partitioned by relation and
append id, as state/create_state_table_sql.sql creates it) holding 30 days of history per
table. A round is what a daily job's models do to their state, one model per task on
`--threads` connections:

- `log`: today's design: the read of one relation's rows (a SELECT) and one append (an
  INSERT OVERWRITE of a new partition), each a Spark job;
- `props`: the alternative the issue names: the processed ranges kept in the model's own
  table as a table property, read with `SHOW TBLPROPERTIES` and written with `ALTER TABLE ...
  SET TBLPROPERTIES` (metastore calls on parquet; on Delta a metadata-only commit).

Printed per way and format: the round's wall time, the machine's busy CPU during it
(/proc/stat: the server's JVMs and this process), and the median of each statement alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.job import _busy_seconds  # noqa: E402
from benchmarks.run import thrift_server  # noqa: E402

STATE_COLUMNS = (
    "model_id string, interval_start timestamp, interval_end timestamp, row_type string,"
    " fingerprint string, invocation_id string, recorded_at timestamp, seq int, details string"
)


def connect(connection: dict[str, Any]) -> Any:
    from pyhive import hive

    return hive.connect(
        host=connection["host"], port=int(connection["port"]), username=connection["user"]
    )


def run(conn: Any, sql: str) -> list[Any]:
    cursor = conn.cursor()
    cursor.execute(sql)
    return cursor.fetchall() if cursor.description else []


def history(days: int) -> list[list[str]]:
    return [[f"2025-01-{1 + d % 28:02d}", f"2025-01-{2 + d % 27:02d}"] for d in range(days)]


def log_round(conn: Any, table: str, stamp: str) -> tuple[float, float]:
    started = time.perf_counter()
    run(
        conn,
        "select model_id, interval_start, interval_end, row_type, fingerprint, invocation_id,"
        f" recorded_at, seq, details, append_id from bench_state.state where relation = '{table}'",
    )
    read = time.perf_counter() - started
    started = time.perf_counter()
    run(
        conn,
        "insert overwrite table bench_state.state partition (relation, append_id)"
        " select model_id, interval_start, interval_end, row_type, fingerprint, invocation_id,"
        f" recorded_at, seq, details, '{table}', '{stamp}' from values ('m', timestamp'2025-02-01',"
        " timestamp'2025-02-02', 'processed', '1', 'inv', current_timestamp(), 0, '')"
        " as r(model_id, interval_start, interval_end, row_type, fingerprint, invocation_id,"
        " recorded_at, seq, details)",
    )
    return read, time.perf_counter() - started


def props_round(conn: Any, table: str, stamp: str) -> tuple[float, float]:
    started = time.perf_counter()
    rows = run(conn, f"show tblproperties bench_state.{table} ('vulcan.processed')")
    read = time.perf_counter() - started
    ranges = json.loads(rows[0][1]) if rows and rows[0][1].startswith("[") else []
    ranges.append(["2025-02-01", stamp])
    value = json.dumps(ranges).replace("'", "")
    started = time.perf_counter()
    run(conn, f"alter table bench_state.{table} set tblproperties ('vulcan.processed' = '{value}')")
    return read, time.perf_counter() - started


def one_thread(conn: Any, step: Any, tables: list[str], stamp: str) -> None:
    """One of the job's threads: its models one after the other, on its own connection."""
    for table in tables:
        step(conn, table, f"{stamp}-{table}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", type=int, default=25)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="vulcan-state-cost-"))
    tables = [f"m{i:02d}" for i in range(args.models)]
    with thrift_server(workdir) as connection:
        conn = connect(connection)
        run(conn, "create schema if not exists bench_state")
        run(
            conn,
            f"create table bench_state.state ({STATE_COLUMNS})"
            " partitioned by (relation string, append_id string) stored as parquet",
        )
        for fmt in ("parquet", "delta"):
            for table in tables:
                run(conn, f"drop table if exists bench_state.{table}")
                run(
                    conn,
                    f"create table bench_state.{table} using {fmt} as"
                    " select id, date'2025-01-01' as day from range(100)",
                )
                if fmt == "parquet":  # the log's history (30 appends): once, for both formats
                    rows = ", ".join(
                        f"('m', timestamp'{low}', timestamp'{high}', 'processed', '1', 'inv',"
                        f" current_timestamp(), 0, '', '{table}', 'h{d:03d}')"
                        for d, (low, high) in enumerate(history(30))
                    )
                    run(
                        conn,
                        "insert into bench_state.state partition (relation, append_id)"
                        f" select * from values {rows}",
                    )
                run(
                    conn,
                    f"alter table bench_state.{table} set tblproperties"
                    f" ('vulcan.processed' = '{json.dumps(history(30))}')",
                )
            pool = [connect(connection) for _ in range(args.threads)]
            for way, step in (("log", log_round), ("props", props_round)):
                if way == "log" and fmt == "delta":
                    continue  # the log does not depend on the models' format
                walls, cpus, reads, writes = [], [], [], []
                for r in range(args.repeat):
                    busy, started = _busy_seconds(), time.perf_counter()
                    with ThreadPoolExecutor(args.threads) as executor:
                        list(
                            executor.map(
                                one_thread,
                                pool,
                                [step] * args.threads,
                                [tables[t :: args.threads] for t in range(args.threads)],
                                [f"r{r}"] * args.threads,
                            )
                        )
                    walls.append(time.perf_counter() - started)
                    after = _busy_seconds()
                    cpus.append((after - busy) if after is not None and busy is not None else 0.0)
                    alone = [step(conn, tables[0], f"a{r}-{i}") for i in range(5)]
                    reads += [a[0] for a in alone]
                    writes += [a[1] for a in alone]
                print(
                    f"{way:5} models {fmt:7}: round of {len(tables)} on {args.threads} threads:"
                    f" wall {statistics.median(walls):.2f} s, busy CPU"
                    f" {statistics.median(cpus):.2f} s; alone: read"
                    f" {statistics.median(reads) * 1000:.0f} ms, write"
                    f" {statistics.median(writes) * 1000:.0f} ms",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
