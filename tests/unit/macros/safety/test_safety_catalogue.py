"""The safety analysis in both modes on one catalogue (tests/support/safety_catalogue.py): the
adapter's (dbt/adapters/vulcan/safety.py, sqlglot) and the package's (Jinja on tokens,
macros/safety/analysis.sql, rendered under the `spark` and `databricks` dispatch orders
with an adapter that has none of the vulcan methods) give every case its verdict, and the same
findings in the same places; the package's check raises and warns in the adapter's words.
`test_known_differences` pins where the two readings part (the header of safety/analysis.sql)."""

from __future__ import annotations

import difflib
from typing import Any

import pytest
import sqlglot
from dbt_common.exceptions import CompilationError
from sqlglot import exp

from dbt.adapters.vulcan import safety
from dbt.adapters.vulcan.impl import VulcanAdapter
from tests.oracle.config import validate
from tests.support.macro_harness import CompilerError, Harness, shared_harness, stock_harness
from tests.support.safety_catalogue import CASES, FILTER, Case

TR = "incremental_by_time_range"


def harness() -> Harness:
    return shared_harness("spark")


def jinja_findings(
    sql: str,
    time_column: str,
    overrides: list[str] | None = None,
    unit: str = "day",
    week_start: int = 0,
) -> list[dict[str, Any]]:
    result = harness().call(
        "_vulcan_safety_analyze", sql, time_column, overrides or [], unit, week_start
    )
    assert result["error"] is None, result["error"]
    return list(result["findings"])


def jinja_verdict(sql: str, time_column: str, **kw: Any) -> tuple[set[str], set[str]]:
    found = jinja_findings(sql, time_column, **kw)
    return (
        {f["pattern"] for f in found if f["refused"]},
        {f["pattern"] for f in found if not f["refused"]},
    )


def adapter_verdict(sql: str, time_column: str, **kw: Any) -> tuple[set[str], set[str]]:
    found = safety.analyze(sql, time_column, **kw)
    return {f.pattern for f in found if f.refused}, {f.pattern for f in found if not f.refused}


def _id(case: Case) -> str:
    return case.name


# ------------------------------------------------------------------ the catalogue


def test_the_catalogue_covers_safe_and_unsafe_sql_of_every_pattern() -> None:
    assert len(CASES) >= 30
    assert len({c.name for c in CASES}) == len(CASES)
    assert sum(1 for c in CASES if not c.refused) >= 15
    seen = {p for c in CASES for p in c.refused | c.warned}
    # ts_on_timestamp is read apart, for a TIMESTAMP time column: test_ts_bounds.py
    assert seen == set(safety.OVERRIDABLE) - {safety.TS_ON_TIMESTAMP}


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_the_adapter_gives_the_catalogue_verdict(case: Case) -> None:
    assert adapter_verdict(case.sql, case.time_column) == (set(case.refused), set(case.warned))


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_the_package_gives_the_catalogue_verdict(case: Case) -> None:
    assert jinja_verdict(case.sql, case.time_column) == (set(case.refused), set(case.warned))


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_both_find_the_same_patterns_in_the_same_places(case: Case) -> None:
    adapter = [(f.pattern, f.location) for f in safety.analyze(case.sql, case.time_column)]
    package = [(f["pattern"], f["location"]) for f in jinja_findings(case.sql, case.time_column)]
    assert package == adapter


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_each_refused_pattern_can_be_overridden(case: Case) -> None:
    for name in case.refused:
        assert name not in jinja_verdict(case.sql, case.time_column, overrides=[name])[0]
    everything = list(safety.OVERRIDABLE)
    assert jinja_findings(case.sql, case.time_column, everything) == []


@pytest.mark.parametrize(
    ("unit", "week_start", "refused"),
    [("day", 0, {"window"}), ("week", 0, set()), ("week", 6, {"window"}), ("hour", 0, {"window"})],
)
def test_truncations_follow_the_interval_unit(
    unit: str, week_start: int, refused: set[str]
) -> None:
    # a week nests only in week intervals that start on Monday (as Spark's weeks do)
    sql = (
        "select order_date, rank() over (partition by date_trunc('week', cast(order_date as "
        f"date)) order by amount) as r from orders {FILTER}"
    )
    kw: dict[str, Any] = {"interval_unit": unit, "week_start": week_start}
    assert adapter_verdict(sql, "order_date", **kw) == (refused, set())
    assert jinja_verdict(sql, "order_date", unit=unit, week_start=week_start) == (refused, set())


