"""Spark session settings of each test target (parquet, delta, iceberg) for the session method.

Static settings must be in place before dbt-spark's first query creates the SparkSession, so
they travel in the profile's `server_side_parameters`. One SparkSession per pytest process.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ("parquet", "delta", "iceberg")


def jars(fmt: str) -> list[str]:
    """The runtime jars of a table format, fetched by scripts/fetch_jars.sh."""
    folder = Path(os.environ.get("VULCAN_JARS_DIR", ROOT / ".vulcan" / "jars")) / fmt
    found = sorted(str(p) for p in folder.glob("*.jar"))
    if not found:
        raise RuntimeError(
            f"no {fmt} jars in {folder}: run `bash scripts/fetch_jars.sh` (needs Maven Central)"
        )
    return found


def server_side_parameters(fmt: str, workdir: Path) -> dict[str, str]:
    """Session settings for a local SparkSession whose metastore and warehouse live in workdir."""
    params = {
        "spark.master": "local[2]",
        "spark.driver.memory": "4g",
        "spark.sql.warehouse.dir": str(workdir / "warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL": (
            f"jdbc:derby:;databaseName={workdir / 'metastore_db'};create=true"
        ),
        "spark.driver.extraJavaOptions": (
            f"-Dderby.system.home={workdir} "
            f"-Dlog4j2.configurationFile={ROOT / 'tests' / 'log4j2.properties'}"
        ),
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
        }
    return params
