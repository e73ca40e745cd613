"""Random state logs for the property tests of the macros that read the log (operations,
fold): hypothesis strategies of StateRow lists, and the rows as the Jinja reads them
(`vulcan_log_read`: microseconds, in the query's order)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from tests.oracle.state import RelationState, StateRow

EPOCH = datetime(1970, 1, 1)
T0 = datetime(2025, 1, 1)
RECORDED = datetime(2025, 6, 1, 8, 30)


def micros(dt: datetime) -> int:
    delta = dt - EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def iv(ranges: list[tuple[datetime, datetime]]) -> list[list[int]]:
    """Ranges of datetimes as the Jinja gives them: [start, end) in epoch microseconds."""
    return [[micros(s), micros(e)] for s, e in ranges]


def jinja_row(row: StateRow) -> dict[str, Any]:
    return {
        "relation": row.relation,
        "model_id": row.model_id,
        "start": micros(row.start),
        "end": micros(row.end),
        "row_type": row.kind,
        "fingerprint": row.fingerprint,
        "invocation_id": row.invocation_id,
        "at": micros(row.recorded_at),
        "seq": row.seq,
        "details": row.details,
    }


def sql_order(row: StateRow) -> tuple[Any, ...]:
    kind = {"processed": 1, "removed": 2}.get(row.kind, 3)
    return (row.relation, row.recorded_at, row.seq, kind, row.start, row.end)


def by_key(rows: list[StateRow]) -> dict[str, list[dict[str, Any]]]:
    """What vulcan_log_read returns for `rows` (the query orders them)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for row in sorted(rows, key=sql_order):
        out.setdefault(row.relation, []).append(jinja_row(row))
    return out


def states(rows: list[StateRow]) -> dict[str, RelationState]:
    grouped: dict[str, list[StateRow]] = {}
    for row in rows:
        grouped.setdefault(row.relation, []).append(row)
    return {k: RelationState(tuple(v)) for k, v in grouped.items()}


DETAILS = [
    "",
    "",
    '{"restate": true, "full": false}',
    '{"restate": true, "full": true}',
    '{"reset": true}',
    '{"time_type": "date"}',
    "not json",
    "null",
]


# a batch's write and its settlement (engine/write_check.sql) and a stage's intent
# (engine/stage.sql) beside the processed and removed ranges
KINDS = ["processed", "processed", "removed", "writing", "abandoned", "staging"]


@st.composite
def logs(draw: Any, relations: list[str], max_rows: int = 14) -> list[StateRow]:
    """Rows of the given relations; ranges on hour boundaries (sometimes odd minutes) over
    about 100 days from 2025-01-01, empty ones included, often an earlier row's range again;
    recorded_at often tied, seq unique."""
    count = draw(st.integers(0, max_rows))
    rows = []
    for index in range(count):
        start = T0 + timedelta(hours=draw(st.integers(-48, 2400)))
        if draw(st.integers(0, 5)) == 0:
            start += timedelta(minutes=draw(st.integers(1, 59)))
        end = start + timedelta(hours=draw(st.sampled_from([0, 1, 5, 24, 48, 72, 200, 700])))
        # a write settled (or not) later names the same range: often an earlier row's
        if rows and draw(st.integers(0, 2)) == 0:
            earlier = draw(st.sampled_from(rows))
            start, end = earlier.start, earlier.end
        rows.append(
            StateRow(
                relation=draw(st.sampled_from(relations)),
                start=start,
                end=end,
                kind=draw(st.sampled_from(KINDS)),
                fingerprint=draw(st.sampled_from(["f1", "f2", ""])),
                invocation_id=draw(st.sampled_from(["inv-a", "inv-b", "inv-c"])),
                recorded_at=RECORDED + timedelta(seconds=draw(st.integers(0, 6))),
                seq=index,
                model_id=draw(st.sampled_from(["model.p.x", ""])),
                details=draw(st.sampled_from(DETAILS)),
            )
        )
    return rows


def row(start: str, end: str, kind: str = "processed", seq: int = 0, details: str = "") -> StateRow:
    """One row of relation `s.m` from ISO bounds; `seq` orders it (and its second)."""
    return StateRow(
        "s.m",
        datetime.fromisoformat(start),
        datetime.fromisoformat(end),
        kind,
        "fp",
        "inv",
        datetime(2025, 1, 1, 0, 0, seq),
        seq,
        details=details,
    )
