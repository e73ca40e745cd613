"""A Delta table partitioned by a TIMESTAMP column in a session whose time zone is not the
JVM's (engine/delta_time_zone.sql): Delta Lake before 4.1 stores every partition value shifted
(delta-io/delta#5599), so the run is refused before anything is written, naming the key and
the fix; the same zones, UTC spelled two ways, or Spark 4.1 run. The TIMESTAMP partition
columns come from the query's columns, the log, or (once) the table."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

import pytest

from tests.support.macro_harness import CompilerError, FakeResult, Harness, relation, shared_harness

PROBE = (
    "select current_timezone() as session_zone, reflect('java.time.ZoneId', 'systemDefault')"
    " as jvm_zone, version() as spark_version"
)


def cfg(**changes: Any) -> dict[str, Any]:
    base = {
        "model": "clicks",
        "kind": "incremental_by_time_range",
        "time_column": "ts",
        "file_format": "delta",
        "partition_cols": ["ts"],
    }
    return {**base, **changes}


@pytest.fixture
def h() -> Harness:
    harness = shared_harness("vulcan").reset()
    harness.context["model"] = {"alias": "clicks", "name": "clicks", "unique_id": "model.p.clicks"}
    return harness


def problem(h: Harness, session: str, jvm: str, version: str, **changes: Any) -> Any:
    columns = changes.pop("columns", ["ts"])
    return h.call("vulcan_delta_time_zone_problem", cfg(**changes), columns, session, jvm, version)


@pytest.mark.parametrize(
    ("session", "jvm", "version"),
    [
        ("America/New_York", "America/New_York", "4.0.5 abc"),
        ("UTC", "Etc/UTC", "3.5.9 abc"),
        ("Z", "Etc/UTC", "4.0.1"),
        ("+00:00", "GMT", "4.0.1"),
        ("America/New_York", "Etc/UTC", "4.1.4 abc"),
        ("Asia/Kolkata", "Etc/UTC", "4.3.0"),
        ("America/New_York", "Etc/UTC", "5.0.0"),
    ],
)
def test_the_same_zone_or_a_fixed_delta_writes(
    h: Harness, session: str, jvm: str, version: str
) -> None:
    assert problem(h, session, jvm, version) is None


def test_another_zone_on_spark_4_0_is_refused_naming_the_key_and_the_fix(h: Harness) -> None:
    found = problem(h, "America/New_York", "Etc/UTC", "4.0.5 7f6e")
    assert found.startswith("partition_by_time_column: the Delta table is partitioned by the")
    assert "TIMESTAMP column(s) ts" in found
    assert "'America/New_York' is not the JVM's 'Etc/UTC'" in found
    assert "the Delta Lake of Spark 4.0.5 would store" in found
    assert "delta-io/delta#5599" in found
    assert "Nothing was written" in found
    assert "spark.sql.session.timeZone: Etc/UTC" in found
    assert "set partition_by_time_column: false" in found


def test_a_partition_by_key_of_another_kind_names_its_own_key(h: Harness) -> None:
    h.context["model"] = {
        "name": "orders",
        "unique_id": "model.p.orders",
        "config": {"partition_by": ["placed_at"]},
    }
    found = problem(
        h,
        "Europe/Paris",
        "Etc/UTC",
        "3.5.9",
        kind="incremental_by_unique_key",
        partition_cols=["placed_at"],
        columns=["placed_at"],
    )
    assert found.startswith("partition_by: the Delta table is partitioned by")
    assert "partition by a date column instead of placed_at" in found


def test_the_run_is_refused_with_the_model_named(h: Harness) -> None:
    h.query_results[PROBE] = FakeResult([("America/New_York", "Etc/UTC", "4.0.5 7f6e")])
    with pytest.raises(CompilerError) as raised:
        h.call("vulcan_check_delta_time_zone", cfg(), ["ts"])
    assert "Invalid config for model 'clicks' (incremental_by_time_range)" in str(raised.value)
    assert h.statements == [PROBE]


def test_no_timestamp_partition_asks_nothing(h: Harness) -> None:
    h.call("vulcan_check_delta_time_zone", cfg(), [])
    assert h.statements == []


def test_databricks_asks_no_jvm() -> None:
    stock = shared_harness("databricks").reset()
    stock.query_results[
        "select current_timezone() as session_zone, 'Etc/UTC' as jvm_zone,"
        " version() as spark_version"
    ] = FakeResult([("UTC", "Etc/UTC", "4.0.0")])
    stock.call("vulcan_check_delta_time_zone", cfg(), ["ts"])
    assert "reflect" not in stock.statements[0]


def col(name: str, dtype: str) -> Any:
    return type("C", (), {"name": name, "dtype": dtype})()


def test_the_timestamp_partitions_from_the_query_the_log_or_the_table(h: Harness) -> None:
    rel = relation(identifier="clicks")
    table = type("R", (), {"type": "table"})()
    both = cfg(partition_cols=["ts", "day", "at_ntz"])
    query = [col("TS", "timestamp"), col("day", "date"), col("at_ntz", "timestamp_ntz")]
    # the query's columns, when the run read them
    assert h.call("vulcan_timestamp_partitions", both, {}, query, rel, table) == ["ts"]
    # else what the log recorded (no statement)
    plan = {"previous_details": {"timestamp_partitions": ["day"]}}
    assert h.call("vulcan_timestamp_partitions", both, plan, None, rel, table) == ["day"]
    assert plan["previous_details"]["timestamp_partitions"] == ["day"]
    assert h.statements == []
    # else the table's (a log from before they were recorded): one DESCRIBE
    h.table_columns = [("ts", "timestamp"), ("day", "date"), ("at_ntz", "timestamp_ntz")]
    assert h.call(
        "vulcan_timestamp_partitions", both, {"previous_details": {}}, None, rel, table
    ) == ["ts"]
    assert h.statements == ["describe s.clicks"]
    # nothing to check off Delta or without partitions
    assert (
        h.call("vulcan_timestamp_partitions", cfg(file_format="iceberg"), {}, query, rel, table)
        is None
    )
    assert (
        h.call("vulcan_timestamp_partitions", cfg(partition_cols=[]), {}, query, rel, table) is None
    )


def _is_utc(name: str) -> bool:
    """UTC by Python's zoneinfo: a zone key (any case) without offset at any instant of a
    century, or an offset spelled with zeros only (Spark's 'Z', '+00:00', 'UTC+00:00')."""
    keys = {k.lower(): k for k in available_timezones()}
    if name in keys:
        zone = ZoneInfo(keys[name])
        start = datetime(1950, 1, 1, tzinfo=timezone.utc)
        return all(
            (start + timedelta(days=91 * i)).astimezone(zone).utcoffset() == timedelta(0)
            for i in range(400)
        )
    offset = name.removeprefix("utc").removeprefix("gmt")
    return offset == "z" or re.fullmatch(r"[+-]0+(:0+)?", offset) is not None


def test_every_spelling_of_utc_is_utc_by_zoneinfo(h: Harness) -> None:
    names = h.call("vulcan_utc_zone_names")
    assert [n for n in names if not _is_utc(n)] == []
    for spelling in ("UTC", "Etc/UTC", "Z", "+00:00", "GMT"):
        assert spelling.lower() in names
    # the check itself tells a zone with an offset apart
    assert not _is_utc("europe/london") and not _is_utc("+01:00")


def test_an_interrupted_swap_is_not_replayed_shifted(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stage a stopped run left (engine/stage.sql) is replayed into the table before the run
    plans: that write is refused like the run's own, the stage kept (nothing dropped) for a run
    in the JVM's zone."""
    stage = relation(identifier="clicks__vulcan_stage_0123456789ab")
    adapter = h.context["adapter"]
    monkeypatch.setattr(adapter, "vulcan_stale_stages", lambda rel: [stage], raising=False)
    dropped: list[Any] = []
    monkeypatch.setattr(adapter, "drop_relation", dropped.append, raising=False)
    h.query_results[f"show tblproperties {stage}"] = FakeResult([("vulcan.replay", "rebuild")])
    h.query_results[PROBE] = FakeResult([("America/New_York", "Etc/UTC", "4.0.1")])
    h.table_columns = [("click_id", "int"), ("ts", "timestamp")]
    with pytest.raises(CompilerError) as raised:
        h.call("vulcan_recover_interrupted_write", relation(identifier="clicks"), cfg())
    assert "partition_by_time_column: the Delta table is partitioned by" in str(raised.value)
    assert h.statements == [f"show tblproperties {stage}", "describe s.clicks", PROBE]
    assert dropped == []
    # in the JVM's zone the swap is replayed (the table rebuilt from the stage)
    h.reset()
    h.query_results[f"show tblproperties {stage}"] = FakeResult([("vulcan.replay", "rebuild")])
    h.query_results[PROBE] = FakeResult([("Etc/UTC", "Etc/UTC", "4.0.1")])
    h.table_columns = [("click_id", "int"), ("ts", "timestamp")]
    replayed = h.call("vulcan_recover_interrupted_write", relation(identifier="clicks"), cfg())
    assert replayed == ["clicks__vulcan_stage_0123456789ab"]
    inserts = [s for s in h.statements if s.startswith("insert into s.clicks select * from")]
    assert len(inserts) == 1, h.statements
    assert dropped == [stage]
