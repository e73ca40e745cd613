"""The state appends of dbt's threads committed together (group_commit.py): every append's
rows committed once before its thread returns, a failure charged to the append that fails
alone, waiting threads released however the leading statement ends."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbt.adapters.vulcan.group_commit import AppendQueue, AppendQueues, group_sql

HEAD = "insert into s "


def _bodies(sql: str) -> list[str]:
    assert sql.startswith(HEAD), sql
    return sql[len(HEAD) :].split("\nunion all\n")


class Warehouse:
    """A fake `run`: records each statement's bodies, commits them all or none (a body
    starting `bad` fails the statement), and can hold the first statement until released."""

    def __init__(self, hold_first: bool = False) -> None:
        self.lock = threading.Lock()
        self.statements: list[list[str]] = []
        self.committed: list[str] = []
        self.started = threading.Event()
        self.release = threading.Event()
        if not hold_first:
            self.release.set()

    def run(self, sql: str) -> None:
        bodies = _bodies(sql)
        with self.lock:
            self.statements.append(bodies)
        self.started.set()
        self.release.wait(10)
        if any(b.startswith("bad") for b in bodies):
            raise RuntimeError(f"failed: {bodies}")
        with self.lock:
            self.committed.extend(bodies)


def _appending(
    queue: AppendQueue, run: Callable[[str], None], bodies: list[str], out: dict[str, object]
) -> list[threading.Thread]:
    """A started thread per body appending it; its outcome (what `append` returned, or the
    exception it raised) goes to `out[body]`."""

    def one(body: str) -> None:
        try:
            out[body] = queue.append(HEAD, body, run)
        except BaseException as error:  # the outcome under test (an interrupt goes on up)
            out[body] = error

    threads = [threading.Thread(target=one, args=(b,)) for b in bodies]
    for t in threads:
        t.start()
    return threads


def _joined(threads: list[threading.Thread]) -> None:
    for t in threads:
        t.join(20)
        assert not t.is_alive()


def _held(queue: AppendQueue, w: Warehouse, out: dict[str, object]) -> list[threading.Thread]:
    """Append `h`, which the warehouse holds running until released."""
    threads = _appending(queue, w.run, ["h"], out)
    assert w.started.wait(5)
    return threads


def _queued(
    queue: AppendQueue, w: Warehouse, bodies: list[str], out: dict[str, object]
) -> list[threading.Thread]:
    """Append `bodies` while another append runs: they wait their turn in the queue."""
    threads = _appending(queue, w.run, bodies, out)
    deadline = time.monotonic() + 5
    while len(queue._queued) < len(bodies) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sorted(a.body for a in queue._queued) == sorted(bodies)
    return threads


def test_an_append_alone_is_its_own_statement() -> None:
    w = Warehouse()
    assert AppendQueue().append(HEAD, "values (1)", w.run) == 1
    assert w.statements == [["values (1)"]]
    assert group_sql(HEAD, ["a", "b"]) == "insert into s a\nunion all\nb"


def test_appends_made_while_one_runs_are_committed_together_after_it() -> None:
    w, queue, out = Warehouse(hold_first=True), AppendQueue(), {}
    threads = _held(queue, w, out) + _queued(queue, w, ["b", "c", "d"], out)
    w.release.set()
    _joined(threads)
    assert w.statements[0] == ["h"]
    assert sorted(w.statements[1]) == ["b", "c", "d"] and len(w.statements) == 2
    assert out == {"h": 1, "b": 3, "c": 3, "d": 3}
    assert sorted(w.committed) == ["b", "c", "d", "h"]


def test_a_failing_append_alone_raises_and_the_others_of_its_statement_are_recorded() -> None:
    w, queue, out = Warehouse(hold_first=True), AppendQueue(), {}
    threads = _held(queue, w, out) + _queued(queue, w, ["b1", "bad", "b2"], out)
    w.release.set()
    _joined(threads)
    assert out["h"] == 1 and out["b1"] == 1 and out["b2"] == 1  # each committed alone
    assert isinstance(out["bad"], RuntimeError) and "bad" in str(out["bad"])
    assert sorted(w.committed) == ["b1", "b2", "h"]
    assert sorted(w.statements[1]) == ["b1", "b2", "bad"]  # the statement that failed
    assert sorted(map(tuple, w.statements[2:])) == [("b1",), ("b2",), ("bad",)]


def test_an_append_that_fails_alone_raises_its_error() -> None:
    w = Warehouse()
    with pytest.raises(RuntimeError, match="bad"):
        AppendQueue().append(HEAD, "bad", w.run)
    assert w.committed == []


def test_an_interrupted_statement_releases_its_appends_which_run_alone() -> None:
    class Interrupting(Warehouse):
        def run(self, sql: str) -> None:
            if len(_bodies(sql)) > 1:
                with self.lock:
                    self.statements.append(_bodies(sql))
                raise KeyboardInterrupt  # the leading thread's dbt is cancelled
            super().run(sql)

    w, queue, out = Interrupting(hold_first=True), AppendQueue(), {}
    threads = _held(queue, w, out) + _queued(queue, w, ["p", "q"], out)
    w.release.set()
    _joined(threads)
    assert sorted(w.statements[1]) == ["p", "q"]
    interrupted = [b for b in ("p", "q") if isinstance(out[b], KeyboardInterrupt)]
    alone = [b for b in ("p", "q") if out[b] == 1]
    assert len(interrupted) == 1 and len(alone) == 1  # the leader's goes on up, the other ran
    assert w.statements[2:] == [alone] and sorted(w.committed) == sorted(["h", *alone])


def test_queues_are_per_state_table() -> None:
    queues = AppendQueues()
    assert queues.of("a.s") is queues.of("a.s")
    assert queues.of("a.s") is not queues.of("b.s")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.booleans(), min_size=1, max_size=8),  # per thread: whether its append fails
    st.floats(min_value=0, max_value=0.004),  # how long a statement takes
)
def test_every_append_is_committed_exactly_when_it_returns(bad: list[bool], pause: float) -> None:
    lock = threading.Lock()
    committed: list[str] = []

    def run(sql: str) -> None:
        bodies = _bodies(sql)
        time.sleep(pause)
        if any(b.startswith("bad") for b in bodies):
            raise RuntimeError("failed")
        with lock:
            committed.extend(bodies)

    names = [f"{'bad' if b else 'ok'}{i}" for i, b in enumerate(bad)]
    out: dict[str, object] = {}
    _joined(_appending(AppendQueue(), run, names, out))
    for name in names:
        if name.startswith("bad"):
            assert isinstance(out[name], RuntimeError)
        else:
            assert isinstance(out[name], int) and out[name] >= 1
    # every good append committed once, no failing one ever
    assert sorted(committed) == sorted(n for n in names if n.startswith("ok"))
