"""The state log in Jinja (state/log.sql), checked against its Python oracle (tests/oracle/
state.py): the replay of a relation's rows (RelationState), the compaction and the VALUES it
appends (compact, values_sql), on hypothesis-generated logs; the one plain read and the replay
order it gives the rows."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from hypothesis import given, settings

from dbt.adapters.vulcan.timeutil import format_ts
from tests.oracle.state import RelationState, StateRow, compact, kept_relations, values_sql
from tests.support.macro_harness import FakeResult, Harness, squash
from tests.support.state_logs import RECORDED, T0, by_key, iv, jinja_row, logs, micros

_H = Harness()


@settings(max_examples=150, deadline=None)
@given(rows=logs(["s.m"], max_rows=20))
def test_replay_equals_relation_state(rows: list[StateRow]) -> None:
    oracle = RelationState(tuple(rows))
    got = _H.call("vulcan_log_summary", by_key(rows).get("s.m", []))
    assert got["processed"] == iv(oracle.processed)
    assert got["pending_restatements"] == iv(oracle.pending_restatements)
    assert got["pending_full"] == oracle.pending_full_restatement
    latest = oracle.latest
    assert got["latest"] == (jinja_row(latest) if latest is not None else None)
    assert got["pending_writes"] == [jinja_row(r) for r in oracle.pending_writes]
    assert got["pending_stages"] == [jinja_row(r) for r in oracle.pending_stages]


def test_a_restatement_processed_again_is_not_pending_after_a_later_removal() -> None:
    """Restated, recomputed, then removed by a re-processed batch's marker: the range is
    missing, not a pending restatement (what the fold may drop); restated again: pending."""
    day = timedelta(days=1)

    def row(seq: int, kind: str, details: str = "") -> StateRow:
        return StateRow(
            "s.m", T0, T0 + day, kind, "f1", "inv", RECORDED + seq * day, seq, "model.p.m", details
        )

    restate = '{"restate": true, "full": false}'
    log = [row(0, "processed"), row(1, "removed", restate), row(2, "processed"), row(3, "removed")]
    for rows, pending in [(log, []), ([*log, row(4, "removed", restate)], [(T0, T0 + day)])]:
        assert RelationState(tuple(rows)).pending_restatements == pending
        got = _H.call("vulcan_log_summary", by_key(rows)["s.m"])
        assert got["pending_restatements"] == iv(pending)
        assert got["processed"] == []


@settings(max_examples=100, deadline=None)
@given(rows=logs(["s.b", "s.a", "s.c"], max_rows=20))
def test_compact_equals_state_compact(rows: list[StateRow]) -> None:
    """The compaction, and the relations it leaves as they are (a restatement or a write
    pending)."""
    kept: list[str] = []
    got = _H.call("vulcan_log_compact", by_key(rows), kept)
    expected = compact(rows)
    assert got == [jinja_row(r) for r in expected]
    assert kept == kept_relations(rows)
    assert _H.call("vulcan_log_values_sql", got) == values_sql(expected)
    # the fold's call (no list): the same rows
    assert _H.call("vulcan_log_compact", by_key(rows)) == got


def test_values_sql_escapes() -> None:
    row = StateRow(
        "s.m", T0, T0 + timedelta(microseconds=5), "processed", "f'1", "i\\d", RECORDED, 3
    )
    got = _H.call("vulcan_log_values_sql", [jinja_row(row), jinja_row(row)])
    assert got == values_sql([row, row])


def test_read_log_is_one_plain_query_and_orders_rows_for_replay() -> None:
    """One SELECT of the stored columns (no function, no order); the times parsed from the
    text the log stores or from the datetimes dbt's result table makes of it, a fingerprint of
    digits back to its 16 characters, the rows in replay order: (recorded_at, seq), processed
    before removed, then the bounds."""
    seen: list[str] = []
    later = T0 + timedelta(days=1)
    result = FakeResult(
        [
            (
                "s.a",
                "m1",
                format_ts(later),
                format_ts(later + timedelta(days=1)),
                "processed",
                "0123456789abcdef",
                "i3",
                format_ts(RECORDED + timedelta(seconds=1)),
                0,
                None,
            ),
            (
                "s.a",
                "m1",
                T0,
                T0 + timedelta(microseconds=5),
                "processed",
                None,
                "i1",
                RECORDED,
                Decimal(2),
                '{"reset": true}',
            ),
            (
                "s.b",
                None,
                "1970-01-01 00:00:00.000001",
                "1970-01-01 00:00:00.000002",
                "removed",
                Decimal(123456789),
                None,
                "1970-01-01 00:00:00.000003",
                None,
                None,
            ),
            (
                "s.a",
                "m1",
                format_ts(T0),
                format_ts(later),
                "removed",
                "f",
                "i2",
                format_ts(RECORDED),
                2,
                "",
            ),
        ]
    )

    def run_query(sql: str) -> FakeResult:
        seen.append(squash(sql))
        return result

    _H.context["run_query"] = run_query
    try:
        got = _H.call("vulcan_log_read", ["s.a", "s.b"])
        assert _H.call("vulcan_log_read", []) == {}
        _H.call("vulcan_log_read")
    finally:
        _H.context["run_query"] = _H._run_query
    assert len(seen) == 2
    assert seen[0] == (
        "select relation, model_id, interval_start, interval_end, row_type, fingerprint, "
        "invocation_id, recorded_at, seq, details, append_id from vulcan_state.vulcan_intervals "
        "where relation in ('s.a', 's.b')"
    )
    assert "where" not in seen[1]
    assert got["s.a"][0] == {
        "relation": "s.a",
        "model_id": "m1",
        "start": micros(T0),
        "end": micros(T0) + 5,
        "row_type": "processed",
        "fingerprint": "",
        "invocation_id": "i1",
        "at": micros(RECORDED),
        "seq": 2,
        "details": '{"reset": true}',
        # parquet: the append (partition) a row came from; none in these canned rows
        "append_id": "",
    }
    # the same moment and seq: processed before removed; then the later row
    assert [(r["row_type"], r["invocation_id"]) for r in got["s.a"]] == [
        ("processed", "i1"),
        ("removed", "i2"),
        ("processed", "i3"),
    ]
    assert got["s.a"][2]["fingerprint"] == "0123456789abcdef"
    assert got["s.a"][2]["start"] == micros(later)
    assert got["s.b"] == [
        {
            "relation": "s.b",
            "model_id": "",
            "start": 1,
            "end": 2,
            "row_type": "removed",
            "fingerprint": "0000000123456789",
            "invocation_id": "",
            "at": 3,
            "seq": 0,
            "details": "",
            "append_id": "",
        }
    ]
