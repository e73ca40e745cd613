"""The time column's grain and format against the schedule and the table format
(engine/column_checks.sql's vulcan_time_grain_problems), against the oracle
(tests/oracle/engine.py's grain_problems): a column that holds days under an hourly cron, and a
text format with a time of day that does not sort as text on Delta, are refused."""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle.config import validate
from tests.oracle.engine import grain_problems
from tests.support.macro_harness import Harness, shared_harness


def harness() -> Harness:
    return shared_harness("vulcan")


CASES = [
    ("@hourly", "date", None, "parquet"),
    ("@hourly", "string", "yyyy-MM-dd", "delta"),
    ("@hourly", "string", "MM/dd/yyyy", "iceberg"),
    ("@hourly", "string", "yyyy-MM-dd HH", "parquet"),
    ("@hourly", "timestamp", None, "delta"),
    ("@daily", "date", None, "delta"),
    ("*/5 * * * *", "date", None, "parquet"),
    ("@daily", "string", "MM/dd/yyyy HH:mm", "delta"),
    ("@daily", "string", "MM/dd/yyyy HH:mm", "parquet"),
    ("@daily", "string", "yyyy-MM-dd HH:mm", "delta"),
    ("@daily", "string", "MM/dd/yyyy", "delta"),
]


@pytest.mark.parametrize(("cron", "time_type", "fmt", "file_format"), CASES)
def test_grain_problems_equal_the_oracle(
    cron: str, time_type: str, fmt: str | None, file_format: str
) -> None:
    config: dict[str, Any] = {
        "time_column": ["d", fmt] if fmt else "d",
        "cron": cron,
        "start": "2025-01-01",
        "file_format": file_format,
    }
    cfg = validate("m", "incremental_by_time_range", config)
    expected = grain_problems(cfg, time_type)
    jinja_cfg = {
        "model": "m",
        "kind": "incremental_by_time_range",
        "time_column": "d",
        "time_format": fmt,
        "cron": cfg.cron,
        "interval_unit": cfg.interval_unit,
        "file_format": file_format,
    }
    assert harness().call("vulcan_time_grain_problems", jinja_cfg, time_type) == expected


def test_a_day_column_under_an_hourly_cron_is_refused_with_the_fix() -> None:
    config = {"time_column": "d", "cron": "@hourly", "start": "2025-01-01"}
    cfg = validate("m", "incremental_by_time_range", config)
    [problem] = grain_problems(cfg, "date")
    assert problem.startswith(
        "time_column: 'd' holds days (type date) but the interval unit is hour (cron '0 * * * *')"
    )
    assert 'a daily schedule (cron: "@daily" or interval_unit: day)' in problem
    assert grain_problems(cfg, "timestamp") == []
