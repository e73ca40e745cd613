"""Credentials and connection manager: dbt-spark's, with the type `vulcan`.

Every dbt-spark connection method (session, thrift, http, odbc) and every dbt-spark profile
field is accepted unchanged. dbt-vulcan adds two optional fields: `state_schema`, the schema of
the interval state table (default `vulcan_state`), and `state_file_format`, its table format
(parquet, delta or iceberg; default parquet).
"""

from __future__ import annotations

from dataclasses import dataclass

from dbt.adapters.contracts.connection import Connection
from dbt.adapters.spark.connections import (
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
        return connection
