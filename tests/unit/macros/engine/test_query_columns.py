"""A query's columns (macros/engine/describe.sql: vulcan_query_columns) with Spark's type names
on every connection: dbt's schema read in the embedded session, `DESCRIBE QUERY` where the
cursor gives type codes only (thrift, http, odbc, Databricks), in both modes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.macro_harness import FakeResult, Harness, _Namespace

QUERY = "select id, amount, d from src"
DESCRIBED = FakeResult(
    [
        ("id", "bigint", None),
        ("amount", "decimal(10,2)", None),
        ("d", "date", "the day"),
        ("", "", None),
        ("# a section dbt never asks for", "", None),
    ]
)


@pytest.fixture(scope="module", params=["vulcan", "spark", "databricks"])
def harness(request: pytest.FixtureRequest) -> Harness:
    return Harness(adapter_type=request.param)


def _columns(h: Harness, target: dict[str, Any]) -> list[tuple[str, str]]:
    h.reset()
    h.context["target"] = {**h.context["target"], **target}
    h.query_results[f"describe query {QUERY}"] = DESCRIBED
    return [(c["name"], c["dtype"]) for c in h.call("vulcan_query_columns", QUERY)]


@pytest.mark.parametrize("method", ["thrift", "http", "odbc", None])
def test_a_server_describes_the_query_with_type_names(harness: Harness, method: str) -> None:
    # method None: type databricks, whose credentials have no `method`
    target = {"method": method} if method else {}
    columns = _columns(harness, target)
    assert columns == [("id", "bigint"), ("amount", "decimal(10,2)"), ("d", "date")]
    assert harness.statements == [f"describe query {QUERY}"]


def test_the_session_reads_the_schema_of_dbts_empty_subquery(harness: Harness) -> None:
    seen: list[str] = []

    def schema(sql: str) -> list[Any]:
        seen.append(sql)
        return ["the adapter's columns"]

    harness.reset()
    harness.context["target"] = {**harness.context["target"], "method": "session"}
    harness.context["dbt"] = _Namespace(harness.context)
    real = harness.context["adapter"]
    harness.context["adapter"] = type(
        "A", (), {"get_column_schema_from_query": staticmethod(schema), "dispatch": real.dispatch}
    )()
    try:
        assert harness.call("vulcan_query_columns", QUERY) == ["the adapter's columns"]
    finally:
        harness.context["adapter"] = real
    # dbt's default empty subquery (not the dispatched one, which binds tokens for dbt show)
    assert len(seen) == 1 and QUERY in seen[0] and "where false" in seen[0].lower()
    assert harness.statements == []


WIDE = "struct<" + ",".join(f"v{i}:int" for i in range(30)) + ">"
CUT = "struct<" + ",".join(f"v{i}:int" for i in range(24)) + ",... 6 more fields>"
WHOLE = (
    "select typeof(vulcan_q.`payload`), typeof(vulcan_q.`more`) from (select 1 as vulcan_one) "
    f"as vulcan_one left join (select * from ({QUERY}) as vulcan_q where false) as vulcan_q on true"
)


def test_a_struct_spark_cuts_short_is_read_again_whole(harness: Harness) -> None:
    """Spark prints a struct of more than 25 fields cut short: such columns' types are read
    again with `typeof` (no session setting), the others kept as described."""
    harness.reset()
    harness.context["target"] = {**harness.context["target"], "method": "thrift"}
    described = f"describe query {QUERY}"
    harness.query_results[described] = FakeResult(
        [("id", "bigint", None), ("payload", CUT, None), ("more", CUT, None)]
    )
    harness.query_results[WHOLE] = FakeResult([(WIDE, WIDE.replace("int", "string"))])
    columns = [(c["name"], c["dtype"]) for c in harness.call("vulcan_query_columns", QUERY)]
    assert columns == [
        ("id", "bigint"),
        ("payload", WIDE),
        ("more", WIDE.replace("int", "string")),
    ]
    assert harness.statements == [described, WHOLE]
    # a query Spark prints whole is described once
    harness.reset()
    _columns(harness, {"method": "thrift"})
    assert harness.statements == [f"describe query {QUERY}"]
