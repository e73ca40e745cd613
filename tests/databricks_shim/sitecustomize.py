"""Test infrastructure, never shipped: lets the stock dbt-databricks adapter (through
databricks-sql-connector) talk to Apache Spark's Thrift Server in HTTP mode, the
Databricks-protocol test target (scripts/spark_server.sh, VULCAN_THRIFT_TRANSPORT=http).

Python loads this module at start-up when its folder is on PYTHONPATH (the databricks lane's
dbt processes only). It wraps one connector method, `ThriftDatabricksClient.make_request`,
every request and response of which passes through it, and changes only what Apache Spark
answers differently from a Databricks runtime:

- OpenSession: Spark answers HiveServer2 protocol V10 and ignores the initial namespace; the
  connector requires a Databricks protocol (>= SPARK_CLI_SERVICE_PROTOCOL_V2, V4 for an
  initial namespace) and multiple catalogs. The answer is raised to V7 (below V8: no
  parameterised queries, which Spark's server would not bind).
- ExecuteStatement: the catalog `hive_metastore` (dbt-databricks' Hive-metastore path) is
  Spark's `spark_catalog`; `USE CATALOG c` is `USE c`.
- Result metadata: Spark sends no `resultFormat` (its rows are column based), and none at all
  with fetched rows (the connector asks for it there); a statement without a result set
  (DDL, DML) describes one column that carries no values.
- Host metadata: databricks-sdk (dbt-databricks' credentials) asks the host for
  `/.well-known/databricks-config` whenever it builds a config, once per connection; a
  workspace serves it, Spark's server answers with errors the SDK retries for five minutes.
  Here the lookup fails at once, and the SDK goes on with the profile's settings, as it does
  when a host has no such page.

With VULCAN_SHIM_LOG set to a file, it also appends one JSON line per session opened (its id
and the session configuration the client sent, where dbt-databricks puts its query tags) and
per statement (its session's id and text), for tests of what a run's connections carry.

Pinned to the connector version it was written against: another version fails loudly here,
so a connector upgrade is a deliberate change of this shim.
"""

from __future__ import annotations

import json
import os
import re
from importlib.metadata import version
from typing import Any

PINNED_CONNECTOR = "4.1.5"

if version("databricks-sql-connector") != PINNED_CONNECTOR:
    raise RuntimeError(
        f"tests/databricks_shim patches databricks-sql-connector {PINNED_CONNECTOR}, "
        f"found {version('databricks-sql-connector')}: check the shim against it"
    )

import databricks.sdk.config as _sdk_config  # noqa: E402
from databricks.sql.backend.thrift_backend import ThriftDatabricksClient  # noqa: E402
from databricks.sql.thrift_api.TCLIService import ttypes  # noqa: E402

_HIVE_METASTORE = re.compile(r"(?<![\w.])`?hive_metastore`?(?=\s*\.|\s*$|\s*;)", re.IGNORECASE)
_USE_CATALOG = re.compile(r"^\s*use\s+catalog\s+", re.IGNORECASE)


def spark_sql(statement: str) -> str:
    """A Databricks statement as Apache Spark takes it."""
    statement = _USE_CATALOG.sub("use ", statement)
    return _HIVE_METASTORE.sub("spark_catalog", statement)


def _fix_metadata(metadata: Any) -> None:
    if metadata is not None and metadata.resultFormat is None:
        metadata.resultFormat = ttypes.TSparkRowSetType.COLUMN_BASED_SET


def _fill_columns(rows: Any, metadata: Any) -> None:
    """Rows of a statement without a result set carry no columns: as many empty ones as the
    metadata describes."""
    if rows is None or rows.columns or metadata is None or metadata.schema is None:
        return
    rows.columns = [
        ttypes.TColumn(stringVal=ttypes.TStringColumn(values=[], nulls=b""))
        for _ in metadata.schema.columns
    ]


_original_make_request = ThriftDatabricksClient.make_request


def _log(entry: dict[str, Any]) -> None:
    """One JSON line in VULCAN_SHIM_LOG's file, when it is set (one write: lines of concurrent
    threads do not interleave)."""
    path = os.environ.get("VULCAN_SHIM_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")


def _session_id(handle: Any) -> str | None:
    return handle.sessionId.guid.hex() if handle is not None and handle.sessionId else None


def _make_request(self: Any, method: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
    if isinstance(request, ttypes.TExecuteStatementReq):
        request.statement = spark_sql(request.statement)
        _log({"session": _session_id(request.sessionHandle), "statement": request.statement})
    response = _original_make_request(self, method, request, *args, **kwargs)
    if isinstance(response, ttypes.TOpenSessionResp):
        _log(
            {
                "session": _session_id(response.sessionHandle),
                "configuration": dict(request.configuration or {}),
            }
        )
        if response.serverProtocolVersion < ttypes.TProtocolVersion.SPARK_CLI_SERVICE_PROTOCOL_V2:
            response.serverProtocolVersion = ttypes.TProtocolVersion.SPARK_CLI_SERVICE_PROTOCOL_V7
            response.canUseMultipleCatalogs = True
    elif isinstance(response, ttypes.TGetResultSetMetadataResp):
        _fix_metadata(response)
    elif isinstance(response, ttypes.TFetchResultsResp):
        if response.resultSetMetadata is None:  # asked for (includeResultSetMetadata), not sent
            response.resultSetMetadata = _original_make_request(
                self,
                self._client.GetResultSetMetadata,
                ttypes.TGetResultSetMetadataReq(operationHandle=request.operationHandle),
            )
        _fix_metadata(response.resultSetMetadata)
        _fill_columns(response.results, response.resultSetMetadata)
    elif isinstance(response, ttypes.TExecuteStatementResp) and response.directResults:
        direct = response.directResults
        _fix_metadata(direct.resultSetMetadata)
        if direct.resultSet is not None:
            _fill_columns(direct.resultSet.results, direct.resultSetMetadata)
    return response


ThriftDatabricksClient.make_request = _make_request  # type: ignore[method-assign]


def _no_host_metadata(host: str, *args: Any, **kwargs: Any) -> Any:
    raise ValueError(f"{host}: the Databricks-protocol test server serves no host metadata")


if hasattr(_sdk_config, "get_host_metadata"):
    _sdk_config.get_host_metadata = _no_host_metadata
    # and the SDK's warning that it fell back, which would print once per connection
    _sdk_config.logger.addFilter(
        lambda record: "resolve config from host metadata" not in record.getMessage()
    )
