"""The message a failed statement of the embedded session gives dbt (dbt/adapters/vulcan/
session.py, `jvm_message`): the JVM error behind py4j's, with the error that matters (a
`raise_error` of the duplicate-key guard) found under Spark's wrappers."""

from __future__ import annotations

from typing import Any

from dbt.adapters.vulcan.session import jvm_message

RAISED = "[USER_RAISED_EXCEPTION] Model 'm': duplicate unique_key in one batch: (id) = (1)"


class Java:
    """A JVM exception as py4j shows it: getMessage and getCause."""

    def __init__(self, message: str | None, cause: Java | None = None) -> None:
        self.message, self.cause = message, cause

    def getMessage(self) -> str | None:
        return self.message

    def getCause(self) -> Java | None:
        return self.cause


class Py4JError(Exception):
    def __init__(self, java: Java) -> None:
        super().__init__("An error occurred while calling o42.sql")
        self.java_exception = java


def message(java: Any) -> str | None:
    return jvm_message(Py4JError(java))


def test_a_plain_error_is_its_own_message() -> None:
    assert message(Java(RAISED)) == RAISED


def test_stages_failing_together_name_the_first_failure() -> None:
    stages = Java("Multiple failures in stage materialization.", Java(RAISED))
    assert RAISED in str(message(stages))


def test_the_first_failure_found_under_await_result() -> None:
    """Under load the first failed stage is itself reported as awaitResult's wrapper, whose
    message says nothing (CI, 2026-12-01): its cause is the one that matters."""
    wrapped = Java("Exception thrown in awaitResult: ", Java(RAISED))
    stages = Java("Multiple failures in stage materialization.", wrapped)
    assert RAISED in str(message(stages))


def test_a_failed_write_says_why() -> None:
    write = Java("[TASK_WRITE_FAILED] Task failed while writing rows", Java("x", Java(RAISED)))
    assert str(message(write)).endswith(f"Cause: {RAISED}")
