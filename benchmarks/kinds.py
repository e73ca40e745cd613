"""Every kind against its dbt counterpart, a fresh `dbt` process per run (issue 32, item 8).

Part of the fresh-process suite (`make bench`, embedded sessions; `make bench-thrift`, one
Spark Thrift Server). Delta, a target of `size.kind_keys` rows (full size: 1,000,000
customers, `bench_src.customers` of benchmarks/generate.py), 1 % of the keys changed each day.
Each pair gets the same input:

- `unique_key`: incremental_by_unique_key vs dbt-spark's incremental `merge` (unique_key `id`):
  the rows changed since the day before (day 0: all);
- `partition`: incremental_by_partition vs dbt-spark's `insert_overwrite`, partitioned by
  `segment` (100 segments of 1 % of the keys): day d rewrites one segment (day 0: all);
- `unmanaged`: incremental_unmanaged vs dbt-spark's `append`: the changed rows, appended;
- `scd_by_time`: scd_type_2_by_time vs a dbt snapshot, strategy timestamp (`updated_at`): the
  whole day's snapshot;
- `scd_by_column`: scd_type_2_by_column vs a dbt snapshot, strategy check (name, price_cents):
  the whole day's snapshot;
- `tracked`: tracked (group_key `id`) vs dbt-spark's incremental `merge` (unique_key `id`):
  the whole day's snapshot (dbt's way to keep a table equal to an entity set's current rows).

`run.py --kind-keys N` (repeatable) runs the part once per target size, each from nothing,
and compares each pair's ratio across the sizes (issue #49 item 4: a daily run's cost must not
grow with the table).

Day 0 builds every table (the initial load, reported apart); days 1..`size.kind_days` are the
daily runs the goals compare (medians). Each day runs every pair's systems one after the
other (dbt-vulcan, dbt-vulcan's package, the dbt counterpart; each day a different one
first), then checks that the three tables of each pair hold the same rows.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from benchmarks.cold_process import ColdRun, Projects, compare, spark_task
from benchmarks.generate import Size, at

# pair -> (label, vulcan model, dbt counterpart's label, its verb, its node)
PAIRS: dict[str, tuple[str, str, str, str, str]] = {
    "unique_key": ("unique key", "kind_unique_key", "dbt-spark merge", "run", "kind_merge"),
    "partition": (
        "partition",
        "kind_partition",
        "dbt-spark insert_overwrite",
        "run",
        "kind_insert_overwrite",
    ),
    "unmanaged": ("unmanaged", "kind_unmanaged", "dbt-spark append", "run", "kind_append"),
    "scd_by_time": (
        "SCD type 2 by time",
        "kind_scd_by_time",
        "dbt snapshot, timestamp",
        "snapshot",
        "snap_timestamp",
    ),
    "scd_by_column": (
        "SCD type 2 by column",
        "kind_scd_by_column",
        "dbt snapshot, check",
        "snapshot",
        "snap_check",
    ),
    "tracked": (
        "tracked",
        "kind_tracked",
        "dbt-spark merge, whole snapshot",
        "run",
        "kind_merge_all",
    ),
}
SYSTEMS = ("vulcan", "vulcan_package", "dbt")
SCHEMA = {"vulcan": "kinds_adapter", "vulcan_package": "kinds_package", "dbt": "kinds_dbt"}
PROJECT = {"vulcan": "kinds_adapter", "vulcan_package": "kinds_package", "dbt": "kinds_package"}
STATE_SCHEMA = "vulcan_state_kinds"

_COLUMNS = "id, name, price_cents, updated_at"
_SOURCE = "{{ source('bench', 'customers') }}"
_CHANGED = f"select {_COLUMNS} from {_SOURCE}\nwhere updated_at >= '{{{{ var('kind_since') }}}}'\n"
_SEGMENT = "cast(id div {{ var('kind_segment_keys') }} as int)"
_SEGMENTS = (
    f"select {_COLUMNS}, {_SEGMENT} as segment from {_SOURCE}\n"
    "{% if var('kind_segment') | int >= 0 %}"
    f"where {_SEGMENT} = {{{{ var('kind_segment') }}}}"
    "{% endif %}\n"
)
_WHOLE = f"select {_COLUMNS} from {_SOURCE}\n"
_DELTA = "file_format='delta'"

MODELS: dict[str, str] = {
    "kind_unique_key": (
        f"{{{{ config(materialized='incremental_by_unique_key', unique_key='id', {_DELTA}) }}}}\n"
        + _CHANGED
    ),
    "kind_merge": (
        "{{ config(materialized='incremental', incremental_strategy='merge', unique_key='id',"
        f" {_DELTA}) }}}}\n" + _CHANGED
    ),
    "kind_partition": (
        "{{ config(materialized='incremental_by_partition', partitioned_by=['segment'],"
        f" {_DELTA}) }}}}\n" + _SEGMENTS
    ),
    "kind_insert_overwrite": (
        "{{ config(materialized='incremental', incremental_strategy='insert_overwrite',"
        f" partition_by=['segment'], {_DELTA}) }}}}\n" + _SEGMENTS
    ),
    "kind_unmanaged": f"{{{{ config(materialized='incremental_unmanaged', {_DELTA}) }}}}\n"
    + _CHANGED,
    "kind_append": (
        f"{{{{ config(materialized='incremental', incremental_strategy='append', {_DELTA}) }}}}\n"
        + _CHANGED
    ),
    "kind_scd_by_time": (
        "{{ config(materialized='scd_type_2_by_time', unique_key='id',"
        f" updated_at_name='updated_at', {_DELTA}) }}}}\n" + _WHOLE
    ),
    "kind_scd_by_column": (
        "{{ config(materialized='scd_type_2_by_column', unique_key='id',"
        f" columns=['name', 'price_cents'], {_DELTA}) }}}}\n" + _WHOLE
    ),
    "kind_tracked": (
        f"{{{{ config(materialized='tracked', meta={{'group_key': 'id'}}, {_DELTA}) }}}}\n" + _WHOLE
    ),
    "kind_merge_all": (
        "{{ config(materialized='incremental', incremental_strategy='merge', unique_key='id',"
        f" {_DELTA}) }}}}\n" + _WHOLE
    ),
}
SNAPSHOTS: dict[str, str] = {
    "snap_timestamp": (
        "{% snapshot snap_timestamp %}\n"
        "{{ config(schema=var('bench_schema'), unique_key='id', strategy='timestamp',"
        f" updated_at='updated_at', {_DELTA}) }}}}\n" + _WHOLE + "{% endsnapshot %}\n"
    ),
    "snap_check": (
        "{% snapshot snap_check %}\n"
        "{{ config(schema=var('bench_schema'), unique_key='id', strategy='check',"
        f" check_cols=['name', 'price_cents'], {_DELTA}) }}}}\n" + _WHOLE + "{% endsnapshot %}\n"
    ),
}

# the rows a table holds: count, then a hash checksum (SCD type 2: of every version, then of
# the current ones)
_ROWS = "select count(*), sum(cast(hash(id, name, price_cents) as bigint)) from {table}"
_VERSIONS = """
select count(*), sum(cast(hash(id, name, price_cents) as bigint)),
       count_if({valid_to} is null),
       sum(if({valid_to} is null, cast(hash(id, name, price_cents) as bigint), 0))
