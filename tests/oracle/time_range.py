"""The oracle of incremental_by_time_range's partition replacement
(macros/kinds/time_range/partitions_in_range.sql): which partitions of a table a batch
replaces, and the spec that drops them. The Python reference the Jinja is checked against;
never run.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from urllib.parse import unquote

from dbt.adapters.vulcan.timemacros import to_python_format
from dbt.adapters.vulcan.timeutil import VulcanConfigError, parse_time
from tests.oracle.config import ModelConfig
from tests.oracle.engine import sql_string

__all__ = ["partition_spec_sql", "partitions_in_range"]


def partitions_in_range(
    partitions: list[str], cfg: ModelConfig, time_type: str, start: str, end: str
) -> list[dict[str, str]]:
    """Partitions (from SHOW PARTITIONS) whose time value lies in [start, end)."""
    low, high = parse_time(start, "start"), parse_time(end, "end")
    out: list[dict[str, str]] = []
    assert cfg.time_column is not None
    for spec in partitions:
        values = dict(
            (unquote(k), unquote(v))
            for k, _, v in (part.partition("=") for part in spec.split("/"))
        )
        raw = next((v for k, v in values.items() if k.lower() == cfg.time_column.lower()), None)
        if raw is None or raw == "__HIVE_DEFAULT_PARTITION__":
            continue
        try:
            if time_type == "string":
                value = datetime.strptime(raw, to_python_format(cfg.time_format))
            elif time_type in ("int", "bigint", "epoch"):
                value = datetime.utcfromtimestamp(int(raw))
            elif time_type == "epoch_millis":
                value = datetime.utcfromtimestamp(int(raw) / 1000)
            else:
                value = parse_time(raw, cfg.time_column)
        except (ValueError, VulcanConfigError):
            continue
        if low <= value < high:
            out.append(values)
    return out


def partition_spec_sql(values: Mapping[str, str]) -> str:
    """`partition (k = 'v', ...)` for ALTER TABLE ... DROP, every value escaped."""
    return "partition (" + ", ".join(f"`{k}` = {sql_string(v)}" for k, v in values.items()) + ")"
