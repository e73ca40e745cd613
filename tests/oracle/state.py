"""The oracle of the state log (macros/state/, and the log's reading, replay and compaction in
macros/state/log.sql): the Python reference the Jinja is checked against, never run.

Each log row records that a range of a relation was ``processed`` (added) or ``removed``
(subtracted, e.g. by a restatement). Replaying rows in ``(recorded_at, seq)`` order yields
the processed intervals. :class:`RelationState` is what the log says about one relation (what
planning.plan_model and operations.py plan and report from); :func:`values_sql` the VALUES
list an append writes.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from dbt.adapters.vulcan.timeutil import format_ts
from tests.oracle.engine import sql_string
from tests.oracle.schedule import Interval

__all__ = [
    "ABANDONED",
    "PROCESSED",
    "REMOVED",
    "STAGING",
    "WRITING",
    "RelationState",
    "StateRow",
    "compact",
    "has_pending",
    "has_pending_restatement",
    "kept_relations",
    "last_fingerprint",
    "merge_ranges",
    "replay",
    "replay_all",
    "row_details",
    "subtract",
    "values_sql",
]

PROCESSED = "processed"
REMOVED = "removed"
# a write that may commit without its record (engine/write_check.sql): `writing` before it,
# settled by the next run with `processed` (it committed) or `abandoned` (it did not)
WRITING = "writing"
ABANDONED = "abandoned"
# a stage about to be created by a run of a model that does not look for stale stages every
# run (engine/stage.sql): pending until a later `processed` or `abandoned` row, or a reset
STAGING = "staging"
# the virtual layer: which physical table an environment's view points at (environments/)
POINTER = "pointer"
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


def merge_ranges(intervals: Iterable[Interval]) -> list[Interval]:
    """Sort and merge overlapping or adjacent intervals; empty intervals are dropped."""
    out: list[Interval] = []
    for start, end in sorted(iv for iv in intervals if iv[0] < iv[1]):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


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
    if row.kind in (WRITING, ABANDONED, STAGING):
        return current  # a write's or a stage's intent, a settlement: add and remove nothing
    raise ValueError(
        f"state row kind {row.kind!r} is not one of: "
        f"{', '.join((*_KINDS, WRITING, ABANDONED, STAGING))}"
    )


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
    # (an empty latest row is never a range's contributor: kept even inside a range)
    carried = last is not None and last.start < last.end
    if last is not None and not (
        carried and any(last.start < r.end and last.end > r.start for r in out)
    ):
        # the latest processed row carries no range (an untracked kind's last run, or a range
        # removed since): kept as an empty range, which adds no interval but keeps what a plan
        # takes from it (its fingerprint, details, model id)
        out.append(replace(last, end=last.start))
    return out


def _read_order(row: StateRow) -> tuple[datetime, int, int, datetime, datetime]:
    """The order the log is read in: replay order, processed before removed, then the bounds."""
    return (*_order(row), _KINDS.index(row.kind) if row.kind in _KINDS else 2, row.start, row.end)


def has_pending_restatement(rows: Iterable[StateRow]) -> bool:
    """Whether a restatement of the relation of `rows` is pending (restated ranges, or a
    full-history restatement, not recomputed since): what neither the fold nor compaction
    may drop."""
    state = RelationState(tuple(rows))
    return bool(state.pending_restatements) or state.pending_full_restatement


def has_pending(rows: Iterable[StateRow]) -> bool:
    """Whether the log of one relation holds something neither the fold nor compaction may
    drop: a pending restatement, a write not settled yet, or a stage a stopped run may have
    left."""
    state = RelationState(tuple(rows))
    return (
        has_pending_restatement(state.rows)
        or bool(state.pending_writes)
        or bool(state.pending_stages)
    )


def compact(rows: Iterable[StateRow]) -> list[StateRow]:
    """Minimal equivalent 'processed' rows per relation, sorted by relation and start.

    Each merged range keeps the fingerprint, invocation id, recorded_at and seq of the
    latest processed row overlapping it. A relation whose latest processed row is an empty
    range (the last run of a kind without intervals) keeps that row too; otherwise relations
    with nothing processed yield no rows. A relation with a restatement pending keeps its
    rows as they are, in the order they are read (:func:`kept_relations` names
    them). The pointer rows of the virtual layer (which physical table each environment's view
    points at) are kept as they are, in read order: they are the environments' history.
    """
    out: list[StateRow] = []
    for relation, group in sorted(_group(rows).items()):
        if has_pending(group):
            out.extend(sorted(group, key=_read_order))
        else:
            out.extend(sorted((r for r in group if r.kind == POINTER), key=_read_order))
            out.extend(_compact_relation(relation, group))
    return out


def kept_relations(rows: Iterable[StateRow]) -> list[str]:
    """The relations :func:`compact` leaves as they are (something pending), sorted."""
    return [r for r, group in sorted(_group(rows).items()) if has_pending(group)]


def last_fingerprint(rows: Iterable[StateRow], relation: str | None = None) -> str | None:
    """Fingerprint of the latest 'processed' row (optionally of one ``relation``)."""
    processed = [
        row
        for row in rows
        if row.kind == PROCESSED and (relation is None or row.relation == relation)
    ]
    return max(processed, key=_order).fingerprint if processed else None


def values_sql(rows: Iterable[StateRow]) -> str:
    """The VALUES list of an INSERT into the state table, every value escaped here."""
    tuples = []
    for row in rows:
        fields = [
            sql_string(row.relation),
            sql_string(row.model_id),
            sql_string(format_ts(row.start)),
            sql_string(format_ts(row.end)),
            sql_string(row.kind),
            sql_string(row.fingerprint),
            sql_string(row.invocation_id),
            sql_string(row.recorded_at.isoformat(sep=" ")),
            str(int(row.seq)),
            sql_string(row.details),
        ]
        tuples.append("(" + ", ".join(fields) + ")")
    return ",\n".join(tuples)


@dataclass(frozen=True)
class RelationState:
    """What the log says about one relation."""

    rows: tuple[StateRow, ...]

    @property
    def processed(self) -> list[Interval]:
        return replay(self.rows)

    @property
    def touched(self) -> list[Interval]:
        """Every range recorded as processed since the table was last built from nothing (the
        `rebuilt` row a rebuild records once its empty table exists): it may still hold rows,
        even if removed. A reset alone (the rebuild stopped before its table was replaced)
        leaves the old table, so its ranges still count."""
        touched: list[Interval] = []
        for row in sorted(self.rows, key=_read_order):
            if row.kind == PROCESSED:
                touched.append(row.interval)
            elif row.kind == REMOVED and row_details(row).get("rebuilt"):
                touched = []
        return merge_ranges(touched)

    @property
    def latest(self) -> StateRow | None:
        processed = [r for r in self.rows if r.kind == PROCESSED]
        return max(processed, key=lambda r: (r.recorded_at, r.seq)) if processed else None

    @property
    def details(self) -> dict[str, Any]:
        latest = self.latest
        return row_details(latest) if latest is not None else {}

    @property
    def pending_full_restatement(self) -> bool:
        """A full-history restatement was requested and the table was not rebuilt since."""
        pending = False
        for row in sorted(self.rows, key=lambda r: (r.recorded_at, r.seq)):
            flags = row_details(row)
            if flags.get("restate") and row.kind != PROCESSED:
                pending = pending or bool(flags.get("full"))
            if flags.get("reset"):
                pending = False
        return pending

    @property
    def pending_restatements(self) -> list[Interval]:
        """Ranges restated by vulcan_restate that are not processed since (in replay order): a
        later removal that is not a restatement (a re-processed batch's marker, a rebuild's
        reset) leaves a range missing, not restated; a rebuild's reset recomputes the whole
        history, so no restatement before it is pending after it."""
        restated: list[Interval] = []
        for row in sorted(self.rows, key=_order):
            flags = row_details(row)
            if row.kind == PROCESSED:
                restated = subtract(restated, [row.interval])
            elif flags.get("restate"):
                restated = merge_ranges([*restated, row.interval])
            if flags.get("reset"):
                restated = []
        return restated

    @property
    def pending_writes(self) -> list[StateRow]:
        """The `writing` rows (in read order) that no later `processed` or `abandoned` row of
        the same range settles, nor a rebuild's reset: writes that may have committed without
        their record."""
        open_writes: list[StateRow] = []
        for row in sorted(self.rows, key=_read_order):
            if row.kind == WRITING:
                open_writes.append(row)
            elif row.kind in (PROCESSED, ABANDONED):
                open_writes = [w for w in open_writes if w.interval != row.interval]
            elif row.kind == REMOVED and row_details(row).get("reset"):
                open_writes = []  # a rebuild: every earlier write is moot
        return open_writes

    @property
    def pending_stages(self) -> list[StateRow]:
        """The `staging` rows (in read order) that no later `processed` or `abandoned` row
        follows, nor a rebuild's reset: stages a stopped run may have left."""
        open_stages: list[StateRow] = []
        for row in sorted(self.rows, key=_read_order):
            if row.kind == STAGING:
                open_stages.append(row)
            elif row.kind in (PROCESSED, ABANDONED) or (
                row.kind == REMOVED and row_details(row).get("reset")
            ):
                open_stages = []
        return open_stages


def row_details(row: StateRow) -> dict[str, Any]:
    """The JSON `details` of a state row ({} when empty or malformed)."""
    if not row.details:
        return {}
    try:
        loaded = json.loads(row.details)
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}