# ------------------------------------------------------------------ the check, in package mode

WORDED = (
    "SELECT order_date, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY id) AS rn, "
    "RAND() AS r FROM orders LIMIT 10"
)


def cfg(**extra: Any) -> dict[str, Any]:
    base = {"kind": TR, "model": "orders_numbered", "time_column": "order_date"}
    base.update({"interval_unit": "day", "week_start": 0, "safety_overrides": []})
    return {**base, **extra}


class _Recorder:
    def __init__(self) -> None:
        self.warnings: list[str] = []

    def raise_compiler_error(self, message: str) -> None:
        raise CompilerError(message)

    def warn(self, message: str) -> None:
        self.warnings.append(message)


def check(adapter_type: str, sql: str, **extra: Any) -> list[str]:
    h = stock_harness(adapter_type, sql)
    recorder = _Recorder()
    h.context["exceptions"] = recorder
    h.call("vulcan_check_safety", cfg(**extra), sql)
    assert h.statements == []
    return recorder.warnings


def _adapter_check(sql: str, **config: Any) -> list[str]:
    settings = validate(
        "orders_numbered", TR, {"time_column": "order_date", "start": "2025-01-01", **config}
    ).as_dict()
    return VulcanAdapter.__new__(VulcanAdapter).vulcan_check_safety(settings, sql)


@pytest.mark.parametrize("adapter_type", ["spark", "databricks"])
def test_the_package_refuses_in_the_adapters_words(adapter_type: str) -> None:
    # written as sqlglot renders it, so even the quoted fragments are the same
    with pytest.raises(CompilerError) as package:
        check(adapter_type, WORDED)
    with pytest.raises(CompilationError) as adapter:
        _adapter_check(WORDED)
    assert str(package.value) == adapter.value.msg
    assert str(package.value).startswith(
        "Model 'orders_numbered': the incremental safety analysis refused the model SQL;"
    )
    assert "  - [window] ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY id) in the " in (
        str(package.value)
    )
    assert "(here: ['limit', 'nondeterministic', 'window'])." in str(package.value)


@pytest.mark.parametrize("adapter_type", ["spark", "databricks"])
def test_the_package_warns_in_the_adapters_words(adapter_type: str) -> None:
    sql = "SELECT order_date, id FROM orders"
    assert check(adapter_type, sql) == _adapter_check(sql)
    assert check(adapter_type, sql)[0].startswith(
        "Model 'orders_numbered': safety analysis [no_time_filter]: the SQL uses none of"
    )
    assert check(adapter_type, f"SELECT order_date, id FROM orders {FILTER}") == []


def test_overrides_allow_the_refused_patterns() -> None:
    overrides = ["limit", "NONDETERMINISTIC ", "window"]
    assert check("spark", WORDED, safety_overrides=overrides) == _adapter_check(
        WORDED, safety_overrides=overrides
    )
    assert check("spark", WORDED, safety_overrides=[*overrides, "no_time_filter"]) == []
    with pytest.raises(CompilerError, match=r"\[window\]"):
        check("spark", WORDED, safety_overrides=["limit", "nondeterministic"])


def test_an_unknown_override_is_the_adapters_config_error() -> None:
    overrides = ["windows", "bogus"]
    with pytest.raises(CompilerError) as package:
        check("spark", WORDED, safety_overrides=overrides)
    with pytest.raises(CompilationError) as adapter:
        _adapter_check(WORDED, safety_overrides=overrides)
    assert str(package.value) == adapter.value.msg
    assert "'bogus', 'windows' (did you mean 'window'?) not a safety pattern" in adapter.value.msg


def test_python_models_and_models_without_time_column_are_not_read() -> None:
    h = stock_harness("spark", WORDED)
    h.context["model"] = {**h.context["model"], "language": "python"}
    h.call("vulcan_check_safety", cfg(), WORDED)
    check("spark", WORDED, time_column=None)


def test_the_function_lists_are_the_adapters() -> None:
    lists = harness().call("_vulcan_safety_functions")
    assert set(lists["random"]) == safety._RANDOM_FUNCS
    assert set(lists["clock"]) == safety._CLOCK_FUNCS
    assert set(lists["layout"]) == safety._LAYOUT_FUNCS
    assert set(lists["bare_clock"]) <= safety._CLOCK_FUNCS
    # every aggregate is one to sqlglot, but Spark's it does not know (see test_known_differences)
    unknown = {"mean", "std", "every", "some", "any", "try_sum", "try_avg", "histogram_numeric"}
    unknown |= {"hll_sketch_agg", "hll_union_agg", "count_min_sketch"}
    for name in set(lists["aggregate"]) - unknown:
        two = ("corr", "covar", "regr", "max_by", "min_by", "nth_value")
        args = "x, y" if name.startswith(two) else "x"
        parsed = sqlglot.parse_one(f"select {name}({args}) from t", read="spark")
        assert isinstance(parsed.selects[0], exp.AggFunc), name


