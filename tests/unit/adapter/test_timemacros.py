from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbt.adapters.vulcan.timemacros import (
    TIME_DATA_TYPES,
    TOKENS,
    filter_literal,
    output_filter,
    render,
    sorts_as_text,
    spark_format,
    to_python_format,
    token_values,
)
from dbt.adapters.vulcan.timeutil import VulcanConfigError

D = datetime
WEEK = token_values(D(2025, 1, 1), D(2025, 1, 8), D(2025, 1, 8, 5))


def test_token_values_for_seven_day_batch() -> None:
    assert WEEK == {
        "start_ds": "'2025-01-01'",
        "end_ds": "'2025-01-07'",
        "start_date": "CAST('2025-01-01' AS DATE)",
        "end_date": "CAST('2025-01-07' AS DATE)",
        "start_dt": "CAST('2025-01-01 00:00:00+00:00' AS TIMESTAMP)",
        "end_dt": "CAST('2025-01-07 23:59:59.999999+00:00' AS TIMESTAMP)",
        "start_timestamp": "CAST('2025-01-01 00:00:00+00:00' AS TIMESTAMP)",
        "end_timestamp": "CAST('2025-01-07 23:59:59.999999+00:00' AS TIMESTAMP)",
        "start_ts": "'2025-01-01 00:00:00'",
        "end_ts": "'2025-01-07 23:59:59.999999'",
        "start_epoch": "1735689600.000000",
        "end_epoch": "1736294399.999999",
        "start_millis": "1735689600000",
        "end_millis": "1736294399999",
        "execution_ds": "'2025-01-08'",
        "execution_date": "CAST('2025-01-08' AS DATE)",
        "execution_dt": "CAST('2025-01-08 05:00:00+00:00' AS TIMESTAMP)",
        "execution_ts": "'2025-01-08 05:00:00'",
        "execution_epoch": "1736312400.000000",
        "execution_millis": "1736312400000",
    }
    assert tuple(WEEK) == TOKENS


def test_token_values_hourly_and_pre_epoch() -> None:
    hour = token_values(D(2025, 1, 8, 5), D(2025, 1, 8, 6), D(2025, 1, 8, 6, 0, 0, 250))
    assert hour["start_ds"] == hour["end_ds"] == "'2025-01-08'"
    assert hour["end_ts"] == "'2025-01-08 05:59:59.999999'"
    assert hour["execution_ts"] == "'2025-01-08 06:00:00.000250'"
    assert hour["execution_epoch"] == "1736316000.000250"
    old = token_values(D(1969, 12, 31), D(1970, 1, 1), D(1970, 1, 1))
    assert old["start_epoch"] == "-86400.000000"
    assert old["end_epoch"] == "-0.000001"
    assert old["start_millis"] == "-86400000"
    assert old["end_millis"] == "-1"


def test_render_replaces_tokens() -> None:
    sql = "SELECT * FROM t WHERE d BETWEEN @start_ds AND @end_ds AND ts < @{end_dt}"
    assert render(sql, WEEK) == (
        "SELECT * FROM t WHERE d BETWEEN '2025-01-01' AND '2025-01-07' AND ts < "
        "CAST('2025-01-07 23:59:59.999999+00:00' AS TIMESTAMP)"
    )


def test_render_whole_tokens_only() -> None:
    assert render("@start_dsx, @start_ds_1, @start_ds)", WEEK) == (
        "@start_dsx, @start_ds_1, '2025-01-01')"
    )
    assert render("@start_date,@start_ds", WEEK) == "CAST('2025-01-01' AS DATE),'2025-01-01'"
    assert render("@{start_ds}x", WEEK) == "'2025-01-01'x"


def test_render_leaves_unknown_tokens() -> None:
    sql = "SELECT @foo, @{bar}, @, @1, @@start, x@ FROM t"
    assert render(sql, WEEK) == sql


def test_render_skips_strings_and_comments() -> None:
    sql = (
        "SELECT 'a@start_ds.com', 'it''s @end_ds', \"@start_ds\", `@start_ds`, "
        "'esc\\' @start_ds' -- @start_ds\n"
        "/* @end_ds\n @start_ds */ @end_ds"
    )
    assert sql.endswith("*/ @end_ds")
    assert render(sql, WEEK) == sql[: -len("@end_ds")] + "'2025-01-07'"
    assert render("-- only @start_ds", WEEK) == "-- only @start_ds"
    assert render("/* open @start_ds", WEEK) == "/* open @start_ds"
    assert render("'open @start_ds", WEEK) == "'open @start_ds"


def test_render_comment_then_token() -> None:
    assert render("-- c\n@start_ds", WEEK) == "-- c\n'2025-01-01'"
    assert render("a-b @start_ds/2", WEEK) == "a-b '2025-01-01'/2"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab @_{}'\"-/*\n`\\")), max_size=40))
def test_render_without_known_tokens_is_identity(sql: str) -> None:
    assert render(sql, WEEK) == sql


# --------------------------------------------------------------- filter literals

POINT = D(2025, 1, 8, 5, 30)


