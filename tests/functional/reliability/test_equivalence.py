"""The smelt contract on seeded random data: a model built incrementally over many runs (the
execution time advancing by random steps) equals the same model built in one run; and
re-running any processed range (vulcan_start/vulcan_end) leaves the table's rows identical.

Kinds covered: incremental_by_time_range (daily batches, hourly), incremental_by_unique_key
(latest row per key as of the execution time) and incremental_by_partition (partitions
recomputed up to the execution time). incremental_unmanaged and the SCD type 2 kinds are left
out on purpose: their result depends on the run history (appends, captured versions), so a
single run is not supposed to equal many."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

import pytest

from tests.support.functional import rows, run, state_rows
from tests.support.reliability import (
    create_events,
    day,
    merged,
    random_events,
    replay_checked,
    ts,
)

SEED = 777
DAYS = 14

TIME_RANGE_DAILY = """
{{ config(materialized='incremental_by_time_range', time_column='event_date',
          start='2025-01-01', batch_size=3) }}
select event_date, count(*) as events, sum(amount) as amount, max(event_id) as last_event
from {{ this.schema }}.events
where event_date between @start_ds and @end_ds
group by event_date
"""

TIME_RANGE_HOURLY = """
{{ config(materialized='incremental_by_time_range', time_column='hour',
          start='2025-01-01', cron='@hourly') }}
select date_trunc('HOUR', event_ts) as hour, count(*) as events, sum(amount) as amount
from {{ this.schema }}.events
where event_ts between @start_dt and @end_dt
group by 1
"""

UNIQUE_KEY = """
{{ config(materialized='incremental_by_unique_key', unique_key='customer_id') }}
select customer_id, event_id, event_ts, amount from (
  select *, row_number() over (partition by customer_id order by event_ts desc, event_id desc) as rn
  from {{ this.schema }}.events
  where event_ts < @execution_dt
) where rn = 1
"""

PARTITION = """
{{ config(materialized='incremental_by_partition', partitioned_by=['event_date']) }}
select customer_id, count(*) as events, sum(amount) as amount, event_date
from {{ this.schema }}.events
where event_ts < @execution_dt
group by event_date, customer_id
"""

# name: (body, its columns in a fixed order: a parquet table puts its partition columns last)
BODIES = {
    "daily": (TIME_RANGE_DAILY, "event_date, events, amount, last_event"),
    "hourly": (TIME_RANGE_HOURLY, "hour, events, amount"),
    "latest": (UNIQUE_KEY, "customer_id, event_id, event_ts, amount"),
    "parts": (PARTITION, "event_date, customer_id, events, amount"),
}


def digest(project: Any, name: str) -> list[tuple[Any, ...]]:
    columns = BODIES[name.rsplit("_", 1)[0]][1]
    return rows(project, f"select {columns} from {project.test_schema}.{name} order by 1, 2")


def execution_times(rng: random.Random) -> list[datetime]:
    """Random steps of 1.5 to 6 days (at random hours) from day 0 up to the last day."""
    start = datetime.combine(day(0), datetime.min.time())
    end = datetime.combine(day(DAYS), datetime.min.time())
    out = []
    moment = start + timedelta(hours=rng.randint(6, 36))
    while moment < end:
        out.append(moment)
        moment += timedelta(hours=rng.randint(36, 144))
    return [*out, end]


def vars_at(moment: datetime, **extra: str) -> dict[str, str]:
    return {"vulcan_execution_time": moment.strftime("%Y-%m-%d %H:%M:%S"), **extra}


@pytest.mark.skip_profile("thrift", reason="in-process runs; covered by the embedded targets")
class TestIncrementalEqualsFull:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        out = {}
        for name, (body, _) in BODIES.items():
            out[f"{name}_inc.sql"] = body
            out[f"{name}_full.sql"] = body
        return out

    def test_many_runs_equal_one_run_and_reruns_are_idempotent(
        self, project: Any, table_format: str
    ) -> None:
        rng = random.Random(SEED)
        events = random_events(SEED, DAYS, per_day=(0, 8))
        create_events(project, "events", events, table_format)
        moments = execution_times(rng)
        assert len(moments) >= 5
        for moment in moments:
            run("run", "--threads", "4", "-s", "*_inc", vars=vars_at(moment))
        run("run", "--threads", "4", "-s", "*_full", vars=vars_at(moments[-1]))

        digests = {}
        for name in BODIES:
            incremental = digest(project, f"{name}_inc")
            assert incremental, name
            assert incremental == digest(project, f"{name}_full"), name
            digests[name] = incremental
        # the daily model against the data itself
        totals: dict[Any, list[int]] = {}
        for event_id, _, d, _, amount in events:
            n, total, last = totals.get(d, [0, 0, 0])
            totals[d] = [n + 1, total + amount, max(last, event_id)]
        assert digests["daily"] == [(d, *totals[d]) for d in sorted(totals)]
        # incrementally: one batch row per run and batch, never the same interval twice
        for name in ("daily", "hourly"):
            assert replay_checked(state_rows(project, f"{name}_inc")) == [
                (ts(day(0)), ts(day(DAYS)))
            ]

        # idempotency: recompute seeded random processed ranges; rows stay identical
        for _ in range(2):
            first = rng.randrange(DAYS - 1)
            last = rng.randrange(first, DAYS - 1)
            window = vars_at(
                moments[-1], vulcan_start=day(first).isoformat(), vulcan_end=day(last).isoformat()
            )
            before = {n: len(state_rows(project, f"{n}_inc")) for n in ("daily", "hourly")}
            run("run", "--threads", "2", "-s", "daily_inc", "hourly_inc", vars=window)
            for name in ("daily", "hourly"):
                assert digest(project, f"{name}_inc") == digests[name], window
                # exactly the range was recomputed and recorded
                new = state_rows(project, f"{name}_inc")[before[name] :]
                assert merged([(s, e) for s, e, t in new if t == "processed"]) == [
                    (ts(day(first)), ts(day(last + 1)))
                ]
        # and the untracked kinds, re-run at the same execution time
        run("run", "-s", "latest_inc", "parts_inc", vars=vars_at(moments[-1]))
        for name in ("latest", "parts"):
            assert digest(project, f"{name}_inc") == digests[name]
