"""The Jinja side of a run's plan at 100, 1,000 and 10,000 log rows: the read's rows as the
result table hands them over (the stored text), parsed and ordered (state/log.sql,
`vulcan_log_read`), then `vulcan_plan_intervals`.

    .venv/bin/python benchmarks/plan_jinja.py [--repeat 5] [--rows 100,1000,10000]

The log is a daily model that ran once a day: one processed row per day, each with the details
a batch records; the plan is the next run's (one new day due). The macros are rendered by the
macro harness (tests/support/macro_harness.py: the package's macros in dbt's Jinja environment,
no database), in this process, best of `--repeat`. Not a test: numbers for issue 32's goal
(the plan at 10,000 log rows within 1.5x of 100 rows; benchmarks/plan_cost.py times the read).
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FIRST_DAY = datetime(2000, 1, 1)
RELATION = "bench.daily"
DETAILS = '{"layout": {"partitioned_by": ["event_date"]}, "time_type": "date"}'


def stored_rows(n: int) -> list[tuple[Any, ...]]:
    """n daily runs' processed rows as the state table stores them."""
    fmt = "%Y-%m-%d %H:%M:%S"
    return [
        (
            RELATION,
            "model.bench.daily",
            (FIRST_DAY + timedelta(days=d)).strftime(fmt),
            (FIRST_DAY + timedelta(days=d + 1)).strftime(fmt),
            "processed",
            "0123456789abcdef",
            f"{d:08d}-0000-0000-0000-000000000000",
            (FIRST_DAY + timedelta(days=d + 1, hours=1, microseconds=d)).strftime(fmt + ".%f"),
            1,
            DETAILS,
        )
        for d in range(n)
    ]


def params(n: int) -> dict[str, Any]:
    return {
        "start": FIRST_DAY.isoformat(" "),
        "end": None,
        "unit": "day",
        "week_start": 0,
        "due_end": (FIRST_DAY + timedelta(days=n + 1)).isoformat(" "),
        "allow_partials": False,
        "lookback": 0,
        "batch_size": None,
        "explicit": None,
        "rebuild": False,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rows", default="100,1000,10000")
    args = parser.parse_args()
    from tests.support.macro_harness import FakeResult, Harness

    harness = Harness()
    harness.call("vulcan_log_read", [RELATION])
    (read,) = harness.statements

    def plan(p: dict[str, Any]) -> Any:
        rows = harness.call("vulcan_log_read", [RELATION])[RELATION]
        return harness.call("vulcan_plan_intervals", rows, p)

    sizes = [int(n) for n in args.rows.split(",")]
    best: dict[int, float] = {}
    for n in sizes:
        harness.query_results[read] = FakeResult(stored_rows(n))
        p = params(n)
        assert [b["intervals"] for b in plan(p)["batches"]] == [1]
        times = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            plan(p)
            times.append(time.perf_counter() - started)
        best[n] = min(times)
    print("| log rows | read's rows parsed + plan, in Jinja (s, best) | vs the smallest |")
    print("|---:|---:|---:|")
    for n in sizes:
        print(f"| {n:,} | {best[n]:.4f} | {best[n] / best[sizes[0]]:.1f}x |")


if __name__ == "__main__":
    main()
