"""The unique-key write at several table sizes (issue #49 item 4): dbt-vulcan's MERGE against
dbt-spark's `merge`, side by side in one embedded SparkSession on Delta, 1 % of the keys
changed.

    .venv/bin/python benchmarks/write_scale.py [--rows 1000000 --rows 10000000] [--repeat 3]

Per size, one Delta table of `rows` customers and a batch of the 1 % whose keys hash to 0
(mod 100), changed. Each repetition copies the table for each system and times one
statement: dbt-vulcan's MERGE as the macros render it for a batch of a time range (from the
oracle that the macros' output is tested against, tests/oracle/unique_key.py: the
duplicate-key guard, and the semi join and anti join that leave unchanged rows out), then
dbt-spark's merge (`when matched then update set *
when not matched then insert *`). Printed: the medians and their ratio per size; the goal is
that the ratio at the largest size does not exceed the ratio at the smallest (no cost that
grows with the table faster than dbt-spark's own). Only the write is timed: the state read and
append do not depend on the table's size (benchmarks/kinds.py times whole runs).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.oracle.config import UNIQUE_KEY, validate  # noqa: E402
from tests.oracle.unique_key import UpsertSpec  # noqa: E402
from tests.spark_targets import server_side_parameters  # noqa: E402

COLUMNS = ["id", "name", "price_cents", "updated_at"]
BATCH = "select * from wscale.batch"


def vulcan_merge(target: str) -> str:
    cfg = validate("customers", UNIQUE_KEY, {"unique_key": "id", "file_format": "delta"})
    return UpsertSpec.build(cfg).merge_statement(target, BATCH, COLUMNS)


def dbt_merge(target: str) -> str:
    return (
        f"merge into {target} as DBT_INTERNAL_DEST using ({BATCH}) as DBT_INTERNAL_SOURCE "
        "on DBT_INTERNAL_SOURCE.id = DBT_INTERNAL_DEST.id "
        "when matched then update set * when not matched then insert *"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, action="append", help="table sizes (1M and 10M)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args(argv)
    from pyspark.sql import SparkSession

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="vulcan-write-scale-"))
    builder = SparkSession.builder
    for key, value in server_side_parameters("delta", workdir).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sql("create schema if not exists wscale")
    ratios = []
    for rows in args.rows or [1_000_000, 10_000_000]:
        spark.sql("drop table if exists wscale.base")
        spark.sql(
            "create table wscale.base using delta as select id, concat('n', id) as name,"
            " id % 1000 as price_cents, timestamp'2025-01-01' as updated_at"
            f" from range(0, {rows}, 1, 8)"
        )
        spark.sql("drop table if exists wscale.batch")
        spark.sql(
            "create table wscale.batch using delta as select id, concat('m', id) as name,"
            " id % 997 as price_cents, timestamp'2025-01-02' as updated_at"
            f" from range(0, {rows}, 1, 8) where xxhash64(id) % 100 = 0"
        )
        times: dict[str, list[float]] = {"vulcan": [], "dbt": []}
        for _ in range(args.repeat):
            for system, statement in (("vulcan", vulcan_merge), ("dbt", dbt_merge)):
                target = f"wscale.{system}"
                spark.sql(f"drop table if exists {target}")
                spark.sql(f"create table {target} using delta as select * from wscale.base")
                started = time.perf_counter()
                spark.sql(statement(target)).collect()
                times[system].append(time.perf_counter() - started)
        vulcan, dbt = statistics.median(times["vulcan"]), statistics.median(times["dbt"])
        ratios.append(vulcan / dbt)
        print(
            f"{rows:>12,} rows: dbt-vulcan MERGE {vulcan:.2f} s, dbt-spark merge {dbt:.2f} s,"
            f" ratio {vulcan / dbt:.2f}x (runs: {times})",
            flush=True,
        )
    met = ratios[-1] <= ratios[0]
    print(f"ratio at the largest size <= at the smallest: {'yes' if met else 'no'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
