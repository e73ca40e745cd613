"""The state log's rows as one invocation of the `vulcan` adapter knows them: read once, kept
current by this invocation's own appends.

The first model of an invocation that plans reads the rows of every selected model, their
parents and (with the virtual layer) their physical tables in one statement; every later model
plans from the rows kept here, with the rows this invocation appended since (added after each
append commits). A request the rows kept do not cover (a relation outside the selection) reads
the log again, for what it asks. A relation whose log this invocation rewrote (a fold, the
janitor, a compaction) is read again when next asked for.

What another process appends during the invocation is seen by the next invocation: a model's
writes are overwrites or merges of whole intervals, so a plan made from rows a little old
recomputes, at worst, an interval that process wrote meanwhile, to the same result.

A relation key matches a prefix as the read's SQL does (`relation > p and relation < p~`,
state/log.sql): Python compares strings by code point, as Spark compares UTF-8 bytes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

Row = tuple[Any, ...]


def in_prefix(key: str, prefix: str) -> bool:
    """Whether `key` is in the read's range of `prefix`: after it, before `prefix~`."""
    return prefix < key < prefix + "~"


@dataclass
class _Log:
    """The rows kept of one state table in one invocation."""

    invocation: str
    keys: set[str] = field(default_factory=set)
    prefixes: set[str] = field(default_factory=set)
    rows: dict[str, list[Row]] = field(default_factory=dict)
    # relations rewritten since the read: answered by a read again
    stale: set[str] = field(default_factory=set)
    wide: bool = False

    def covers(self, key: str) -> bool:
        if key in self.stale:
            return False
        return key in self.keys or any(in_prefix(key, p) for p in self.prefixes)

    def covers_prefix(self, prefix: str) -> bool:
        if any(in_prefix(key, prefix) for key in self.stale):
            return False
        # the request's range inside a covered one
        return any(p <= prefix and prefix + "~" <= p + "~" for p in self.prefixes)

    def answer(self, keys: Sequence[str], prefixes: Sequence[str]) -> list[Row] | None:
        if not all(self.covers(k) for k in keys) or not all(
            self.covers_prefix(p) for p in prefixes
        ):
            return None
        wanted = set(keys)
        return [
            row
            for key, rows in self.rows.items()
            if key in wanted or any(in_prefix(key, p) for p in prefixes)
            for row in rows
        ]

    def take(self, keys: Iterable[str], prefixes: Iterable[str], rows: Iterable[Row]) -> None:
        """Rows just read for `keys` and `prefixes`: they replace what was kept of those."""
        keys, prefixes = set(keys), set(prefixes)

        def asked(key: str) -> bool:
            return key in keys or any(in_prefix(key, p) for p in prefixes)

        for key in [k for k in self.rows if asked(k)]:
            del self.rows[key]
        self.stale = {k for k in self.stale if not asked(k)}
        self.keys |= keys
        self.prefixes |= prefixes
        for row in rows:
            self.rows.setdefault(str(row[0]), []).append(tuple(row))


class StateCache:
    """The state rows of the running invocation, per state table; shared by dbt's threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._logs: dict[str, _Log] = {}

    def _log(self, state: str, invocation: str) -> _Log:
        log = self._logs.get(state)
        if log is None or log.invocation != invocation:
            log = self._logs[state] = _Log(invocation)
        return log

    def wide_read_done(self, state: str, invocation: str) -> bool:
        """Whether this invocation read the whole selection's rows (vulcan_invocation_reads)."""
        with self._lock:
            return self._log(state, invocation).wide

    def rows(
        self,
        state: str,
        invocation: str,
        keys: Sequence[str],
        prefixes: Sequence[str],
        read: Callable[[list[str], list[str]], Iterable[Row]],
        wide_keys: Sequence[str] = (),
        wide_prefixes: Sequence[str] = (),
    ) -> list[Row]:
        """The rows of `keys` and `prefixes`: from what is kept when it covers them, else
        from `read(keys, prefixes)` of them and, on the invocation's first read, of the whole
        selection (`wide_keys`, `wide_prefixes`). One thread reads at a time: a thread that
        waited finds the rows another one read."""
        with self._lock:
            log = self._log(state, invocation)
            found = log.answer(keys, prefixes)
            if found is not None:
                return found
            all_keys, all_prefixes = list(keys), list(prefixes)
            if not log.wide and (wide_keys or wide_prefixes):
                all_keys += [k for k in wide_keys if k not in all_keys]
                all_prefixes += [p for p in wide_prefixes if p not in all_prefixes]
                log.wide = True
            log.take(all_keys, all_prefixes, read(all_keys, all_prefixes))
            found = log.answer(keys, prefixes)
            assert found is not None
            return found

    def appended(self, state: str, invocation: str, rows: Iterable[Row]) -> None:
        """Rows this invocation appended (after the append committed)."""
        with self._lock:
            log = self._log(state, invocation)
            for row in rows:
                key = str(row[0])
                if log.covers(key):
                    log.rows.setdefault(key, []).append(tuple(row))

    def rewritten(self, state: str, invocation: str, key: str | None) -> None:
        """Relation `key`'s log (every relation's when None) was rewritten: read it again."""
        with self._lock:
            if key is None:
                self._logs.pop(state, None)
                return
            log = self._log(state, invocation)
            log.rows.pop(key, None)
            log.stale.add(key)


def parse_values(values_sql: str) -> list[Row]:
    """The rows of an append's VALUES list (state/record_intervals.sql: string literals,
    escaped by vulcan_sql_string, and integers), as the read returns them."""
    import sqlglot
    from sqlglot import exp

    parsed = sqlglot.parse_one(f"values {values_sql}", read="spark")
    if not isinstance(parsed, exp.Values):
        raise ValueError(f"state log append: not a VALUES list: {values_sql[:80]!r}")
    rows: list[Row] = []
    for item in parsed.expressions:
        values: list[Any] = []
        for value in item.expressions:
            if isinstance(value, exp.Literal):
                values.append(value.this if value.is_string else int(value.this))
            elif isinstance(value, exp.Null):
                values.append(None)
            else:
                raise ValueError(f"state log append: not a literal: {value.sql('spark')!r}")
        rows.append(tuple(values))
    return rows
