"""Spark session settings of each test target (parquet, delta, iceberg) for the session method.

Static settings must be in place before dbt-spark's first query creates the SparkSession, so
they travel in the profile's `server_side_parameters`. One SparkSession per pytest process.

The `thrift` target is `method: thrift` against the Spark Thrift Server that
scripts/spark_server.sh starts (a local standalone cluster, Delta configured): its tables are
Delta, so it also matches the `delta` profile markers.
"""

from __future__ import annotations

import base64
import os
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ("parquet", "delta", "iceberg", "thrift", "databricks")
# the table format of a target that is not named after its format
TARGET_FORMAT = {"thrift": "delta", "databricks": "delta"}


def jars(fmt: str) -> list[str]:
    """The runtime jars of a table format, fetched by scripts/fetch_jars.sh."""
    folder = Path(os.environ.get("VULCAN_JARS_DIR", ROOT / ".vulcan" / "jars")) / fmt
    found = sorted(str(p) for p in folder.glob("*.jar"))
    if not found:
        raise RuntimeError(
            f"no {fmt} jars in {folder}: run `bash scripts/fetch_jars.sh` (needs Maven Central)"
        )
    return found


def server_side_parameters(fmt: str, workdir: Path, java_options: str = "") -> dict[str, str]:
    """Session settings for a local SparkSession whose metastore and warehouse live in workdir;
    java_options are added to the driver JVM's. The JVM's temporary files (Hive's session
    resources, Spark's local dirs) go to workdir too, so removing workdir leaves nothing."""
    (workdir / "tmp").mkdir(parents=True, exist_ok=True)
    params = {
        "spark.master": "local[2]",
        "spark.driver.memory": "4g",
        "spark.sql.warehouse.dir": str(workdir / "warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL": (
            f"jdbc:derby:;databaseName={workdir / 'metastore_db'};create=true"
        ),
        "spark.driver.extraJavaOptions": (
            f"-Dderby.system.home={workdir} -Djava.io.tmpdir={workdir / 'tmp'} "
            f"-Dlog4j2.configurationFile={ROOT / 'tests' / 'log4j2.properties'} {java_options}"
        ).strip(),
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.session.timeZone": "UTC",
    }
    if fmt == "delta":
        params |= {
            "spark.jars": ",".join(jars("delta")),
            "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
            "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
            "spark.databricks.delta.snapshotPartitions": "2",
        }
    elif fmt == "iceberg":
        params |= {
            "spark.jars": ",".join(jars("iceberg")),
            "spark.sql.extensions": (
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
            ),
            "spark.sql.catalog.spark_catalog": "org.apache.iceberg.spark.SparkSessionCatalog",
            "spark.sql.catalog.spark_catalog.type": "hive",
            # the embedded Derby metastore has no Hive lock tables (HIVE_LOCKS): without this,
            # Iceberg's commit lock fails (NoClassDefFoundError BoneCPConfig / HIVE_LOCKS)
            "spark.hadoop.iceberg.engine.hive.lock-enabled": "false",
            # CREATE OR REPLACE of an Iceberg table whose columns change type by position
            # (a rebuild after a schema change) is otherwise refused by the Hive metastore
            "spark.hadoop.hive.metastore.disallow.incompatible.col.type.changes": "false",
        }
    return params


def file_format(target: str) -> str:
    """The table format of a test target's models and state table."""
    return TARGET_FORMAT.get(target, target)


def thrift_target(threads: int = 1, **extra: Any) -> dict[str, Any]:
    """A `method: thrift` profile target for the server of scripts/spark_server.sh, found
    through VULCAN_THRIFT_HOST / VULCAN_THRIFT_PORT (`spark_server.sh run` sets them)."""
    port = os.environ.get("VULCAN_THRIFT_PORT")
    if not port:
        raise RuntimeError(
            "the thrift target needs a running Spark Thrift Server: run the tests through "
            "`bash scripts/spark_server.sh run -- <pytest command>` (or `make thrift`)"
        )
    return {
        "type": "vulcan",
        "method": "thrift",
        "host": os.environ.get("VULCAN_THRIFT_HOST", "127.0.0.1"),
        "port": int(port),
        "user": "dbt",
        "threads": threads,
        "connect_retries": 3,
        "connect_timeout": 5,
        "state_file_format": file_format("thrift"),
        **extra,
    }


def databricks_target(threads: int = 1) -> dict[str, Any]:
    """A stock `type: databricks` profile target (dbt-databricks, its Hive-metastore path) for
    the Databricks-protocol server of `VULCAN_THRIFT_TRANSPORT=http scripts/spark_server.sh`,
    through the connector's test-only shim (tests/databricks_shim, on PYTHONPATH). The
    http_path is a cluster's, so dbt-databricks reads the runtime version the server reports;
    the connection goes to `_connection_uri`. The server takes a token that is base64 of
    user:password."""
    port = os.environ.get("VULCAN_THRIFT_PORT")
    if not port or os.environ.get("VULCAN_THRIFT_TRANSPORT") != "http":
        raise RuntimeError(
            "the databricks target needs the Spark Thrift Server over HTTP: run the tests "
            "through `VULCAN_THRIFT_TRANSPORT=http bash scripts/spark_server.sh run -- <pytest "
            "command>` (or `make databricks`)"
        )
    host = os.environ.get("VULCAN_THRIFT_HOST", "127.0.0.1")
    return {
        "type": "databricks",
        "host": host,
        "http_path": "sql/protocolv1/o/0/vulcan-test",
        "token": base64.b64encode(b"dbt:dbt").decode(),
        "catalog": "hive_metastore",
        "threads": threads,
        "connection_parameters": {"_connection_uri": f"http://{host}:{port}/cliservice"},
    }


def thrift_run_sql_for_tests(self: Any, sql: str, fetch: str | None, conn: Any) -> Any:
    """dbt-spark's run_sql_for_tests, with DATE values as dates: over thrift they arrive as
    'YYYY-MM-DD' strings (pyspark gives date objects), so that tests compare alike."""
    cursor = conn.handle.cursor()
    cursor.execute(sql)
    if fetch not in ("one", "all"):
        return None
    data = cursor.fetchall()
    types = [d[1] for d in cursor.description or []]
    data = [
        tuple(
            date.fromisoformat(v) if t == "DATE_TYPE" and isinstance(v, str) else v
            for v, t in zip(row, types, strict=False)
        )
        for row in data
    ]
    if fetch == "one":
        return data[0] if data else None
    return data
