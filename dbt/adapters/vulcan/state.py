"""Pure replay of the append-only interval state log.

Each log row records that a range of a relation was ``processed`` (added) or ``removed``
(subtracted, e.g. by a restatement). Replaying rows in ``(recorded_at, seq)`` order yields
the processed intervals. The SQL that reads and writes the log lives elsewhere.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from dbt.adapters.vulcan.intervals import Interval, merge_ranges

__all__ = [
    "PROCESSED",
    "REMOVED",
    "StateRow",
    "compact",
    "last_fingerprint",
    "replay",
    "replay_all",
    "subtract",
]

PROCESSED = "processed"
REMOVED = "removed"
_KINDS = (PROCESSED, REMOVED)


@dataclass(frozen=True)
class StateRow:
    """One row of the state log."""

    relation: str
    start: datetime
    end: datetime
    kind: str
    fingerprint: str
    invocation_id: str
    recorded_at: datetime
    seq: int = 0
    model_id: str = ""
    details: str = ""

    @property
    def interval(self) -> Interval:
        """The row's half-open range."""
        return (self.start, self.end)


def _order(row: StateRow) -> tuple[datetime, int]:
    return (row.recorded_at, row.seq)


def subtract(a: Sequence[Interval], b: Sequence[Interval]) -> list[Interval]:
    """The parts of ``a`` not covered by ``b`` (both arbitrary; result merged and sorted)."""
    out: list[Interval] = []
    holes = merge_ranges(b)
    for start, end in merge_ranges(a):
        cursor = start
        for hole_start, hole_end in holes:
            if hole_end <= cursor or hole_start >= end:
                continue
            if hole_start > cursor:
                out.append((cursor, hole_start))
            cursor = max(cursor, hole_end)
            if cursor >= end:
                break
        if cursor < end:
            out.append((cursor, end))
    return out


def _apply(current: list[Interval], row: StateRow) -> list[Interval]:
    if row.kind == PROCESSED:
        return merge_ranges([*current, row.interval])
    if row.kind == REMOVED:
        return subtract(current, [row.interval])
    raise ValueError(f"state row kind {row.kind!r} is not one of: {', '.join(_KINDS)}")


def replay(rows: Iterable[StateRow]) -> list[Interval]:
    """Processed intervals of ONE relation (mixed relations raise ValueError)."""
    ordered = sorted(rows, key=_order)
    relations = {row.relation for row in ordered}
    if len(relations) > 1:
        raise ValueError(f"replay expects rows of one relation, got {sorted(relations)}")
    current: list[Interval] = []
    for row in ordered:
        current = _apply(current, row)
    return current


def _group(rows: Iterable[StateRow]) -> dict[str, list[StateRow]]:
    groups: dict[str, list[StateRow]] = defaultdict(list)
    for row in rows:
        groups[row.relation].append(row)
    return dict(groups)


def replay_all(rows: Iterable[StateRow]) -> dict[str, list[Interval]]:
    """Processed intervals per relation."""
    return {relation: replay(group) for relation, group in _group(rows).items()}


def _compact_relation(relation: str, rows: list[StateRow]) -> list[StateRow]:
    processed = [row for row in rows if row.kind == PROCESSED]
    out: list[StateRow] = []
    for start, end in replay(rows):
        # an empty range (an untracked kind's run) adds nothing to a range it falls in
        contributors = [
            row for row in processed if row.start < row.end and row.start < end and row.end > start
        ]
        latest = max(contributors, key=_order)
        out.append(
            StateRow(
                relation=relation,
                start=start,
                end=end,
                kind=PROCESSED,
                fingerprint=latest.fingerprint,
                invocation_id=latest.invocation_id,
                recorded_at=latest.recorded_at,
                seq=latest.seq,
                model_id=latest.model_id,
                details=latest.details,
            )
        )
    # the latest processed row in replay order (ties: by bounds, as the log is read)
    last = max(processed, key=lambda r: (*_order(r), r.start, r.end)) if processed else None
    if last is not None and last.start >= last.end:
        out.append(last)  # an untracked kind's last run: it adds no interval, so it stays
    return out


def compact(rows: Iterable[StateRow]) -> list[StateRow]:
    """Minimal equivalent 'processed' rows per relation, sorted by relation and start.

    Each merged range keeps the fingerprint, invocation id, recorded_at and seq of the
    latest processed row overlapping it. A relation whose latest processed row is an empty
    range (the last run of a kind without intervals) keeps that row too; otherwise relations
    with nothing processed yield no rows.
    """
    out: list[StateRow] = []
    for relation, group in sorted(_group(rows).items()):
        out.extend(_compact_relation(relation, group))
    return out


def last_fingerprint(rows: Iterable[StateRow], relation: str | None = None) -> str | None:
    """Fingerprint of the latest 'processed' row (optionally of one ``relation``)."""
    processed = [
        row
        for row in rows
        if row.kind == PROCESSED and (relation is None or row.relation == relation)
    ]
    return max(processed, key=_order).fingerprint if processed else None
