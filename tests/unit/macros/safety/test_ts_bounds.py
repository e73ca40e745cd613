"""`ts_on_timestamp` in both modes: `@start_ts` / `@end_ts` bounding a TIMESTAMP time column.
The adapter's reading (sqlglot: dbt/adapters/vulcan/safety.py's ts_bounds) and the package's
(Jinja on tokens: macros/safety/ts_bounds.sql) give every case of the catalogue
(tests/support/safety_catalogue.py, TS_CASES) the same tokens; the warning is worded by one
macro, so both modes print the same text; the analysis says it once per definition, and a run
with batches repeats it once when the session's time zone is not UTC."""

from __future__ import annotations

from typing import Any

import pytest

from dbt.adapters.vulcan import safety
from tests.support.macro_harness import (
    FakeResult,
    Harness,
    relation,
    shared_harness,
    squash,
    stock_harness,
)
from tests.support.safety_catalogue import TS_CASES, TsCase

TR = "incremental_by_time_range"
SQL = "select click_id, click_ts from src_clicks where click_ts between @start_ts and @end_ts"
ZONE_SQL = "select current_timezone() as session_zone"
BATCH = {
    "index": 1,
    "count": 1,
    "start": "2024-01-01 00:00:00",
    "end": "2024-01-03 00:00:00",
    "intervals": 2,
    "label": "2024-01-01 - 2024-01-02",
    "dirty": False,
    "tracked": True,
}
WARNING = (
    "Model 'clicks': safety analysis [ts_on_timestamp]: @start_ts and @end_ts bound the "
    "TIMESTAMP time column click_ts, but a _ts token is a zoneless string that Spark reads as "
    "a time of the session's time zone: outside UTC every batch reads a range shifted by the "
    "zone's offset, and the rows within that offset of its bounds are never written; use "
    "@start_dt / @end_dt (the batch's UTC instants) to bound a TIMESTAMP column"
)
REPEAT = WARNING + (
    ". This run's session time zone is 'America/New_York', not UTC: its batches are shifted"
)


def _id(case: TsCase) -> str:
    return case.name


# ------------------------------------------------------------------ the two readings


def test_the_catalogue_has_bounds_and_look_alikes() -> None:
    assert len({c.name for c in TS_CASES}) == len(TS_CASES) >= 30
    assert sum(1 for c in TS_CASES if c.tokens) >= 12
    assert sum(1 for c in TS_CASES if not c.tokens) >= 12


@pytest.mark.parametrize("case", TS_CASES, ids=_id)
def test_the_adapter_gives_the_catalogue_tokens(case: TsCase) -> None:
    assert safety.ts_bounds(case.sql, case.time_column) == list(case.tokens)


@pytest.mark.parametrize("case", TS_CASES, ids=_id)
def test_the_package_gives_the_catalogue_tokens(case: TsCase) -> None:
    found = shared_harness("spark").call("_vulcan_safety_ts_bounds", case.sql, case.time_column)
    assert list(found) == list(case.tokens)


# ------------------------------------------------------------------ the check, in both modes


class _Recorder:
    def __init__(self) -> None:
        self.warnings: list[str] = []

    def raise_compiler_error(self, message: str) -> None:
        raise AssertionError(message)

    def warn(self, message: str) -> None:
        self.warnings.append(message)


_ADAPTER: dict[str, Harness] = {}


def harness(adapter_type: str) -> Harness:
    """A reset harness: the package on a stock adapter (`spark`, `databricks`), or the `vulcan`
    adapter with its Python methods; a SQL model `clicks`."""
    if adapter_type == "vulcan":
        if "vulcan" not in _ADAPTER:
            _ADAPTER["vulcan"] = Harness(adapter_type="vulcan")
        h = _ADAPTER["vulcan"].reset()
        h.context.update({"compiled_code": SQL, "store_raw_result": lambda *a, **k: None})
    else:
        h = stock_harness(adapter_type, SQL)
    h.context["model"] = {
        "name": "clicks",
        "unique_id": "model.p.clicks",
        "language": "sql",
        "config": {},
    }
    return h


def cfg(**extra: Any) -> dict[str, Any]:
    base = {"kind": TR, "model": "clicks", "time_column": "click_ts", "safety_overrides": []}
    base.update({"interval_unit": "day", "week_start": 0})
    return {**base, **extra}


def check(adapter_type: str, sql: str, time_type: str | None, **extra: Any) -> Any:
    h = harness(adapter_type)
    recorder = _Recorder()
    saved = h.context["exceptions"]
    h.context["exceptions"] = recorder
    try:
        tokens = h.call("vulcan_check_safety", cfg(**extra), sql, time_type)
    finally:
        h.context["exceptions"] = saved
    assert h.statements == []
    return list(tokens), recorder.warnings


MODES = ["vulcan", "spark", "databricks"]


@pytest.mark.parametrize("adapter_type", MODES)
def test_a_timestamp_time_column_bounded_by_ts_tokens_warns(adapter_type: str) -> None:
    tokens, warnings = check(adapter_type, SQL, "timestamp")
    assert tokens == ["@start_ts", "@end_ts"]
    assert warnings == [WARNING]


@pytest.mark.parametrize("adapter_type", MODES)
def test_one_token_is_named_alone(adapter_type: str) -> None:
    sql = "select click_ts from c where click_ts >= @start_ts and d <= @end_ds"
    tokens, warnings = check(adapter_type, sql, "timestamp")
    assert tokens == ["@start_ts"]
    assert warnings == [WARNING.replace("@start_ts and @end_ts bound the", "@start_ts bounds the")]


