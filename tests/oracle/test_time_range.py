"""The time_range oracle (tests/oracle/time_range.py): which partitions a batch replaces, and
the escaped spec that drops them."""

from __future__ import annotations

from tests.oracle.config import ModelConfig, validate
from tests.oracle.time_range import partition_spec_sql, partitions_in_range


def cfg() -> ModelConfig:
    return validate("m", "incremental_by_time_range", {"time_column": "d", "start": "2025-01-01"})


def test_partitions_in_range_and_spec_escaping() -> None:
    parts = [
        "d=2024-12-31/r=a",
        "d=2025-01-01/r=a",
        "d=2025-01-03/r=b%27c",
        "d=__HIVE_DEFAULT_PARTITION__/r=a",
        "d=2025-01-04/r=a",
    ]
    found = partitions_in_range(parts, cfg(), "date", "2025-01-01 00:00:00", "2025-01-04 00:00:00")
    assert found == [{"d": "2025-01-01", "r": "a"}, {"d": "2025-01-03", "r": "b'c"}]
    assert partition_spec_sql(found[1]) == "partition (`d` = '2025-01-03', `r` = 'b\\'c')"
    fmt = validate(
        "m", "incremental_by_time_range", {"time_column": ["ds", "%Y%m%d"], "start": "2025-01-01"}
    )
    assert partitions_in_range(
        ["ds=20250102", "ds=20250110"], fmt, "string", "2025-01-01 00:00:00", "2025-01-05 00:00:00"
    ) == [{"ds": "20250102"}]
