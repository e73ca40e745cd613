"""The state oracle (tests/oracle/state.py): the log's replay, interval subtraction, compaction
and the latest fingerprint, on fixed and hypothesis-generated logs."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.schedule import Interval
from tests.oracle.state import (
    RelationState,
    StateRow,
    compact,
    has_pending,
    has_pending_restatement,
    kept_relations,
    last_fingerprint,
    replay,
    replay_all,
    subtract,
)
from tests.support.state_logs import logs

D = datetime
T0 = D(2025, 2, 1, 12)


def jan(day: int, hour: int = 0) -> datetime:
    return D(2025, 1, day, hour)


def row(
    start: datetime,
    end: datetime,
    kind: str = "processed",
    *,
    relation: str = "db.m",
    fp: str = "f1",
    inv: str = "i1",
    at: int = 0,
    seq: int = 0,
) -> StateRow:
    return StateRow(relation, start, end, kind, fp, inv, T0 + timedelta(minutes=at), seq)


# ------------------------------------------------------------------------ subtract


def test_subtract() -> None:
    a = [(jan(1), jan(10))]
    assert subtract(a, [(jan(3), jan(4)), (jan(6), jan(8))]) == [
        (jan(1), jan(3)),
        (jan(4), jan(6)),
        (jan(8), jan(10)),
    ]
    assert subtract(a, [(D(2024, 1, 1), jan(2)), (jan(9), D(2026, 1, 1))]) == [(jan(2), jan(9))]
    assert subtract(a, [(D(2024, 1, 1), D(2026, 1, 1))]) == []
    assert subtract(a, []) == a
    assert subtract([], a) == []
    assert subtract([(jan(5), jan(6)), (jan(1), jan(3)), (jan(2), jan(4))], [(jan(3), jan(5))]) == [
        (jan(1), jan(3)),
        (jan(5), jan(6)),
    ]


# -------------------------------------------------------------------------- replay


def test_replay_adds_and_merges() -> None:
    rows = [row(jan(3), jan(5), at=1), row(jan(1), jan(3)), row(jan(7), jan(8), at=2)]
    assert replay(rows) == [(jan(1), jan(5)), (jan(7), jan(8))]
    assert replay([]) == []


def test_replay_removed_subtracts_in_order() -> None:
    rows = [
        row(jan(1), jan(11), at=0),
        row(jan(4), jan(6), "removed", at=1),
        row(jan(5), jan(6), at=2),
    ]
    assert replay(rows) == [(jan(1), jan(4)), (jan(5), jan(11))]
    # the same rows recorded in a different order give a different history
    reordered = [
        row(jan(1), jan(11), at=0),
        row(jan(5), jan(6), at=1),
        row(jan(4), jan(6), "removed", at=2),
    ]
    assert replay(reordered) == [(jan(1), jan(4)), (jan(6), jan(11))]


def test_replay_seq_breaks_ties() -> None:
    rows = [
        row(jan(1), jan(3), "removed", at=0, seq=2),
        row(jan(1), jan(3), at=0, seq=1),
    ]
    assert replay(rows) == []
    rows = [
        row(jan(1), jan(3), "removed", at=0, seq=1),
        row(jan(1), jan(3), at=0, seq=2),
    ]
    assert replay(rows) == [(jan(1), jan(3))]


def test_replay_full_history_removal() -> None:
    rows = [row(jan(1), jan(11)), row(D(2024, 1, 1), D(9999, 12, 31), "removed", at=1)]
    assert replay(rows) == []


def test_replay_rejects_mixed_relations_and_bad_kind() -> None:
    with pytest.raises(ValueError, match="one relation"):
        replay([row(jan(1), jan(2)), row(jan(1), jan(2), relation="db.other")])
    with pytest.raises(ValueError, match="'deleted' is not one of: processed, removed"):
        replay([row(jan(1), jan(2), "deleted")])


def test_replay_all_groups_by_relation() -> None:
    rows = [
        row(jan(1), jan(2), relation="a"),
        row(jan(5), jan(6), relation="b"),
        row(jan(2), jan(3), relation="a", at=1),
        row(jan(5), jan(6), "removed", relation="b", at=1),
    ]
    assert replay_all(rows) == {"a": [(jan(1), jan(3))], "b": []}
    assert replay_all([]) == {}


# ------------------------------------------------------------------------- compact


def test_compact_keeps_latest_contributor() -> None:
    rows = [
        row(jan(1), jan(3), fp="old", inv="i1", at=0),
        row(jan(3), jan(5), fp="new", inv="i2", at=5, seq=1),
        row(jan(8), jan(9), fp="mid", inv="i3", at=3),
        row(jan(9), jan(12), fp="gone", inv="i4", at=4),
        row(jan(9), jan(12), "removed", fp="gone", inv="i5", at=6),
    ]
    assert compact(rows) == [
        StateRow("db.m", jan(1), jan(5), "processed", "new", "i2", T0 + timedelta(minutes=5), 1),
        StateRow("db.m", jan(8), jan(9), "processed", "mid", "i3", T0 + timedelta(minutes=3), 0),
    ]


def test_compact_multiple_relations_and_empty() -> None:
    rows = [
        row(jan(1), jan(2), relation="b"),
        row(jan(1), jan(2), relation="a"),
        row(jan(1), jan(2), "removed", relation="c"),
    ]
    assert [(r.relation, r.interval) for r in compact(rows)] == [
        ("a", (jan(1), jan(2))),
        ("b", (jan(1), jan(2))),
    ]
    assert compact([]) == []


RESTATE = '{"restate": true, "full": false}'
FULL = '{"restate": true, "full": true}'
RESET = '{"reset": true}'


def marked(r: StateRow, details: str) -> StateRow:
    return StateRow(
        r.relation,
        r.start,
        r.end,
        r.kind,
        r.fingerprint,
        r.invocation_id,
        r.recorded_at,
        r.seq,
        r.model_id,
        details,
    )


def test_compact_leaves_a_relation_with_a_pending_restatement_as_it_is() -> None:
    """A restatement not recomputed yet (a range, or the whole history) is what the next run
    does: compaction keeps that relation's rows as they are, in the order the log is read,
    and compacts the others; recomputed (or superseded by a rebuild's reset), it compacts."""
    done = [row(jan(1), jan(2), relation="a"), row(jan(2), jan(3), relation="a", at=1)]
    ranged = [
        row(jan(1), jan(2), relation="b", at=2, seq=1),
        row(jan(1), jan(2), relation="b", at=1),
        marked(row(jan(1), jan(2), "removed", relation="b", at=3), RESTATE),
    ]
    full = [
        row(jan(5), jan(5), relation="c"),
        marked(row(D(1900, 1, 1), D(9999, 12, 31), "removed", relation="c", at=1), FULL),
    ]
    got = compact([*done, *ranged, *full])
    assert got == [
        StateRow("a", jan(1), jan(3), "processed", "f1", "i1", T0 + timedelta(minutes=1), 0),
        ranged[1],
        ranged[0],
        ranged[2],
        *full,
    ]
    assert kept_relations([*done, *ranged, *full]) == ["b", "c"]
    # recomputed: the range processed again; the whole history rebuilt (a reset, then a run)
    again = row(jan(1), jan(2), relation="b", at=4)
    reset = marked(row(D(1900, 1, 1), D(9999, 12, 31), "removed", relation="c", at=2), RESET)
    rebuilt = row(jan(6), jan(6), relation="c", at=3)
    later = [*done, *ranged, again, *full, reset, rebuilt]
    assert kept_relations(later) == []
    assert [(r.relation, r.interval) for r in compact(later)] == [
        ("a", (jan(1), jan(3))),
        ("b", (jan(1), jan(2))),
        ("c", (jan(6), jan(6))),
    ]


def test_a_rebuilds_reset_ends_every_pending_restatement() -> None:
    """A rebuild recomputes the whole history: a restated range its reset comes after is no
    longer pending, even where the rebuild processes nothing (a kind without intervals, or a
    range past what is due, such as a whole-history restatement's far end)."""
    restated = marked(row(D(1900, 1, 1), D(9999, 12, 31), "removed", at=1), FULL)
    reset = marked(row(D(1900, 1, 1), D(9999, 12, 31), "removed", at=2), RESET)
    rebuilt = row(jan(1), jan(4), at=3)
    state = RelationState((row(jan(1), jan(2)), restated))
    assert state.pending_restatements and state.pending_full_restatement
    assert has_pending_restatement(state.rows)
    state = RelationState((*state.rows, reset, rebuilt))
    assert state.pending_restatements == [] and not state.pending_full_restatement
    assert not has_pending_restatement(state.rows)
    # restated after the reset: pending again
    after = marked(row(jan(2), jan(3), "removed", at=4), RESTATE)
    assert RelationState((*state.rows, after)).pending_restatements == [(jan(2), jan(3))]


# ---------------------------------------------------------------- last_fingerprint


def test_last_fingerprint() -> None:
    rows = [
        row(jan(1), jan(2), fp="a", at=0),
        row(jan(2), jan(3), fp="b", at=2),
        row(jan(2), jan(3), "removed", fp="c", at=3),
        row(jan(4), jan(5), fp="d", at=2, seq=1),
        row(jan(4), jan(5), fp="other", relation="db.x", at=9),
    ]
    assert last_fingerprint(rows, "db.m") == "d"
    assert last_fingerprint(rows) == "other"
    assert last_fingerprint([]) is None
    assert last_fingerprint([row(jan(1), jan(2), "removed")]) is None


# ---------------------------------------------------------------------- properties

_state_row = st.builds(
    lambda rel, start, length, kind, at, seq, fp: row(
        jan(1) + timedelta(hours=start),
        jan(1) + timedelta(hours=start + length),
        kind,
        relation=rel,
        fp=fp,
        at=at,
        seq=seq,
    ),
    st.sampled_from(["a", "b"]),
    st.integers(min_value=0, max_value=200),
    st.integers(min_value=0, max_value=60),
    st.sampled_from(["processed", "processed", "removed"]),
    st.integers(min_value=0, max_value=6),
    st.integers(min_value=0, max_value=3),
    st.sampled_from(["f1", "f2", "f3"]),
)
# rows of a relation often tied on (recorded_at, seq): the replay's tie-break is exercised
state_rows = st.lists(_state_row, max_size=25)
# logs as the writer writes them: every row of a relation its own (recorded_at, seq) (a
# statement's rows are numbered, statements microseconds apart: state/record_intervals.sql);
# only compaction's pieces of one row share theirs
written_rows = st.lists(
    _state_row, max_size=25, unique_by=lambda r: (r.relation, r.recorded_at, r.seq)
)


def _hours(intervals: list[Interval]) -> set[datetime]:
    out: set[datetime] = set()
    for start, end in intervals:
        cur = start
        while cur < end:
            out.add(cur)
            cur += timedelta(hours=1)
    return out


@settings(max_examples=300, deadline=None)
@given(rows=state_rows)
def test_replay_matches_cell_model(rows: list[StateRow]) -> None:
    for relation in ("a", "b"):
        mine = [r for r in rows if r.relation == relation]
        cells: set[datetime] = set()
        for r in sorted(mine, key=lambda r: (r.recorded_at, r.seq)):
            span = _hours([r.interval])
            cells = cells | span if r.kind == "processed" else cells - span
        result = replay(mine)
        assert _hours(result) == cells
        for (_, end), (start, _) in pairwise(result):
            assert end < start  # merged: neither overlapping nor adjacent


@settings(max_examples=300, deadline=None)
@given(rows=state_rows)
def test_compact_is_equivalent(rows: list[StateRow]) -> None:
    compacted = compact(rows)
    expected = {rel: ivs for rel, ivs in replay_all(rows).items() if ivs}
    assert {rel: ivs for rel, ivs in replay_all(compacted).items() if ivs} == expected
    # relations whose latest processed row carries no replayed range (an untracked run's empty
    # range, even inside a processed range, or a range removed since): kept as an empty range,
    # for its fingerprint and details
    last_runs = []
    for relation in ("a", "b"):
        mine = [r for r in rows if r.relation == relation]
        assert replay([r for r in compacted if r.relation == relation]) == replay(mine)
        processed = [r for r in mine if r.kind == "processed"]
        order = [(r.recorded_at, r.seq, r.start, r.end) for r in processed]
        latest = processed[order.index(max(order))] if processed else None
        if latest is not None and not (
            latest.start < latest.end
            and any(latest.start < end and latest.end > start for start, end in replay(mine))
        ):
            last_runs.append(replace(latest, end=latest.start))
    assert all(r.kind == "processed" for r in compacted)
    assert [r for r in compacted if r.start >= r.end] == last_runs
    assert len(compacted) == sum(len(ivs) for ivs in expected.values()) + len(last_runs)


@settings(max_examples=300, deadline=None)
@given(rows=written_rows)
def test_compacting_a_compacted_log_changes_nothing(rows: list[StateRow]) -> None:
    """On logs the writer writes. (Not on any log: an empty latest row tied on (recorded_at,
    seq) with a range it falls in is the latest by its bounds before compaction, not after;
    the writer never ties two rows of a relation.)"""
    compacted = compact(rows)
    assert compact(compacted) == compacted


@settings(max_examples=300, deadline=None)
@given(rows=logs(["a", "b"], max_rows=20))
def test_compact_keeps_every_pending_restatement(rows: list[StateRow]) -> None:
    """On logs with restatements, resets and other details: the compacted log says what the
    log says (the intervals, the restated ranges, a full restatement pending, the writes not
    settled); a relation with something pending is left with exactly its rows, the others are
    compacted."""
    compacted = compact(rows)
    kept = kept_relations(rows)
    for relation in ("a", "b"):
        mine = [r for r in rows if r.relation == relation]
        theirs = [r for r in compacted if r.relation == relation]
        before, after = RelationState(tuple(mine)), RelationState(tuple(theirs))
        assert after.processed == before.processed
        assert after.pending_restatements == before.pending_restatements
        assert after.pending_full_restatement == before.pending_full_restatement
        assert after.pending_writes == before.pending_writes
        assert (relation in kept) == has_pending(mine)
        if relation in kept:
            assert Counter(theirs) == Counter(mine)
        else:
            assert all(r.kind == "processed" for r in theirs)
    assert compact(compacted) == compacted