def test_both_modes_say_it_in_the_same_words() -> None:
    for sql in [SQL, "select * from c where `click_ts` <= @{end_ts} and c.click_ts > @start_ts"]:
        said = {mode: check(mode, sql, "timestamp") for mode in MODES}
        assert said["spark"] == said["databricks"] == said["vulcan"]
        assert said["spark"][1][0].startswith("Model 'clicks': safety analysis [ts_on_timestamp]")


@pytest.mark.parametrize("adapter_type", MODES)
@pytest.mark.parametrize("time_type", [None, "date", "timestamp_ntz", "string", "bigint"])
def test_only_a_timestamp_time_column_is_read(adapter_type: str, time_type: str | None) -> None:
    # a TIMESTAMP_NTZ column compares with the zoneless string as it means: no shift
    assert check(adapter_type, SQL, time_type) == ([], [])


@pytest.mark.parametrize("adapter_type", MODES)
def test_the_override_silences_it(adapter_type: str) -> None:
    overrides = [" TS_on_timestamp"]
    assert check(adapter_type, SQL, "timestamp", safety_overrides=overrides) == ([], [])


@pytest.mark.parametrize("adapter_type", MODES)
def test_python_models_are_not_read(adapter_type: str) -> None:
    h = harness(adapter_type)
    h.context["model"] = {**h.context["model"], "language": "python"}
    assert list(h.call("vulcan_check_safety", cfg(), SQL, "timestamp")) == []


# ------------------------------------------------------------------ once, and the run's repeat


def once(
    h: Harness, plan: dict[str, Any], zone: str | None = "America/New_York", **extra: Any
) -> list[str]:
    if zone is not None:
        h.query_results[squash(ZONE_SQL)] = FakeResult([(zone,)])
    recorder = _Recorder()
    saved = h.context["exceptions"]
    h.context["exceptions"] = recorder
    try:
        h.call("vulcan_check_safety_once", cfg(**extra), SQL, plan)
    finally:
        h.context["exceptions"] = saved
    return recorder.warnings


def plan(time_type: str | None = "timestamp", **extra: Any) -> dict[str, Any]:
    return {"batches": [BATCH], "time_type": time_type, "previous_details": {}, **extra}


@pytest.mark.parametrize("adapter_type", MODES)
def test_a_run_outside_utc_repeats_the_warning_once(adapter_type: str) -> None:
    h = harness(adapter_type)
    planned = plan()
    assert once(h, planned) == [WARNING, REPEAT]
    assert h.statements == [ZONE_SQL]  # one statement, however many batches
    assert planned["ts_bounds"] == ["@start_ts", "@end_ts"]


@pytest.mark.parametrize("zone", ["UTC", "Etc/UTC", "+00:00", "Z"])
def test_a_run_in_utc_does_not_repeat_it(zone: str) -> None:
    h = harness("spark")
    assert once(h, plan(), zone) == [WARNING]
    assert h.statements == [ZONE_SQL]


def test_a_run_with_nothing_to_write_asks_no_zone() -> None:
    h = harness("spark")
    assert once(h, plan(batches=[])) == [WARNING]
    assert h.statements == []


@pytest.mark.parametrize("adapter_type", ["vulcan", "spark"])
def test_a_run_that_skips_the_analysis_still_repeats_it(adapter_type: str) -> None:
    h = harness(adapter_type)
    first = plan()
    once(h, first)
    recorded = {"safety": first["safety"], "ts_bounds": first["ts_bounds"]}
    later = plan(previous_details=recorded)
    h = harness(adapter_type)
    assert once(h, later) == [REPEAT]
    assert later["ts_bounds"] == ["@start_ts", "@end_ts"]  # recorded again by this run
    h = harness(adapter_type)
    assert once(h, plan(previous_details=recorded), "UTC") == []


def test_other_time_columns_ask_no_zone_and_keep_their_key() -> None:
    h = harness("spark")
    dated = plan("date")
    assert once(h, dated) == []
    assert h.statements == [] and "ts_bounds" not in dated
    # the key of a time column that is not a TIMESTAMP is the one it had before this check
    parts = [SQL, "click_ts", [], "day", 0]
    old = __import__("hashlib").md5(__import__("json").dumps(parts).encode()).hexdigest()[:16]
    assert dated["safety"] == old
    # a TIMESTAMP one's differs: its definition is analysed again, for this pattern
    stamped = plan()
    once(harness("spark"), stamped)
    assert stamped["safety"] != old


def test_the_bounds_ride_on_the_recorded_rows() -> None:
    h = harness("spark")
    settings = {**cfg(), "file_format": "delta", "partition_cols": [], "audits": [], "grains": []}
    run = {"fingerprint": "fp", "execution_time": "2024-01-03 00:30:00"}
    run.update({"fingerprint_changed": False, "safety": "k"})
    planned = plan(**run, ts_bounds=["@start_ts", "@end_ts"])
    h.call("vulcan_run_batches", TR, "time_range", relation(), planned, settings, "timestamp")
    assert '"ts_bounds": ["@start_ts", "@end_ts"]' in h.statements[-1]
    h = harness("spark")
    h.call("vulcan_run_batches", TR, "time_range", relation(), plan(**run), settings, "timestamp")
    assert "ts_bounds" not in h.statements[-1]


@pytest.mark.parametrize(
    ("zone", "utc"),
    [
        *[("UTC", True), ("etc/utc", True), (" GMT ", True), ("-00:00", True)],
        *[("America/New_York", False), ("Europe/London", False), ("+01:00", False)],
    ],
)
def test_utc_by_any_of_its_names(zone: str, utc: bool) -> None:
    assert shared_harness("spark").call("vulcan_is_utc_zone", zone) is utc
