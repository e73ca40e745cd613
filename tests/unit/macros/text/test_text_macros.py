"""The shared text helpers (macros/text/): times read and written as the log and the messages
keep them (against Python's datetime and timeutil.format_ts), Python's repr and the closest
name (against the oracle's closest_key), the quoting of literals and identifiers, and the SQL
lexer's tokens."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbt.adapters.vulcan.timeutil import format_ts
from tests.oracle.config import closest_key
from tests.support.macro_harness import Harness

_H = Harness()
EPOCH = datetime(1970, 1, 1)
TIMES = st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1))


@settings(max_examples=60, deadline=None)
@given(dt=TIMES)
def test_times_round_trip_as_text_and_as_microseconds(dt: datetime) -> None:
    text = _H.call("vulcan_format_ts", dt)
    assert text == format_ts(dt)
    assert _H.call("vulcan_parse_ts", text) == dt
    delta = dt - EPOCH
    assert _H.call("vulcan_micros", dt) == (
        (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025-01-02", datetime(2025, 1, 2)),
        ("2025-01-02 03:04:05", datetime(2025, 1, 2, 3, 4, 5)),
        ("2025-01-02 03:04:05.000007", datetime(2025, 1, 2, 3, 4, 5, 7)),
    ],
)
def test_parse_ts_reads_the_three_shapes(text: str, expected: datetime) -> None:
    assert _H.call("vulcan_parse_ts", text) == expected


@pytest.mark.parametrize("value", ["a'b", 3, 1.5, ["x", 2], {"k": None}, None, True])
def test_repr_is_python_s(value: object) -> None:
    assert _H.call("vulcan_repr", value) == repr(value)


NAMES = st.text(alphabet="abc_", min_size=1, max_size=9)


@settings(max_examples=150, deadline=None)
@given(key=NAMES, candidates=st.lists(NAMES, max_size=6))
def test_closest_equals_the_oracle(key: str, candidates: list[str]) -> None:
    assert _H.call("vulcan_closest", key, candidates) == closest_key(key, candidates)


def test_literals_and_identifiers_are_escaped() -> None:
    assert _H.call("vulcan_sql_string", "it's a \\ path") == "'it\\'s a \\\\ path'"
    assert _H.call("vulcan_quote_identifier", "odd`name") == "`odd``name`"
    assert _H.call("vulcan_quote_identifiers", ["a", "b`"]) == ["`a`", "`b```"]


def test_the_lexer_s_tokens() -> None:
    got = _H.call("vulcan_sql_tokens", "a.`b c` >= 'x''y' -- note\n and @start_ds")
    assert got["error"] is None
    assert [t[:2] for t in got["tokens"]] == [
        ["name", "a"],
        ["punct", "."],
        ["quoted", "`b c`"],
        ["op", ">="],
        ["string", "'x''y'"],
        ["name", "and"],
        ["var", "@start_ds"],
    ]
    unclosed = _H.call("vulcan_sql_tokens", "a = 'open")
    assert unclosed["tokens"] is None
    assert unclosed["error"] == 'cannot read "\'open" (an unclosed quote?)'