@pytest.mark.parametrize(
    ("data_type", "fmt", "expected"),
    [
        ("date", None, "CAST('2025-01-08' AS DATE)"),
        ("DATE", None, "CAST('2025-01-08' AS DATE)"),
        ("timestamp", None, "CAST('2025-01-08 05:30:00+00:00' AS TIMESTAMP)"),
        ("timestamp_ntz", None, "CAST('2025-01-08 05:30:00' AS TIMESTAMP_NTZ)"),
        ("string", None, "'2025-01-08'"),
        ("string", "%Y%m%d", "'20250108'"),
        ("string", "%Y-%m-%d %H:%M:%S", "'2025-01-08 05:30:00'"),
        ("string", "yyyy-MM-dd", "'2025-01-08'"),
        ("string", "yyyyMMdd", "'20250108'"),
        ("string", "yyyy-MM-dd'T'HH:mm:ss", "'2025-01-08T05:30:00'"),
        ("string", "dd/MM/yy", "'08/01/25'"),
        ("int", None, "1736314200"),
        ("bigint", None, "1736314200"),
        ("epoch", None, "1736314200"),
        ("epoch_millis", None, "1736314200000"),
    ],
)
def test_filter_literal(data_type: str, fmt: str | None, expected: str) -> None:
    assert filter_literal(POINT, data_type, fmt) == expected


def test_filter_literal_unknown_type() -> None:
    with pytest.raises(VulcanConfigError) as info:
        filter_literal(POINT, "varchar")
    assert str(info.value) == (
        "time_data_type: 'varchar' is not one of: " + ", ".join(TIME_DATA_TYPES)
    )


@pytest.mark.parametrize("fmt", ["yyyy-QQ", "yyyy-MM-dd'T", "EEEE"])
def test_bad_format(fmt: str) -> None:
    with pytest.raises(VulcanConfigError, match=r"^format: "):
        filter_literal(POINT, "string", fmt)


def test_to_python_format() -> None:
    assert to_python_format(None) == "%Y-%m-%d"
    assert to_python_format("%d.%m.%Y") == "%d.%m.%Y"
    assert to_python_format("yyyy-MM-dd HH:mm:ss.SSSSSS") == "%Y-%m-%d %H:%M:%S.%f"
    assert to_python_format("yyyy''MM") == "%Y'%m"


# ---------------------------------------------------------------- output filter

START, END = D(2025, 1, 1), D(2025, 1, 8)


def test_output_filter_day_grained() -> None:
    assert output_filter("order_date", START, END, "date") == (
        "order_date >= CAST('2025-01-01' AS DATE) AND order_date < CAST('2025-01-08' AS DATE)"
    )
    assert output_filter("ds", START, END, "string") == "ds >= '2025-01-01' AND ds < '2025-01-08'"
    assert output_filter("ds", START, END, "string", "yyyyMMdd") == (
        "ds >= '20250101' AND ds < '20250108'"
    )
    assert output_filter("d", D(2025, 1, 8, 5), D(2025, 1, 8, 6), "date") == (
        "d >= CAST('2025-01-08' AS DATE) AND d < CAST('2025-01-09' AS DATE)"
    )


def test_output_filter_half_open() -> None:
    assert output_filter("`ts`", START, END, "timestamp") == (
        "`ts` >= CAST('2025-01-01 00:00:00+00:00' AS TIMESTAMP) "
        "AND `ts` < CAST('2025-01-08 00:00:00+00:00' AS TIMESTAMP)"
    )
    assert output_filter("e", START, END, "epoch") == "e >= 1735689600 AND e < 1736294400"
    assert output_filter("e", START, END, "epoch_millis") == (
        "e >= 1735689600000 AND e < 1736294400000"
    )
    assert output_filter("s", START, END, "string", "%Y-%m-%d %H:%M:%S") == (
        "s >= '2025-01-01 00:00:00' AND s < '2025-01-08 00:00:00'"
    )


def test_output_filter_unknown_type() -> None:
    with pytest.raises(VulcanConfigError, match=r"^time_data_type: 'float'"):
        output_filter("x", START, END, "float")


@pytest.mark.parametrize(
    ("fmt", "sorts"),
    [
        ("%Y-%m-%d", True),
        ("yyyyMMddHH", True),
        ("yyyy-MM-dd'T'HH:mm:ss", True),
        ("%Y%j", True),
        ("MM/dd/yyyy", False),
        ("%d.%m.%Y", False),
        ("%y%m%d", False),
        ("%Y-%d-%m", False),
    ],
)
def test_sorts_as_text(fmt: str, sorts: bool) -> None:
    assert sorts_as_text(to_python_format(fmt)) is sorts


def test_a_format_that_does_not_sort_as_text_is_compared_as_parsed_values() -> None:
    """'07/15/2024' <= '01/09/2025' is false as text: a date-only format is matched as the
    range's days, another parsed with its format (zone-free)."""
    assert output_filter("`d`", START, END, "string", "MM/dd/yyyy") == (
        "`d` IN ('01/01/2025', '01/02/2025', '01/03/2025', '01/04/2025', '01/05/2025', "
        "'01/06/2025', '01/07/2025')"
    )
    parsed = "to_timestamp_ntz(`t`, 'dd/MM/yyyy HH''h''')"
    assert output_filter("`t`", START, END, "string", "%d/%m/%Y %Hh") == (
        f"{parsed} >= CAST('2025-01-01 00:00:00' AS TIMESTAMP_NTZ) "
        f"AND {parsed} < CAST('2025-01-08 00:00:00' AS TIMESTAMP_NTZ)"
    )


def test_spark_format_quotes_literal_letters() -> None:
    assert spark_format("%m/%d/%Y") == "MM/dd/yyyy"
    assert spark_format("%Y-%m-%dT%H") == "yyyy-MM-dd'T'HH"
    assert spark_format("%d.%m.%Y %%") == "dd.MM.yyyy %"
