"""The embedded-Spark (`method: session`) connection, with two fixes over dbt-spark's:

- Bound values are rendered as SQL literals: None becomes NULL (dbt-spark inserts the string
  'None', so a seed's empty cell is not NULL), strings are escaped, integers stay integers.
- A Spark error whose message pyspark cannot format (Delta's error classes are unknown to
  Spark's own error catalog, so pyspark raises an INTERNAL_ERROR about the lookup instead)
  is reported with the original JVM exception's message.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from dbt.adapters.spark.session import SessionConnectionWrapper
from dbt_common.exceptions import DbtRuntimeError


def sql_literal(value: Any) -> str:
    """A Spark SQL literal for a bound value."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float | Decimal):
        return repr(float(value)) if isinstance(value, float) else str(value)
    if isinstance(value, dt.datetime):
        return f"'{value.strftime('%Y-%m-%d %H:%M:%S.%f')}'"
    if isinstance(value, dt.date):
        return f"'{value.isoformat()}'"
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


# messages of JVM exceptions that only wrap the error that matters (their root cause)
_WRAPPERS = ("[TASK_WRITE_FAILED]", "Exception thrown in awaitResult")


def jvm_message(exc: BaseException) -> str | None:
    """The message of the JVM exception behind a py4j error, if there is one."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        java = getattr(current, "java_exception", None)
        if java is not None and "SparkThrowableHelper.getMessage" not in str(current):
            try:
                message = str(java.getMessage())
                # AQE reports stages failing together with a generic message; the first
                # stage's error (e.g. a raise_error) is its cause
                cause = java.getCause()
                if cause is not None and message.startswith("Multiple failures in stage"):
                    # the first failure may itself only wrap it (awaitResult, under load)
                    while str(cause.getMessage() or "").strip().startswith(_WRAPPERS) and (
                        cause.getCause() is not None
                    ):
                        cause = cause.getCause()
                    message = f"{message} First failure: {cause.getMessage()}"
                elif cause is not None and message.startswith(_WRAPPERS):
                    # the write or subquery failed because the query did (e.g. a
                    # raise_error): say why
                    while cause.getCause() is not None:
                        cause = cause.getCause()
                    message = f"{message.strip()} Cause: {cause.getMessage()}"
                return message
            except Exception:  # the JVM may be gone
                return None
        current = current.__context__ or current.__cause__
    return None


class VulcanSessionConnectionWrapper(SessionConnectionWrapper):
    @classmethod
    def _fix_binding(cls, value: Any) -> str:  # type: ignore[override]
        return sql_literal(value)

    def execute(self, sql: str, bindings: list[Any] | None = None) -> None:
        try:
            super().execute(sql, bindings)
        except DbtRuntimeError:
            raise
        except Exception as exc:
            message = jvm_message(exc)
            if message is None:
                raise
            raise DbtRuntimeError(message) from exc
