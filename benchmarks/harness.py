"""Runs dbt in this process (dbtRunner) and records, per model run, dbt's `execution_time`,
every SQL statement dbt sent to Spark (from dbt's own SQLQuery events, the lines of dbt's debug
log "On model...: sql") with its duration, and the number of Spark jobs it launched.

All dbt invocations of a process share one SparkSession (dbt-spark's session method reuses
it), so runs are warm: after the first statement of the process, no run pays the JVM's
start-up.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbt.cli.main import dbtRunner

# statement categories: `write` is the work itself; `state` and `metadata` are bookkeeping
WRITE, STATE, METADATA = "write", "state", "metadata"
_WRITE_VERBS = ("create", "insert", "merge", "drop", "alter", "update", "delete", "truncate")
_METADATA_VERBS = ("describe", "desc", "show", "set", "use", "analyze", "refresh")


def strip_comments(sql: str) -> str:
    sql = re.sub(r"/\*.*?\*/", " ", sql, flags=re.S)
    sql = re.sub(r"--[^\n]*", " ", sql)
    return sql.strip()


def classify(sql: str) -> str:
    """`state` (the interval log), `metadata` (DESCRIBE, SHOW, SET, schema probes) or `write`."""
    text = strip_comments(sql).lower()
    if "vulcan_intervals" in text:
        return STATE
    verb = text.split(None, 1)[0] if text else ""
    if verb in _METADATA_VERBS:
        return METADATA
    if verb in _WRITE_VERBS:
        return WRITE
    if re.search(r"\blimit\s+0\s*$", text) or re.search(r"where\s+false\s+limit\s+0", text):
        return METADATA  # get_column_schema_from_query's probe
    return METADATA if verb in ("select", "with") else WRITE


@dataclass
class Statement:
    conn: str
    sql: str
    seconds: float = 0.0

    @property
    def category(self) -> str:
        return classify(self.sql)


@dataclass
class ModelRun:
    """One model's run inside one dbt invocation."""

    name: str
    status: str
    execution_time: float
    message: str
    statements: list[Statement] = field(default_factory=list)
    spark_jobs: int = 0
    wall: float = 0.0  # the whole dbt invocation, parse included

    def count(self, *categories: str) -> int:
        return sum(1 for s in self.statements if s.category in categories)

    @property
    def bookkeeping(self) -> int:
        return self.count(STATE, METADATA)

    def seconds(self, *categories: str) -> float:
        return sum(s.seconds for s in self.statements if s.category in categories)

    def summary(self) -> dict[str, Any]:
        counts = Counter(s.category for s in self.statements)
        return {
            "name": self.name,
            "status": self.status,
            "execution_time": round(self.execution_time, 3),
            "wall": round(self.wall, 3),
            "message": self.message,
            "statements": len(self.statements),
            "by_category": dict(counts),
            "spark_jobs": self.spark_jobs,
            "sql": [
                {"category": s.category, "seconds": round(s.seconds, 3), "sql": s.sql}
                for s in self.statements
            ],
        }


class DbtFailed(RuntimeError):
    pass


class Dbt:
    """dbt invocations against one project, with statement capture."""

    def __init__(self, project_dir: Path, spark: Any) -> None:
        self.project_dir = project_dir
        self.spark = spark
        self._statements: list[Statement] = []
        self._runner = dbtRunner(callbacks=[self._on_event])

    def _on_event(self, event: Any) -> None:
        name = event.info.name
        if name == "SQLQuery":
            self._statements.append(Statement(event.data.conn_name, event.data.sql))
        elif name == "SQLQueryStatus" and self._statements:
            self._statements[-1].seconds = float(event.data.elapsed)

    def _last_job(self) -> int:
        ids = self.spark.sparkContext.statusTracker().getJobIdsForGroup(None)
        return max(ids, default=-1)

    def invoke(self, args: list[str], vars_: dict[str, Any] | None = None) -> list[ModelRun]:
        """Runs `dbt <args>`; raises DbtFailed unless every node succeeded."""
        import json

        argv = [*args, "--project-dir", str(self.project_dir)]
        argv += ["--profiles-dir", str(self.project_dir), "--log-level-file", "none"]
        argv += ["--quiet"]
        if vars_:
            argv += ["--vars", json.dumps(vars_)]
        self._statements = []
        first_job = self._last_job()
        started = time.perf_counter()
        result = self._runner.invoke(argv)
        wall = time.perf_counter() - started
        jobs = self._last_job() - first_job
        if not result.success or result.exception is not None:
            raise DbtFailed(f"dbt {' '.join(args)} failed: {result.exception or result.result}")
        runs: list[ModelRun] = []
        for node in getattr(result.result, "results", []) or []:
            unique_id = node.node.unique_id
            runs.append(
                ModelRun(
                    name=node.node.name,
                    status=str(node.status),
                    execution_time=float(node.execution_time),
                    message=str(node.message or ""),
                    statements=[s for s in self._statements if s.conn == unique_id],
                    spark_jobs=jobs,
                    wall=wall,
                )
            )
        return runs

    def run_one(self, verb: str, name: str, vars_: dict[str, Any], *extra: str) -> ModelRun:
        """`dbt <verb> --select <name>` with vars; the model's run."""
        runs = self.invoke([verb, "--select", name, *extra], vars_)
        if len(runs) != 1:
            raise DbtFailed(f"dbt {verb} --select {name}: {len(runs)} results")
        return runs[0]


def timed_sql(spark: Any, statements: list[str]) -> float:
    """Runs statements one after the other in the SparkSession; their total seconds."""
    started = time.perf_counter()
    for sql in statements:
        spark.sql(sql).collect()
    return time.perf_counter() - started
