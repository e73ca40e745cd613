"""The deterministic data of the benchmarks, generated inside Spark from a seed.

Every value is a hash of (seed, row id, column number), so the data depend only on the seed
and the size, never on Spark's partitioning or the number of cores.

- `bench_src.events`: `days + 1` days of events from 2025-01-01 (the extra day is the "one new
  day" of P2), `per_day` rows a day over `users` users, parquet, partitioned by `event_date`.
- `bench_src.customers`: the daily snapshot of `keys` customers for SCD type 2; on each day
  after day 0, 1 % of the keys (chosen by hash) change their name and price.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

START = date(2025, 1, 1)
SOURCE_SCHEMA = "bench_src"
SEED = 20251122


@dataclass(frozen=True)
class Size:
    """How much data and how many repetitions a benchmark run uses."""

    name: str
    days: int  # days of the backfill (the source holds one more)
    per_day: int  # events per day
    users: int
    hourly_intervals: tuple[int, ...]  # P5: processed interval counts
    scd_keys: int
    scd_days: int  # daily change runs after the initial load
    repeats: int
    kind_keys: int = 1_000_000  # the kinds suite's target rows (benchmarks/kinds.py)
    kind_days: int = 3  # its daily change runs after the initial load
    job_days: int = 30  # the daily job's backfill (benchmarks/job.py)


FULL = Size("full", 365, 40_000, 12_000, (10, 100, 1000), 100_000, 5, 3)
QUICK = Size(
    "quick", 10, 2_000, 300, (10, 100), 1_000, 1, 1, kind_keys=2_000, kind_days=1, job_days=3
)


def day(n: int) -> date:
    """The n-th day of the data (0-based)."""
    return START + timedelta(days=n)


def at(n: int, hours: int = 0) -> datetime:
    """Midnight of day n plus `hours`."""
    return datetime.combine(day(n), datetime.min.time()) + timedelta(hours=hours)


def _hash(column: int, *parts: str, seed: int = SEED) -> str:
    return f"xxhash64({seed}, {', '.join(parts)}, {column})"


def events_sql(size: Size, seed: int = SEED, extra_days: int = 1) -> str:
    """CREATE TABLE AS SELECT of the events source: `size.days + extra_days` days."""
    rows = (size.days + extra_days) * size.per_day
    return f"""
create table {SOURCE_SCHEMA}.events using parquet partitioned by (event_date) as
select
  id as event_id,
  cast(pmod({_hash(1, "id", seed=seed)}, {size.users}) as int) as user_id,
  cast(pmod({_hash(2, "id", seed=seed)}, 1000) as int) as product_id,
  pmod({_hash(3, "id", seed=seed)}, 100000) as amount_cents,
  timestamp_seconds(
    {_epoch(at(0))}
    + (id div {size.per_day}) * 86400
    + pmod({_hash(4, "id", seed=seed)}, 86400)
  ) as event_ts,
  date_add(date'{START.isoformat()}', cast(id div {size.per_day} as int)) as event_date
from range(0, {rows}, 1, 4)
"""


def _epoch(moment: datetime) -> int:
    """Seconds since 1970 of a naive UTC datetime."""
    return int((moment - datetime(1970, 1, 1)).total_seconds())


def customers_sql(size: Size, snapshot_day: int, seed: int = SEED, keys: int = 0) -> str:
    """The customers snapshot of `snapshot_day` (`keys` customers, default `size.scd_keys`):
    key k has changed on day d (1 <= d <= the snapshot day) when hash(seed, k, d) % 100 == 0;
    its version counts those changes."""
    changes = f"""
    select k.id, d.n as change_day,
           pmod({_hash(5, "k.id", "d.n", seed=seed)}, 100) = 0 as changed
    from range(0, {keys or size.scd_keys}) as k
    cross join (select explode(sequence(0, {snapshot_day})) as n) as d
    """
    return f"""
create table {SOURCE_SCHEMA}.customers using parquet as
select
  id,
  concat('customer_', id, '_v', version) as name,
  cast(pmod({_hash(6, "id", "version", seed=seed)}, 100000) as bigint) as price_cents,
  timestamp_seconds({_epoch(at(0))} + last_change * 86400) as updated_at
from (
  select id,
         count_if(changed and change_day > 0) as version,
         coalesce(max(if(changed and change_day > 0, change_day, null)), 0) as last_change
  from ({changes}) as c
  group by id
) as v
"""


def create_events(spark: Any, size: Size, seed: int = SEED, extra_days: int = 1) -> None:
    """(Re)creates the events source: the backfill's days and `extra_days` more."""
    spark.sql(f"create schema if not exists {SOURCE_SCHEMA}")
    spark.sql(f"drop table if exists {SOURCE_SCHEMA}.events")
    spark.sql(events_sql(size, seed, extra_days))


def create_customers(
    spark: Any, size: Size, snapshot_day: int, seed: int = SEED, keys: int = 0
) -> None:
    """(Re)creates the customers source as the snapshot of `snapshot_day`."""
    spark.sql(f"create schema if not exists {SOURCE_SCHEMA}")
    spark.sql(f"drop table if exists {SOURCE_SCHEMA}.customers")
    spark.sql(customers_sql(size, snapshot_day, seed, keys))
