"""The thrift/http connection wrapper: its polling schedule and reopening a connection that
was closed on this side, with fake pyhive objects (no server)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from dbt.adapters.vulcan.connections import FIRST_POLL_WAIT, VulcanPyhiveConnectionWrapper


class FakeTransport:
    def __init__(self) -> None:
        self.open = True

    def isOpen(self) -> bool:
        return self.open


class FakeCursor:
    def __init__(self, conn: FakeConnection) -> None:
        self.conn = conn


class FakeConnection:
    def __init__(self, name: str) -> None:
        self.name = name
        self._transport = FakeTransport()

    def cursor(self) -> FakeCursor:
        return FakeCursor(self)


def wrapper(conn: FakeConnection, poll_interval: float = 5) -> VulcanPyhiveConnectionWrapper:
    out = VulcanPyhiveConnectionWrapper(conn, poll_interval)  # type: ignore[arg-type]
    out.cursor()
    return out


def test_polls_soon_then_backs_off_to_poll_interval() -> None:
    w = wrapper(FakeConnection("a"), poll_interval=1)
    waits = [w.poll_interval for _ in range(8)]
    assert waits[0] == FIRST_POLL_WAIT
    assert waits == sorted(waits) and waits[-1] == 1
    assert all(b <= 2 * a for a, b in pairwise(waits))


def test_closed_connection_is_reopened_before_the_statement(monkeypatch: Any) -> None:
    sent: list[tuple[str, str]] = []

    def fake_execute(self: Any, sql: str, bindings: Any = None) -> None:
        sent.append((self._cursor.conn.name, sql))

    monkeypatch.setattr(
        "dbt.adapters.spark.connections.PyhiveConnectionWrapper.execute", fake_execute
    )
    first = FakeConnection("first")
    w = wrapper(first)
    opened: list[FakeConnection] = []

    def reconnect() -> FakeConnection:
        opened.append(FakeConnection(f"new{len(opened)}"))
        return opened[-1]

    w.reconnect = reconnect
    w.execute("select 1")
    assert sent == [("first", "select 1")] and opened == []
    first._transport.open = False  # dbt closed it
    w.execute("select 2")
    assert sent[-1] == ("new0", "select 2") and w.handle is opened[0]
    w.execute("select 3")  # the new one is open: used as is
    assert sent[-1] == ("new0", "select 3") and len(opened) == 1