from {table}
"""


def write_projects(projects: Projects, params: dict[str, str], connection: Any) -> None:
    """The kinds' two projects (adapter; stock type: spark with the package), with the state
    table's default format (parquet) in a schema of their own."""
    from benchmarks.project import write_project

    common: dict[str, Any] = {
        "connection": connection,
        "models": MODELS,
        "snapshots": SNAPSHOTS,
        "extra_vars": {"kind_since": str(at(0)), "kind_segment": -1, "kind_segment_keys": 1},
    }
    write_project(
        projects.folder("kinds_adapter"),
        params,
        "parquet",
        adapter_type="vulcan",
        profile_extra={"state_schema": STATE_SCHEMA},
        **common,
    )
    common["extra_vars"] |= {"vulcan_state_schema": STATE_SCHEMA}
    write_project(
        projects.folder("kinds_package"), params, "parquet", adapter_type="spark", **common
    )
    projects.deps("kinds_adapter", "kinds_package")


def checks_sql(pair: str) -> dict[str, str]:
    """Each system's checksum query of one pair's table."""
    _, model, _, verb, node = PAIRS[pair]
    out = {}
    for system in SYSTEMS:
        table = f"{SCHEMA[system]}.{node if system == 'dbt' else model}"
        if pair.startswith("scd"):
            valid_to = "dbt_valid_to" if verb == "snapshot" and system == "dbt" else "valid_to"
            out[system] = _VERSIONS.format(table=table, valid_to=valid_to)
        else:
            out[system] = _ROWS.format(table=table)
    return out


def run(
    size: Size,
    projects: Projects,
    connection: dict[str, Any] | None = None,
    only: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Every pair (or those named in `only`), day 0 to `size.kind_days`; the runs, checks and
    problems."""
    from tests.spark_targets import server_side_parameters

    started = time.perf_counter()
    pairs = {k: v for k, v in PAIRS.items() if not only or k in only}
    workdir = projects.workdir
    write_projects(projects, server_side_parameters("delta", workdir), connection)
    # from nothing: an earlier size's tables (same server, or same workdir) are dropped
    spark_task(workdir, "drop_schemas", connection, schemas=[*SCHEMA.values(), STATE_SCHEMA])
    keys = size.kind_keys
    segment_keys = max(1, keys // 100)
    runs: list[ColdRun] = []
    checks: list[dict[str, Any]] = []
    generated: list[dict[str, Any]] = []
    for d in range(size.kind_days + 1):
        made = spark_task(workdir, "customers", connection, size=asdict(size), day=d, keys=keys)
        generated.append(made)
        print(f"kinds day {d}: {made['rows']} customers in {made['seconds']} s", flush=True)
        vars_ = {
            "vulcan_execution_time": str(at(d, 6)),
            "kind_since": str(at(d)),
            "kind_segment": -1 if d == 0 else (7 * d) % 100,
            "kind_segment_keys": segment_keys,
        }
        # a different system first each day (dbt-vulcan, its package, dbt): none is always the
        # first to run after the day's input was written
        order = SYSTEMS[d % len(SYSTEMS) :] + SYSTEMS[: d % len(SYSTEMS)]
        for pair, (_, model, _, verb, node) in pairs.items():
            for system in order:
                call = ("run", model) if system != "dbt" else (verb, node)
                one = {**vars_, "bench_schema": SCHEMA[system]}
                runs.append(projects.invoke(pair, system, d, one, PROJECT[system], *call))
        queries = {f"{pair}|{s}": sql for pair in pairs for s, sql in checks_sql(pair).items()}
        sums = spark_task(workdir, "sums", connection, queries=queries, fmt="delta")
        for pair in pairs:
            values = {s: sums[f"{pair}|{s}"] for s in SYSTEMS}
            checks.append(compare(f"{pairs[pair][0]}, day {d}", values))
    problems = [c["what"] + ": outputs differ" for c in checks if not c["ok"]]
    return {
        "runs": [asdict(r) for r in runs],
        "checks": checks,
        "problems": problems,
        "generated": generated,
        "keys": keys,
        "days": size.kind_days,
        "seconds": round(time.perf_counter() - started, 1),
    }
