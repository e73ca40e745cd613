"""Python models (`def model(dbt, session)`) of dbt-vulcan's kinds, run in the in-process
SparkSession of the `session` connection method.

dbt compiles a Python model to its own code followed by dbt's helpers (`dbtObj`, `ref`,
`source`, `config`). Once per batch, `PythonModels.batch_query` executes that code, calls
`model(dbt, session)` with `dbt.vulcan` describing the batch (a :class:`BatchContext`),
registers the DataFrame it returns as a uniquely named temporary view and hands back
`select * from <view>`. From there the batch is a SQL model's batch: the same output filter,
audits, write strategy and interval recording. The views are dropped after the batch.

The `table` materialization's Python script (dbt-spark's, written for Databricks) runs here
too, with `run_script`.
"""

from __future__ import annotations

import itertools
import linecache
import re
import threading
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from dbt.adapters.vulcan.config_keys import KINDS
from dbt.adapters.vulcan.timemacros import render, token_values
from dbt.adapters.vulcan.timeutil import parse_time

__all__ = [
    "PYTHON_KINDS",
    "BatchContext",
    "PythonModelError",
    "PythonModels",
    "check_model",
    "run_script",
    "spark_session",
    "to_spark_frame",
]

# the materializations that run a Python model batch by batch
PYTHON_KINDS = frozenset(KINDS)
# materializations that stay SQL-only, with the Vulcan kind each one is
SQL_ONLY = {"view": "VIEW", "ephemeral": "EMBEDDED", "seed": "SEED"}

_ONE_US = timedelta(microseconds=1)
_COUNTER = itertools.count(1)


class PythonModelError(Exception):
    """A Python model failed; the message names the model and holds the Python traceback."""


@dataclass(frozen=True)
class BatchContext:
    """`dbt.vulcan` in a Python model: the batch being computed.

    `start` is the first instant of the batch, `end` its last (inclusive, as the `@end_*`
    time macros: `2025-01-07 23:59:59.999999`), `end_exclusive` the first instant after it.
    All are naive UTC datetimes. `render(sql)` substitutes the SQL time macros (`@start_ds`,
    `@end_dt`, ...) of a query with this batch's values, for `session.sql(...)`."""

    start: datetime
    end_exclusive: datetime
    execution_time: datetime
    _tokens: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, start: Any, end_exclusive: Any, execution_time: Any) -> BatchContext:
        """From datetimes or the timestamps of a plan (`2025-01-01 00:00:00`)."""
        low = parse_time(start, "start")
        high = parse_time(end_exclusive, "end")
        now = parse_time(execution_time, "execution_time")
        return cls(low, high, now, token_values(low, high, now))

    @property
    def end(self) -> datetime:
        return self.end_exclusive - _ONE_US

    def render(self, sql: str) -> str:
        return render(sql, self._tokens)


def check_model(name: str, materialized: str, method: str) -> str | None:
    """Why a Python model cannot run as configured (None when it can)."""
    if materialized in SQL_ONLY:
        return (
            f"Python model '{name}': materialized='{materialized}' ({SQL_ONLY[materialized]}) "
            "is SQL-only. Python models can be materialized as 'table' or as one of: "
            f"{', '.join(sorted(PYTHON_KINDS))}."
        )
    if materialized in PYTHON_KINDS and method != "session":
        return (
            f"Python model '{name}' ({materialized}) needs the connection method 'session' "
            f"(the profile uses '{method}'): dbt-vulcan runs Python models in the embedded "
            "SparkSession. Write the model in SQL to run it over thrift, http or odbc."
        )
    return None


def spark_session(params: Mapping[str, Any] | None) -> Any:
    """The SparkSession of the `session` connection method (the one dbt-spark's cursor
    builds: same builder, so an existing session is returned as it is)."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.enableHiveSupport()
    for key, value in (params or {}).items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def to_spark_frame(frame: Any, session: Any) -> Any:
    """A Spark DataFrame from what a model returned (pyspark, pandas-on-Spark or pandas)."""
    if hasattr(frame, "createOrReplaceTempView"):
        return frame
    if hasattr(frame, "to_spark"):  # pandas-on-Spark
        return frame.to_spark()
    if type(frame).__module__.split(".")[0] == "pandas":
        return session.createDataFrame(frame)
    raise TypeError(
        f"model() returned {type(frame).__module__}.{type(frame).__qualname__}; expected a "
        "pyspark DataFrame, a pandas-on-Spark DataFrame or a pandas DataFrame"
    )


def _load(code: str, filename: str, namespace: dict[str, Any]) -> None:
    # the compiled code's lines, for the traceback (the file on disk lacks dbt's helpers)
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    exec(compile(code, filename, "exec"), namespace)


def _failure(name: str, filename: str, where: str, exc: BaseException) -> PythonModelError:
    """The error to report: the model, where it failed, and the traceback from its code on."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    lines = traceback.format_exception(type(exc), exc, tb or exc.__traceback__)
    return PythonModelError(
        f"Python model '{name}' failed{where}: {type(exc).__name__}: {exc}\n"
        f"Python traceback:\n{''.join(lines).rstrip()}"
    )


def call_model(
    name: str, code: str, filename: str, session: Any, context: BatchContext, where: str = ""
) -> Any:
    """Execute the compiled code, call `model(dbt, session)`, return its Spark DataFrame."""
    try:
        namespace: dict[str, Any] = {"__name__": f"dbt_python_model_{_safe(name)}"}
        _load(code, filename, namespace)
        dbt = namespace["dbtObj"](session.table)
        dbt.vulcan = context
        return to_spark_frame(namespace["model"](dbt, session), session)
    except Exception as exc:
        raise _failure(name, filename, where, exc) from exc


def run_script(name: str, code: str, filename: str, session: Any) -> None:
    """Run a complete Python script (dbt-spark's `table` materialization writes one) with
    `spark` bound to the session."""
    try:
        _load(code, filename, {"__name__": f"dbt_python_model_{_safe(name)}", "spark": session})
    except Exception as exc:
        raise _failure(name, filename, "", exc) from exc


def _safe(text: str) -> str:
    return re.sub(r"[^a-z0-9_]", "_", text.lower())[:60]


class PythonModels:
    """The temporary views of the Python models being run, by model, so they can be dropped."""

    def __init__(self) -> None:
        self._views: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def query(
        self,
        model_id: str,
        name: str,
        code: str,
        filename: str,
        session: Any,
        context: BatchContext,
        where: str = "",
    ) -> str:
        """Run the model for one batch; `select * from <its temporary view>`."""
        frame = call_model(name, code, filename, session, context, where)
        view = f"vulcan_py_{_safe(name)}_{next(_COUNTER)}"
        frame.createOrReplaceTempView(view)
        with self._lock:
            self._views.setdefault(model_id, []).append(view)
        return f"select * from `{view}`"

    def release(self, model_id: str, drop: Callable[[str], Any]) -> list[str]:
        """Drop the model's temporary views; returns their names."""
        with self._lock:
            views = self._views.pop(model_id, [])
        for view in views:
            drop(view)
        return views
