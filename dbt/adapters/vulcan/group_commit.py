"""Appends to one state table by dbt's threads, committed together: a group commit.

A model run's state append (state/record_intervals.sql) is a Spark write job of its own: on
a parquet state table a dynamic partition overwrite, which costs about as much server CPU as
the model's own write of a day. When several of dbt's threads append at about the same time,
one statement can carry all their rows. The first thread to append while no append of that
table is running leads: it runs its own append at once. Threads that append while it runs
wait; when it ends, one of them leads the next statement, with every append queued by then.
Each thread returns only after the statement that carries its rows committed (or raises what
made it fail), so a model's run still ends after its rows are recorded, as with one append
per model.

A statement of several appends that fails is not blamed on all of them: each of its appends
is run again alone, by its own thread, so only an append that fails alone fails its model
(and the appends of the others are recorded). Running one again is safe: an INSERT into Delta
or Iceberg commits all of it or nothing, and a parquet append is an overwrite of partitions
that only it writes (relation, append id), which a second try writes again the same.

The statement joins the appends' bodies (`select ... from values ...` on parquet, one per
append with its own id; `values ...` on Delta and Iceberg) with `union all` after the one
INSERT head they share (record_intervals.sql renders both).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(eq=False)
class _Append:
    body: str
    done: bool = False
    error: BaseException | None = None
    together: int = 0  # how many appends its statement carried


def group_sql(head: str, bodies: list[str]) -> str:
    """One INSERT of every body."""
    return head + "\nunion all\n".join(bodies)


class AppendQueue:
    """The appends to one state table of this process's threads."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._queued: list[_Append] = []
        self._running = False

    def append(self, head: str, body: str, run: Callable[[str], object]) -> int:
        """Runs `head` + `body` with the appends queued with it, in the calling thread
        (`run(sql)` on its own connection) or in another one's: returns when the rows are
        committed, with how many appends the statement carried (1 when alone)."""
        mine = _Append(body)
        with self._cond:
            self._queued.append(mine)
            while self._running and not mine.done:
                self._cond.wait()
            leading = not mine.done  # no statement runs and none carried it: it leads
            if leading:
                self._running = True
                batch, self._queued = self._queued, []
        if leading:
            self._lead(head, batch, run)
        if mine.error is None:
            return mine.together
        if mine.together > 1:  # a statement of several failed: this append alone
            run(group_sql(head, [body]))
            return 1
        raise mine.error

    def _lead(self, head: str, batch: list[_Append], run: Callable[[str], object]) -> None:
        # the waiting threads are released however the statement ends (an interrupt of this
        # thread goes on up from here; they try theirs alone)
        error: BaseException | None = _INTERRUPTED
        try:
            run(group_sql(head, [a.body for a in batch]))
            error = None
        except Exception as failed:
            error = failed
        finally:
            with self._cond:
                for a in batch:
                    a.done, a.error, a.together = True, error, len(batch)
                self._running = False
                self._cond.notify_all()


_INTERRUPTED = RuntimeError("the state append carrying this one was interrupted")


class AppendQueues:
    """An AppendQueue per state table (a project's targets may keep their state apart)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: dict[str, AppendQueue] = {}

    def of(self, state: str) -> AppendQueue:
        with self._lock:
            return self._queues.setdefault(state, AppendQueue())
