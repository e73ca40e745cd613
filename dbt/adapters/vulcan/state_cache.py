"""The interval log's rows in Python: one relation's state (RelationState), reading and
writing log rows. The runs and operations read and write the log with the package's SQL
(macros/planning, macros/state, macros/operations); this module is the test oracle's side:
the Python planner (planner.plan_model) and operations.py plan and report from it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dbt.adapters.vulcan.intervals import Interval, merge_ranges
from dbt.adapters.vulcan.state import PROCESSED, StateRow, replay
from dbt.adapters.vulcan.timeutil import format_ts, parse_time


def sql_string(value: str) -> str:
    """A Spark SQL string literal (Spark treats backslash as an escape character)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def row_from_record(record: Sequence[Any]) -> StateRow:
    """A StateRow from one row of `select relation, model_id, ... from <state table>`."""
    relation, model_id, start, end, row_type, fingerprint, invocation, recorded, seq, details = (
        record
    )
    return StateRow(
        relation=str(relation),
        start=parse_time(start, "interval_start", bounded=False),
        end=parse_time(end, "interval_end", bounded=False),
        kind=str(row_type),
        fingerprint=str(fingerprint or ""),
        invocation_id=str(invocation or ""),
        recorded_at=parse_time(recorded, "recorded_at", bounded=False),
        seq=int(seq or 0),
        model_id=str(model_id or ""),
        details=str(details or ""),
    )


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
        """Every range ever recorded as processed (it may still hold rows, even if removed)."""
        return merge_ranges(r.interval for r in self.rows if r.kind == PROCESSED)

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
        """Ranges restated by vulcan_restate that are not processed again yet."""
        restated = merge_ranges(
            r.interval for r in self.rows if r.kind != PROCESSED and row_details(r).get("restate")
        )
        from dbt.adapters.vulcan.state import subtract

        return subtract(restated, self.processed)


def row_details(row: StateRow) -> dict[str, Any]:
    """The JSON `details` of a state row ({} when empty or malformed)."""
    if not row.details:
        return {}
    try:
        loaded = json.loads(row.details)
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


def now_utc() -> datetime:
    """Naive UTC now."""
    from datetime import timezone

    return datetime.now(timezone.utc).replace(tzinfo=None)
