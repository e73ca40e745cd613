"""dbt's own commands on dbt-vulcan's models (macros/native): the Jinja form of the time tokens
(placeholder while parsing and in a run, the range's value in a unit test) and the SQL the
unit tests run (tokens for the unit test's range, the output filter), through the package's
`spark__` overrides of dbt's dispatched macros."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.macro_harness import CompilerError, Harness, _Namespace, squash

TR_CODE = (
    "{{ config(materialized='incremental_by_time_range', time_column='order_date', "
    "time_data_type='date') }}\nselect * from x where d between @start_ds and @end_ds"
)


def flags(which: str) -> Any:
    return type("Flags", (), {"EMPTY": False, "WHICH": which})()


@pytest.fixture(scope="module")
def base() -> Harness:
    return Harness(adapter_type="spark")


@pytest.fixture
def h(base: Harness) -> Harness:
    base.reset()
    base.context.update(
        {
            "execute": True,
            "flags": flags("test"),
            "dbt": _Namespace(base.context),
            "model": unit_test({}),
        }
    )
    return base


def unit_test(overrides: dict[str, str], raw_code: str = TR_CODE) -> dict[str, Any]:
    return {
        "resource_type": "unit_test",
        "name": "ut",
        "raw_code": raw_code,
        "overrides": {"vars": overrides},
    }


def test_token_is_the_placeholder_while_parsing_and_in_a_run(h: Harness) -> None:
    h.context["execute"] = False
    assert h.call("start_ds") == "@start_ds"
    h.context.update({"execute": True, "flags": flags("run"), "model": {"resource_type": "model"}})
    assert h.call("end_dt") == "@end_dt"
    assert h.call("vulcan_token", "execution_millis") == "@execution_millis"


def test_unknown_token_is_refused_with_the_known_ones(h: Harness) -> None:
    with pytest.raises(CompilerError) as error:
        h.call("vulcan_token", "start_day")
    assert str(error.value).startswith(
        "dbt_vulcan.vulcan_token: 'start_day' is not a time token; the tokens are: "
        "end_date, end_ds, end_dt, end_epoch, end_millis, end_timestamp, end_ts, execution_date,"
    )


def test_unit_test_token_values_come_from_the_overrides_vars(h: Harness) -> None:
    h.context["model"] = unit_test(
        {
            "vulcan_start": "2025-01-02",
            "vulcan_end": "2025-01-02",
            "vulcan_execution_time": "2025-01-05 06:00:00",
        }
    )
    assert h.call("start_ds") == "'2025-01-02'"
    assert h.call("end_dt") == "CAST('2025-01-02 23:59:59.999999+00:00' AS TIMESTAMP)"
    assert h.call("execution_ts") == "'2025-01-05 06:00:00'"


def test_unit_test_without_vars_is_all_of_time(h: Harness) -> None:
    assert h.call("start_ds") == "'1900-01-01'"
    assert h.call("end_ds") == "'9999-12-30'"


def test_unit_test_sql_renders_the_tokens_and_the_output_filter(h: Harness) -> None:
    h.context["model"] = unit_test({"vulcan_start": "2025-01-02", "vulcan_end": "2025-01-03"})
    sql = "select * from x where d between @start_ds and @end_ds"
    assert squash(h.call("vulcan_native_sql", sql)) == squash(
        "select * from (\nselect * from x where d between '2025-01-02' and '2025-01-03'\n)"
        " as vulcan_batch\nwhere `order_date` is null"
        " or (`order_date` >= CAST('2025-01-02' AS DATE)"
        " AND `order_date` < CAST('2025-01-04' AS DATE))"
    )
    # dbt's unit test statement around it, through the package's spark__ override
    statement = squash(h.call("spark__get_unit_test_sql", sql, "select 1 as d", ["d"]))
    assert "where d between '2025-01-02' and '2025-01-03'" in statement
    assert "@start_ds" not in statement and "dbt_internal_unit_test_expected" in statement
    empty = squash(h.call("spark__get_empty_subquery_sql", sql))
    assert "'2025-01-02'" in empty and empty.endswith("where false limit 0")


def test_unit_test_reads_the_time_column_set_under_meta(h: Harness) -> None:
    # the form README writes (dbt 1.10+ warns of custom keys set directly in config())
    code = (
        "{{ config(materialized='incremental_by_time_range',\n"
        "          meta={'time_column': \"order_date\", 'time_data_type': 'date'}) }}\n"
    )
    h.context["model"] = unit_test({"vulcan_start": "2025-01-02", "vulcan_end": "2025-01-02"}, code)
    assert squash(h.call("vulcan_native_sql", "select * from x")).endswith(
        "where `order_date` is null or (`order_date` >= CAST('2025-01-02' AS DATE)"
        " AND `order_date` < CAST('2025-01-03' AS DATE))"
    )


def test_unit_test_of_a_tracked_model_filters_no_row(h: Harness) -> None:
    # tracked keeps or drops whole groups, never single rows: its time_column sets no filter
    code = (
        "{{ config(materialized='tracked',\n"
        "          meta={'group_key': 'id', 'time_column': 'order_date'}) }}\n"
    )
    h.context["model"] = unit_test({"vulcan_start": "2025-01-02", "vulcan_end": "2025-01-02"}, code)
    sql = "select * from x where d >= @start_ds"
    assert h.call("vulcan_native_sql", sql) == "select * from x where d >= '2025-01-02'"


def test_unit_test_of_a_model_without_time_column_gets_the_tokens_only(h: Harness) -> None:
    h.context["model"] = unit_test(
        {"vulcan_execution_time": "2025-01-05"},
        raw_code="{{ config(materialized='incremental_by_unique_key', unique_key='id') }}",
    )
    sql = "select id from x where d <= @execution_ds"
    assert h.call("vulcan_native_sql", sql) == "select id from x where d <= '2025-01-05'"


def test_bad_unit_test_vars_are_named(h: Harness) -> None:
    h.context["model"] = unit_test({"vulcan_start": "2025-01-02"})
    with pytest.raises(CompilerError) as error:
        h.call("start_ds")
    assert str(error.value) == (
        "Model 'ut': Invalid --vars:\n  - vulcan_end: required when vulcan_start is given"
    )


def test_a_run_and_other_nodes_keep_their_sql(h: Harness) -> None:
    sql = "select @start_ds"
    h.context.update({"flags": flags("run"), "model": {"resource_type": "model", "config": {}}})
    assert h.call("vulcan_native_sql", sql) == sql
    h.context.update({"flags": flags("show"), "model": {"resource_type": "sql_operation"}})
    assert h.call("vulcan_native_sql", sql) == sql
    assert squash(h.call("spark__get_limit_sql", sql, 5)) == "select @start_ds limit 5"


@pytest.mark.parametrize("adapter_type", ["spark", "databricks"])
def test_dbt_dispatch_reaches_the_package_overrides(adapter_type: str) -> None:
    """Under the stock adapters' dispatch orders (databricks falls back to spark), dbt's
    unit-test, empty-subquery and limit macros resolve to the package's spark__ overrides."""
    harness = Harness(adapter_type=adapter_type)
    harness.context.update(
        {
            "execute": True,
            "flags": flags("test"),
            "dbt": _Namespace(harness.context),
            "model": unit_test({"vulcan_start": "2025-01-02", "vulcan_end": "2025-01-02"}),
        }
    )
    adapter = harness.context["adapter"]
    for name in ("get_unit_test_sql", "get_empty_subquery_sql", "get_limit_sql"):
        assert adapter.dispatch(name, "dbt") is harness.context[f"spark__{name}"]
    statement = harness.call("get_empty_subquery_sql", "select @start_ds as d")
    assert "select '2025-01-02' as d" in statement
