"""The oracle of incremental_by_time_range's partition replacement
(macros/kinds/time_range/time_range_partitions.sql): which partitions of a table a batch
replaces, and the spec that drops them. The Python reference the Jinja is checked against;
never run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from urllib.parse import unquote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dbt.adapters.vulcan.timemacros import to_python_format
from dbt.adapters.vulcan.timeutil import VulcanConfigError, parse_time
from tests.oracle.config import ModelConfig
from tests.oracle.engine import sql_string

__all__ = ["partition_spec_sql", "partitions_in_range", "session_time_to_utc"]


def session_time_to_utc(value: datetime, zone: str) -> datetime:
    """A wall-clock time of Spark's session time zone (a region or an offset) as naive UTC;
    of a repeated hour, the earlier."""
    text = zone.strip()
    if text.upper() in ("Z", "UTC", "GMT", "UT"):
        return value
    m = re.fullmatch(r"(?:UTC|GMT|UT)?([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?", text)
    if m:
        offset = timedelta(hours=int(m[2]), minutes=int(m[3] or 0), seconds=int(m[4] or 0))
        return value - offset if m[1] == "+" else value + offset
    try:
        tz = ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise LookupError(f"session time zone {text!r}") from exc
    local = value.replace(tzinfo=tz, fold=0)
    return local.astimezone(timezone.utc).replace(tzinfo=None)


def partitions_in_range(
    partitions: list[str],
    cfg: ModelConfig,
    time_type: str,
    start: str,
    end: str,
    session_zone: str = "UTC",
) -> list[dict[str, str]]:
    """Partitions (from SHOW PARTITIONS) whose time value lies in [start, end); a TIMESTAMP
    value is the session zone's wall clock."""
    low, high = parse_time(start, "start"), parse_time(end, "end")
    if time_type == "timestamp":
        session_time_to_utc(low, session_zone)  # a zone it cannot read fails first
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
                if time_type == "timestamp":
                    value = session_time_to_utc(value, session_zone)
        except (ValueError, VulcanConfigError):
            continue
        if low <= value < high:
            out.append(values)
    return out


def partition_spec_sql(values: Mapping[str, str]) -> str:
    """`partition (k = 'v', ...)` for ALTER TABLE ... DROP, every value escaped."""
    return "partition (" + ", ".join(f"`{k}` = {sql_string(v)}" for k, v in values.items()) + ")"
