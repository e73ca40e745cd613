"""The time tokens and the output filter in Jinja (macros/time_tokens/time_tokens.sql), checked
against their Python oracle (dbt/adapters/vulcan/timemacros.py) on examples and on random
inputs: token values for random batches, token substitution in random SQL text (quotes,
comments, backquotes, unknown and partial tokens), output filters for every time type."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbt.adapters.vulcan.timemacros import output_filter, render, token_values
from dbt.adapters.vulcan.timeutil import format_ts
from tests.support.macro_harness import Harness

_HARNESS: Harness | None = None


@pytest.fixture(scope="module")
def h() -> Harness:
    global _HARNESS
    if _HARNESS is None:
        _HARNESS = Harness()
    return _HARNESS.reset()


def jinja_tokens(h: Harness, start: datetime, end: datetime, now: datetime) -> Any:
    return h.call("vulcan_time_tokens", format_ts(start), format_ts(end), format_ts(now))


D = datetime
WEEK = (D(2025, 1, 1), D(2025, 1, 8), D(2025, 1, 8, 5))


def test_token_values_equal_the_oracle(h: Harness) -> None:
    assert jinja_tokens(h, *WEEK) == token_values(*WEEK)
    before_1970 = (D(1969, 12, 31, 23, 59, 59, 999999), D(1970, 1, 1), D(1950, 6, 1, 0, 0, 1))
    assert jinja_tokens(h, *before_1970) == token_values(*before_1970)
    assert jinja_tokens(h, *before_1970)["start_epoch"] == "-0.000001"


def test_render_examples(h: Harness) -> None:
    values = token_values(*WEEK)
    sql = (
        "select '@start_ds' as s, `@end_ds` as b, @{start_ds} x, @start_dsx, @unknown -- @end_ds\n"
        'from t /* @start_ds */ where d between @start_ds and @end_ds and e = "@end_ds"'
    )
    rendered = h.call("vulcan_render_tokens", sql, values)
    assert rendered == render(sql, values)
    assert "between '2025-01-01' and '2025-01-07'" in rendered
    assert "'2025-01-01' x" in rendered and "@start_dsx" in rendered


@pytest.mark.parametrize(
    ("time_type", "fmt"),
    [
        ("date", None),
        ("timestamp", None),
        ("timestamp_ntz", None),
        ("string", None),
        ("string", "%Y%m%d"),
        ("string", "yyyyMMdd"),
        ("string", "yyyy-MM-dd HH:mm:ss"),
        ("string", "'day' yyyy/MM/dd"),
        ("string", "%Y-%m-%dT%H"),
        ("string", "MM/dd/yyyy"),
        ("string", "%d.%m.%Y %H:%M"),
        ("int", None),
        ("bigint", None),
        ("epoch", None),
        ("epoch_millis", None),
    ],
)
def test_output_filter_equals_the_oracle(h: Harness, time_type: str, fmt: str | None) -> None:
    for start, end in [(D(2025, 1, 1), D(2025, 1, 8)), (D(2025, 1, 1, 5), D(2025, 1, 1, 6))]:
        expected = output_filter("`d`", start, end, time_type, fmt)
        got = h.call(
            "vulcan_output_filter", "`d`", format_ts(start), format_ts(end), time_type, fmt
        )
        assert got == expected


def test_batch_query_wraps_the_rendered_query_in_the_filter(h: Harness) -> None:
    cfg = {"time_column": "order_date", "time_format": None}
    batch = {"start": "2025-01-01 00:00:00", "end": "2025-01-08 00:00:00"}
    query = "select * from o where d >= @start_ds"
    out = h.call("vulcan_batch_query", query, cfg, batch, "date", "2025-01-08")
    assert out["query"] == "select * from o where d >= '2025-01-01'"
    assert out["filter"] == (
        "`order_date` >= CAST('2025-01-01' AS DATE) AND `order_date` < CAST('2025-01-08' AS DATE)"
    )
    assert out["sql"] == (
        "select * from (\nselect * from o where d >= '2025-01-01'\n) as vulcan_batch\nwhere "
        + out["filter"]
    )
    untimed = {"time_column": None}
    keyed = h.call("vulcan_batch_query", "select 1 as a", untimed, batch, "", "2025-01-08")
    assert keyed["filter"] == "true" and keyed["sql"].endswith(") as vulcan_batch")
    projected = h.call(
        "vulcan_batch_query", "select 1 as a", untimed, batch, "", "2025-01-08", ["`a`"]
    )
    assert projected["sql"].startswith("select `a` from (")


# ------------------------------------------------------------------- random inputs

moments = st.datetimes(min_value=D(1900, 1, 1), max_value=D(9000, 1, 1))
spans = st.timedeltas(min_value=timedelta(microseconds=1), max_value=timedelta(days=4000))

_PIECES = [
    "@start_ds",
    "@end_ds",
    "@{end_dt}",
    "@start_dsx",
    "@nope",
    "@{nope}",
    "@",
    "@{",
    "'",
    '"',
    "`",
    "''",
    "\\",
    "--",
    "/*",
    "*/",
    "\n",
    " ",
    "a",
    "1",
    "@execution_ts",
    "@start_millis",
    "{",
    "}",
]
sql_text = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


@settings(max_examples=150, deadline=None)
@given(start=moments, span=spans, now=moments)
def test_random_token_values(h: Harness, start: datetime, span: timedelta, now: datetime) -> None:
    end = start + span
    assert jinja_tokens(h, start, end, now) == token_values(start, end, now)


@settings(max_examples=400, deadline=None)
@given(sql=sql_text)
def test_random_sql_renders_like_the_oracle(h: Harness, sql: str) -> None:
    values = token_values(*WEEK)
    assert h.call("vulcan_render_tokens", sql, values) == render(sql, values)


@settings(max_examples=150, deadline=None)
@given(
    start=st.datetimes(min_value=D(1971, 1, 1), max_value=D(2200, 1, 1)),
    span=spans,
    time_type=st.sampled_from(["date", "timestamp", "string", "epoch", "epoch_millis", "int"]),
    fmt=st.sampled_from(
        [None, "%Y%m%d", "yyyy-MM-dd HH:mm", "%Y-%m-%d %H:%M:%S.%f", "MM/dd/yyyy", "%d.%m.%y %H"]
    ),
)
def test_random_filters(
    h: Harness, start: datetime, span: timedelta, time_type: str, fmt: str | None
) -> None:
    end = start + span
    expected = output_filter("`t`", start, end, time_type, fmt)
    got = h.call("vulcan_output_filter", "`t`", format_ts(start), format_ts(end), time_type, fmt)
    assert got == expected
