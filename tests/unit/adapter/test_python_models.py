"""Python models: the batch context, the checks, running the compiled code (with a fake
SparkSession), the temporary views and the error a failing model raises."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from dbt.adapters.vulcan.python_models import (
    BatchContext,
    PythonModelError,
    PythonModels,
    call_model,
    check_model,
    run_script,
    to_spark_frame,
)

# what dbt appends to a Python model, reduced to what dbt-vulcan relies on
POSTFIX = """

def ref(*args, dbt_load_df_function):
    return dbt_load_df_function("schema." + args[0])


class dbtObj:
    def __init__(self, load_df_function) -> None:
        self.ref = lambda *args: ref(*args, dbt_load_df_function=load_df_function)
"""


class FakeFrame:
    def __init__(self, source: str) -> None:
        self.source = source
        self.views: list[str] = []

    def createOrReplaceTempView(self, name: str) -> None:
        self.views.append(name)


class FakeSession:
    def __init__(self) -> None:
        self.created: list[Any] = []

    def table(self, name: str) -> FakeFrame:
        return FakeFrame(name)

    def createDataFrame(self, data: Any) -> FakeFrame:
        self.created.append(data)
        return FakeFrame("pandas")


CTX = BatchContext.of("2025-01-01 00:00:00", "2025-01-08 00:00:00", "2025-01-08 05:00:00")


def test_batch_context_bounds_and_render() -> None:
    assert CTX.start == datetime(2025, 1, 1)
    assert CTX.end == datetime(2025, 1, 7, 23, 59, 59, 999999)
    assert CTX.end_exclusive == datetime(2025, 1, 8)
    assert CTX.execution_time == datetime(2025, 1, 8, 5)
    assert CTX.render("d between @start_ds and @end_ds and x = '@start_ds'") == (
        "d between '2025-01-01' and '2025-01-07' and x = '@start_ds'"
    )
    assert CTX.render("@execution_dt") == "CAST('2025-01-08 05:00:00+00:00' AS TIMESTAMP)"


def test_sql_only_kinds_are_refused() -> None:
    for materialized, kind in (("view", "VIEW"), ("ephemeral", "EMBEDDED"), ("seed", "SEED")):
        message = check_model("m", materialized, "session")
        assert message is not None
        assert message.startswith(f"Python model 'm': materialized='{materialized}' ({kind})")
        assert (
            "'table' or as one of: incremental_by_partition, incremental_by_time_range" in message
        )


def test_vulcan_kinds_need_the_session_method() -> None:
    assert check_model("m", "incremental_by_time_range", "session") is None
    message = check_model("m", "scd_type_2_by_time", "thrift")
    assert message is not None
    assert "needs the connection method 'session' (the profile uses 'thrift')" in message
    # dbt-spark submits `table` (and its own kinds) elsewhere, to Databricks
    assert check_model("m", "table", "thrift") is None


def test_call_model_passes_batch_and_session() -> None:
    code = (
        "def model(dbt, session):\n"
        "    assert session is not None\n"
        "    frame = dbt.ref('orders')\n"
        "    frame.bounds = (dbt.vulcan.start, dbt.vulcan.end)\n"
        "    return frame\n" + POSTFIX
    )
    frame = call_model("m", code, "models/m.py", FakeSession(), CTX)
    assert frame.source == "schema.orders"
    assert frame.bounds == (datetime(2025, 1, 1), datetime(2025, 1, 7, 23, 59, 59, 999999))


def test_failure_names_model_and_batch_with_the_traceback_of_the_model_code() -> None:
    code = (
        "def helper(n):\n"
        "    return 1 / n\n"
        "\n"
        "def model(dbt, session):\n"
        "    return helper(0)\n" + POSTFIX
    )
    with pytest.raises(PythonModelError) as info:
        call_model("m", code, "models/m.py", FakeSession(), CTX, " in batch 2025-01-01")
    message = str(info.value)
    assert message.startswith(
        "Python model 'm' failed in batch 2025-01-01: ZeroDivisionError: division by zero\n"
    )
    assert 'File "models/m.py", line 5, in model\n    return helper(0)' in message
    assert 'File "models/m.py", line 2, in helper\n    return 1 / n' in message
    # the traceback starts at the model's code, not in dbt-vulcan
    assert "python_models.py" not in message


def test_a_model_that_returns_no_dataframe() -> None:
    code = "def model(dbt, session):\n    return 42\n" + POSTFIX
    with pytest.raises(PythonModelError, match=r"model\(\) returned builtins\.int; expected"):
        call_model("m", code, "models/m.py", FakeSession(), CTX)


def test_frames_pandas_and_pandas_on_spark() -> None:
    session = FakeSession()
    frame = FakeFrame("x")
    assert to_spark_frame(frame, session) is frame

    class PandasOnSpark:
        def to_spark(self) -> FakeFrame:
            return frame

    assert to_spark_frame(PandasOnSpark(), session) is frame

    pandas_like = type("DataFrame", (), {"__module__": "pandas.core.frame"})()
    assert to_spark_frame(pandas_like, session).source == "pandas"
    assert session.created == [pandas_like]


def test_views_are_unique_and_released_per_model() -> None:
    code = "def model(dbt, session):\n    return dbt.ref('orders')\n" + POSTFIX
    models = PythonModels()
    session = FakeSession()
    first = models.query("model.p.a", "A-1", code, "models/a.py", session, CTX)
    second = models.query("model.p.a", "A-1", code, "models/a.py", session, CTX)
    other = models.query("model.p.b", "b", code, "models/b.py", session, CTX)
    assert first.startswith("select * from `vulcan_py_a_1_") and first != second
    dropped: list[str] = []
    released = models.release("model.p.a", dropped.append)
    assert released == dropped == [first[15:-1], second[15:-1]]
    assert models.release("model.p.a", dropped.append) == []
    assert models.release("model.p.b", dropped.append) == [other[15:-1]]


def test_run_script_binds_spark() -> None:
    session = FakeSession()
    run_script("m", "spark.createDataFrame([1])\n", "models/m.py", session)
    assert session.created == [[1]]
    with pytest.raises(PythonModelError, match="Python model 'm' failed: NameError"):
        run_script("m", "undefined_name\n", "models/m.py", session)
