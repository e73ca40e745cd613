"""Credentials and connection manager: dbt-spark's, with the type `vulcan`.

Every dbt-spark connection method (session, thrift, http, odbc) and every dbt-spark profile
field is accepted unchanged. dbt-vulcan adds two optional fields: `state_schema`, the schema of
the interval state table (default `vulcan_state`), and `state_file_format`, its table format
(parquet, delta or iceberg; default parquet).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from dbt.adapters.contracts.connection import Connection, ConnectionState, Identifier
from dbt.adapters.spark.connections import (
    PyhiveConnectionWrapper,
    SparkConnectionManager,
    SparkConnectionMethod,
    SparkCredentials,
)

DEFAULT_STATE_SCHEMA = "vulcan_state"


@dataclass
class VulcanCredentials(SparkCredentials):
    """dbt-spark credentials plus the location of the interval state table."""

    state_schema: str = DEFAULT_STATE_SCHEMA
    state_file_format: str = "parquet"

    @property
    def type(self) -> str:
        return "vulcan"

    def _connection_keys(self) -> tuple[str, ...]:
        return (*super()._connection_keys(), "method", "state_schema", "state_file_format")


# the first wait for a running statement over thrift/http; doubled up to poll_interval
FIRST_POLL_WAIT = 0.05


class VulcanPyhiveConnectionWrapper(PyhiveConnectionWrapper):
    """dbt-spark's thrift/http connection, polling a running statement again after 50 ms, then
    at doubling waits up to the profile's `poll_interval`. dbt-spark sleeps `poll_interval` (5 s
    by default) after every status that says running; Spark's Thrift server holds a status
    request up to 5 s (long polling), so there a statement of 5.3 s was seen done after 10 s."""

    _max_wait: float = 5.0
    _next_wait: float = FIRST_POLL_WAIT

    @property  # type: ignore[override]
    def poll_interval(self) -> float:
        """The next wait: dbt-spark's polling loop reads it once per sleep."""
        wait = self._next_wait
        self._next_wait = min(wait * 2, self._max_wait)
        return min(wait, self._max_wait)

    @poll_interval.setter
    def poll_interval(self, value: float) -> None:
        self._max_wait = max(float(value), FIRST_POLL_WAIT)

    # opens a new pyhive connection with the same credentials (set by the connection manager)
    reconnect: Callable[[], Any] | None = None

    def execute(self, sql: str, bindings: list[Any] | None = None) -> None:
        self._next_wait = FIRST_POLL_WAIT
        self._reopen_if_closed()
        super().execute(sql, bindings)

    def _reopen_if_closed(self) -> None:
        """A connection whose transport is closed on this side (dbt closed it, e.g. at the end
        of an invocation, and a caller still holds it) is reopened before a statement is sent:
        safe, because nothing of the statement reached the server. dbt-spark would fail with
        `Transport not open` after its retries."""
        transport = getattr(self.handle, "_transport", None)
        if self.reconnect is None or transport is None or transport.isOpen():
            return
        self.handle = self.reconnect()
        self._cursor = self.handle.cursor()


class VulcanConnectionManager(SparkConnectionManager):
    TYPE = "vulcan"

    @classmethod
    def open(cls, connection: Connection) -> Connection:
        connection = super().open(connection)
        if connection.credentials.method == SparkConnectionMethod.SESSION:
            from dbt.adapters.vulcan.session import VulcanSessionConnectionWrapper

            handle = connection.handle
            if not isinstance(handle, VulcanSessionConnectionWrapper):
                connection.handle = VulcanSessionConnectionWrapper(handle.handle)
        elif type(connection.handle) is PyhiveConnectionWrapper:
            handle = connection.handle
            wrapper = VulcanPyhiveConnectionWrapper(
                handle.handle, handle.poll_interval, handle.query_timeout, handle.query_retries
            )
            wrapper.reconnect = partial(cls._open_pyhive, connection.credentials)
            connection.handle = wrapper
        return connection

    @classmethod
    def _open_pyhive(cls, credentials: VulcanCredentials) -> Any:
        """A new pyhive connection for `credentials`, opened as dbt-spark opens one."""
        fresh = Connection(
            type=Identifier(cls.TYPE),
            name="vulcan_reconnect",
            state=ConnectionState.INIT,
            transaction_open=False,
            handle=None,
            credentials=credentials,
        )
        return SparkConnectionManager.open(fresh).handle.handle