# ------------------------------------------------------------------ where the readings part


def test_known_differences() -> None:
    def both(sql: str) -> tuple[tuple[set[str], set[str]], tuple[set[str], set[str]]]:
        return adapter_verdict(sql, "order_date"), jinja_verdict(sql, "order_date")

    refused: tuple[set[str], set[str]] = ({"group_by"}, set())
    admitted: tuple[set[str], set[str]] = (set(), set())
    # an expression is compared as written: backquotes do not matter here, they do to sqlglot
    # (whose refusal is wrong: the key is the time column's expression)
    sql = (
        "select date_trunc('week', `order_ts`) as order_date, count(*) as n from orders "
        "where order_ts between @start_dt and @end_dt group by date_trunc('week', order_ts)"
    )
    assert both(sql) == (refused, admitted)
    # ... and two spellings of one expression are two expressions here (DATE(x) is CAST(x AS
    # DATE) to sqlglot): the package refuses what the adapter admits
    sql = (
        "select cast(a + b as date) as order_date, count(*) as n from t "
        "where a between @start_ds and @end_ds group by date(a + b)"
    )
    assert both(sql) == (admitted, refused)
    # a UNION branch in parentheses takes no time column from the first branch's position
    sql = (
        "(select cast(ts as date) as order_date, count(*) as n from web "
        "where ts between @start_dt and @end_dt group by cast(ts as date)) union all "
        "(select event_day, count(*) from shop "
        "where event_day between @start_ds and @end_ds group by event_day)"
    )
    assert both(sql) == (admitted, refused)
    # aggregates sqlglot does not know are aggregates here
    sql = (
        f"select order_date, amount from orders {FILTER} "
        f"and amount > (select try_avg(amount) from orders {FILTER})"
    )
    assert both(sql) == (admitted, refused)
    # a bare column named like a random function is a column here
    sql = f"select order_date, random from orders {FILTER}"
    assert both(sql) == (({"nondeterministic"}, set()), admitted)
    # GROUP BY with an aligned plain key and GROUPING SETS: every set gets the key
    sql = (
        "select order_date, customer_id, sum(amount) as total from orders "
        f"{FILTER} group by order_date, grouping sets ((customer_id), ())"
    )
    assert both(sql) == (refused, admitted)
    # what the token reader cannot read is skipped with a warning
    sql = f"select order_date from ${{schema}}.orders {FILTER}"
    assert both(sql) == (admitted, (set(), {"unparseable"}))
    # the hint of an unknown override: the validator's edit distance, not difflib's
    assert difflib.get_close_matches("grp_by", safety.OVERRIDABLE, n=1) == ["group_by"]
    result = harness().call("_vulcan_safety_analyze", "select 1", "d", ["grp_by"])
    assert result["error"] == (
        "safety_overrides: 'grp_by' not a safety pattern; allowed: limit, nondeterministic, "
        "window, distinct, group_by, having, no_time_filter, ts_on_timestamp"
    )


def test_strings_comments_and_quoted_names_are_never_sql() -> None:
    sql = (
        "select order_date, 'limit 1' as a, \"rand()\" as b, `group` as c, `over` /* limit 2 "
        f"over () */ from orders {FILTER} -- select distinct x limit 3"
    )
    assert jinja_findings(sql, "order_date") == []


def test_unreadable_sql_is_a_warning_not_a_refusal() -> None:
    for sql, reason in [
        (f"select order_date from orders {FILTER} and (a = 1", "expecting ')'"),
        (f"select order_date from orders {FILTER} and a = 1)", "unexpected ')'"),
        (f"select order_date, 'open from orders {FILTER}", "cannot read"),
        (f"delete from orders {FILTER}", "not a query: delete from orders"),
    ]:
        found = jinja_findings(sql, "order_date")
        assert not [f for f in found if f["refused"]]
        [finding] = [f for f in found if f["pattern"] == "unparseable"]
        assert finding["message"].startswith(
            "the SQL could not be parsed for the safety analysis, which was skipped: "
        )
        assert reason in finding["message"], finding["message"]
