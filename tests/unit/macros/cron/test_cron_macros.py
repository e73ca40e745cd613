"""Cron in Jinja (macros/cron/cron.sql), checked against croniter and tests/oracle/schedule.py.

The Python library is the oracle: `Schedule.last_tick` (croniter's get_prev just after the
execution time), `Schedule.build(cron, None).unit` and `normalize_cron`.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

import pytest
from croniter import croniter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.oracle.schedule import Schedule, normalize_cron
from tests.support.macro_harness import CompilerError, Harness

_HARNESS: Harness | None = None

SUFFIX = (
    "; expected a 5-field cron expression (minute hour day-of-month month day-of-week) "
    "or one of: @hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually"
)
FIELD_NAMES = ("minute", "hour", "day-of-month", "month", "day-of-week")
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
FMT = "%Y-%m-%d %H:%M:%S"


def harness() -> Harness:
    """One harness for the module (loading every macro takes about a second)."""
    global _HARNESS
    if _HARNESS is None:
        _HARNESS = Harness()
    return _HARNESS


def parse(expr: Any) -> dict[str, Any]:
    result: dict[str, Any] = harness().call("vulcan_cron_parse", expr)
    return result


def last_tick(cron: Any, at: Any) -> str:
    return str(harness().call("vulcan_cron_last_tick", cron, at))


def schedule(expr: Any) -> dict[str, Any]:
    """What the config validator reads of a cron (vulcan_cron_schedule): its unit, or the one
    message naming every problem."""
    result: dict[str, Any] = harness().call("vulcan_cron_schedule", expr)
    return result


def unit(expr: Any) -> str:
    got = schedule(expr)
    assert got["error"] is None, got["error"]
    return str(got["unit"])


def errors(expr: Any) -> list[str]:
    error = schedule(expr)["error"]
    return [error] if error else []


def rejection(expr: Any) -> str:
    with pytest.raises(CompilerError) as caught:
        parse(expr)
    return str(caught.value)


def oracle_last(expr: str, at: datetime) -> str:
    """What Schedule.last_tick returns."""
    cron = normalize_cron(expr)
    tick: datetime = croniter(cron, at + timedelta(microseconds=1)).get_prev(datetime)
    return tick.strftime(FMT)


def oracle_unit(expr: str) -> tuple[str | None, str | None]:
    """(unit, None) or (None, the Python error message) from Schedule.build(expr, None)."""
    try:
        return Schedule.build(expr, None).unit.value, None
    except VulcanConfigError as error:
        return None, str(error)


def croniter_sets(expr: str) -> dict[str, Any]:
    """croniter's expansion, in the shape vulcan_cron_parse returns."""
    expanded = croniter.expand(normalize_cron(expr))[0]
    full = [range(60), range(24), range(1, 32), range(1, 13), range(7)]
    sets = [
        sorted(full[i]) if expanded[i] == ["*"] else sorted(int(v) for v in expanded[i])
        for i in range(5)
    ]
    return {
        "minutes": sets[0],
        "hours": sets[1],
        "days": sets[2],
        "months": sets[3],
        "weekdays": sets[4],
        "dom_restricted": expanded[2][0] != "*",
        "dow_restricted": expanded[4][0] != "*",
    }


def assert_like_croniter(expr: str, parsed: dict[str, Any]) -> None:
    assert parsed["normalized"] == normalize_cron(expr)
    assert {k: v for k, v in parsed.items() if k != "normalized"} == croniter_sets(expr)


# ------------------------------------------------------------------------------ syntax


@pytest.mark.parametrize(
    ("alias", "cron", "unit_name"),
    [
        ("@hourly", "0 * * * *", "hour"),
        ("@daily", "0 0 * * *", "day"),
        ("@midnight", "0 0 * * *", "day"),
        ("@weekly", "0 0 * * 0", "week"),
        ("@monthly", "0 0 1 * *", "month"),
        ("@yearly", "0 0 1 1 *", "year"),
        ("@annually", "0 0 1 1 *", "year"),
    ],
)
def test_aliases(alias: str, cron: str, unit_name: str) -> None:
    for spelling in (alias, alias.upper(), f"  {alias.capitalize()} "):
        parsed = parse(spelling)
        assert parsed["normalized"] == cron == normalize_cron(spelling)
        assert_like_croniter(spelling, parsed)
        assert unit(spelling) == unit_name == Schedule.build(spelling, None).unit.value


@pytest.mark.parametrize(
    ("expr", "field", "values"),
    [
        ("7 * * * *", "minutes", [7]),
        ("07 08 * * *", "hours", [8]),
        ("0,30,15 * * * *", "minutes", [0, 15, 30]),
        ("10-13 * * * *", "minutes", [10, 11, 12, 13]),
        ("*/15 * * * *", "minutes", [0, 15, 30, 45]),
        ("10-50/20 * * * *", "minutes", [10, 30, 50]),
        ("5/20 * * * *", "minutes", [5, 25, 45]),
        ("59/15 * * * *", "minutes", [59]),
        ("*/100 * * * *", "minutes", [0]),
        ("0 */8 * * *", "hours", [0, 8, 16]),
        ("0 9-17/4,23 * * *", "hours", [9, 13, 17, 23]),
        ("0 0 1-10/3 * *", "days", [1, 4, 7, 10]),
        ("0 0 * jan-MAR,Dec *", "months", [1, 2, 3, 12]),
        ("0 0 * Feb/4 *", "months", [2, 6, 10]),
        ("0 0 * */5 *", "months", [1, 6, 11]),
        ("0 0 * * Mon-FRI", "weekdays", [1, 2, 3, 4, 5]),
        ("0 0 * * 0", "weekdays", [0]),
        ("0 0 * * 7", "weekdays", [0]),
        ("0 0 * * sun,7", "weekdays", [0]),
        ("0 0 * * 5-7", "weekdays", [0, 5, 6]),
        ("0 0 * * 0-7", "weekdays", [0, 1, 2, 3, 4, 5, 6]),
        ("0 0 * * sun-7", "weekdays", [0, 1, 2, 3, 4, 5, 6]),
        ("0 0 * * 1-7/2", "weekdays", [0, 1, 3, 5]),
        ("0 0 * * 1/2", "weekdays", [1, 3, 5]),
        ("0 0 * * mon-fri/2", "weekdays", [1, 3, 5]),
        ("0 0 * * */3", "weekdays", [0, 3, 6]),
    ],
)
def test_field_syntax(expr: str, field: str, values: list[int]) -> None:
    parsed = parse(expr)
    assert parsed[field] == values
    assert_like_croniter(expr, parsed)


def test_whitespace_is_normalized_like_python() -> None:
    expr = " 0\t0  * *\n MON "
    assert parse(expr)["normalized"] == "0 0 * * MON" == normalize_cron(expr)


@pytest.mark.parametrize(
    ("expr", "dom_restricted", "dow_restricted"),
    [
        ("0 0 * * *", False, False),
        ("0 0 13 * *", True, False),
        ("0 0 * * FRI", False, True),
        ("0 0 13 * FRI", True, True),  # either: the 13th or a Friday
        ("0 0 */2 * 1", True, True),  # a step on * restricts (croniter: no vixie "cron bug")
        ("0 0 */1 * 1", True, True),  # every day of the month OR Monday: every day
        ("0 0 1-31 * 1", True, True),
        ("0 0 1 * */1", True, True),  # the 1st OR any weekday: every day
        ("0 0 1 * 0-6", True, True),
        ("0 0 1-31 * */2", False, True),  # full day-of-month + '*' in day-of-week: AND
        ("0 0 */1 * *", False, False),
        ("0 0 */2 * *", True, False),
        ("0 0 * * */1", False, False),
    ],
)
def test_dom_dow_rule_as_croniter(expr: str, dom_restricted: bool, dow_restricted: bool) -> None:
    parsed = parse(expr)
    assert (parsed["dom_restricted"], parsed["dow_restricted"]) == (dom_restricted, dow_restricted)
    assert_like_croniter(expr, parsed)
    for at in ("2024-09-14 12:00:00", "2024-09-16 00:00:00", "2025-03-02 23:59:59"):
        assert last_tick(expr, at) == oracle_last(expr, datetime.fromisoformat(at))


def test_dom_dow_or_and() -> None:
    # 2024-09-13 is a Friday the 13th; 2024-09-20 a Friday; 2024-10-13 a Sunday
    assert last_tick("0 0 13 * FRI", "2024-09-19 00:00:00") == "2024-09-13 00:00:00"
    assert last_tick("0 0 13 * FRI", "2024-09-21 00:00:00") == "2024-09-20 00:00:00"
    assert last_tick("0 0 13 * FRI", "2024-10-13 05:00:00") == "2024-10-13 00:00:00"
    assert last_tick("0 0 * * FRI", "2024-10-13 05:00:00") == "2024-10-11 00:00:00"
    assert last_tick("0 0 13 * *", "2024-10-12 05:00:00") == "2024-09-13 00:00:00"
    assert last_tick("0 0 */1 * MON", "2024-10-10 05:00:00") == "2024-10-10 00:00:00"
    assert last_tick("0 0 1-31 * */2", "2024-10-09 05:00:00") == "2024-10-08 00:00:00"


# ------------------------------------------------------------------------------ last tick


@pytest.mark.parametrize(
    ("expr", "at", "tick"),
    [
        ("0 0 29 2 *", "2023-06-01 00:00:00", "2020-02-29 00:00:00"),
        ("0 0 29 2 *", "2024-02-29 00:00:00", "2024-02-29 00:00:00"),
        ("0 0 29 2 *", "2024-02-28 23:59:59", "2020-02-29 00:00:00"),
        ("0 0 29 2 *", "2103-01-01 00:00:00", "2096-02-29 00:00:00"),  # 2100 is not leap
        ("0 0 31 * *", "2024-05-15 00:00:00", "2024-03-31 00:00:00"),
        ("0 0 30,31 * *", "2024-03-01 00:00:00", "2024-01-31 00:00:00"),
        ("0 12 28-31 2 *", "2023-03-05 00:00:00", "2023-02-28 12:00:00"),
        ("0 12 28-31 2 *", "2024-03-05 00:00:00", "2024-02-29 12:00:00"),
        ("0 0 1 1 *", "2024-01-01 00:00:00", "2024-01-01 00:00:00"),
        ("0 0 1 1 *", "2023-12-31 23:59:59", "2023-01-01 00:00:00"),
        ("30 12 * * *", "2024-05-05 12:30:00", "2024-05-05 12:30:00"),  # exactly at: fired
        ("30 12 * * *", "2024-05-05 12:30:59", "2024-05-05 12:30:00"),
        ("30 12 * * *", "2024-05-05 12:29:59", "2024-05-04 12:30:00"),
        ("15,45 9,17 * * *", "2024-05-05 17:44:00", "2024-05-05 17:15:00"),
        ("15,45 9,17 * * *", "2024-05-05 17:14:00", "2024-05-05 09:45:00"),
        ("15,45 9,17 * * *", "2024-05-05 09:14:00", "2024-05-04 17:45:00"),
        ("*/5 * * * *", "2024-05-05 00:04:59", "2024-05-05 00:00:00"),
        ("*/5 * * * *", "2024-01-01 00:00:00", "2024-01-01 00:00:00"),
        ("59 23 31 12 *", "2024-12-31 23:58:00", "2023-12-31 23:59:00"),
    ],
)
def test_last_tick(expr: str, at: str, tick: str) -> None:
    assert last_tick(expr, at) == tick == oracle_last(expr, datetime.fromisoformat(at))


def test_last_tick_accepts_datetimes_other_formats_and_a_parsed_cron() -> None:
    parsed = parse("0 6 * * *")
    assert last_tick(parsed, "2024-05-05 06:00:00") == "2024-05-05 06:00:00"
    assert last_tick("0 6 * * *", datetime(2024, 5, 5, 5, 59)) == "2024-05-04 06:00:00"
    assert last_tick("0 6 * * *", "2024-05-05T06:00:00") == "2024-05-05 06:00:00"
    assert last_tick("0 6 * * *", "2024-05-05 06:00:00.000001") == "2024-05-05 06:00:00"
    assert last_tick("0 6 * * *", "2024-05-05") == "2024-05-04 06:00:00"


# ---------------------------------------------------------------------------- interval unit


@pytest.mark.parametrize(
    ("expr", "unit_name"),
    [
        ("*/5 * * * *", "five_minute"),
        ("*/10 * * * *", "five_minute"),
        ("*/15 * * * *", "quarter_hour"),
        ("*/20 * * * *", "quarter_hour"),
        ("0,30 * * * *", "half_hour"),
        ("0 * * * *", "hour"),
        ("0 0,23 * * *", "hour"),
        ("0 */6 * * *", "hour"),
        ("0 0 * * *", "day"),
        ("0 0 * * 1-5", "day"),
        ("0 0 * * 1,4", "day"),
        ("0 0 * * 1", "week"),
        ("0 0 1,15 * *", "week"),
        ("0 0 1 * *", "month"),
        ("0 0 31 * *", "month"),
        ("0 0 1 */2 *", "month"),
        ("0 0 1 */3 *", "quarter"),
        ("0 0 1 1,7 *", "quarter"),
        ("0 0 1 1 *", "year"),
        ("0 0 29 2 *", "year"),
        ("0 0 13 * FRI", "day"),
    ],
)
def test_interval_unit(expr: str, unit_name: str) -> None:
    assert unit(expr) == unit_name == Schedule.build(expr, None).unit.value
    assert errors(expr) == []


@pytest.mark.parametrize("expr", ["* * * * *", "*/4 * * * *", "0,1 0 * * *", "0-3 * * * *"])
def test_firing_more_often_than_five_minutes_is_an_error(expr: str) -> None:
    message = f"cron: {expr!r} fires more often than every 5 minutes (the finest interval unit)"
    assert errors(expr) == [message + SUFFIX]
    assert message + SUFFIX == oracle_unit(expr)[1]


@pytest.mark.parametrize("expr", ["0 0 30 2 *", "0 0 31 4,6,9,11 *", "0 0  30-31 FEB *"])
def test_never_firing_is_an_error(expr: str) -> None:
    message = f"cron: {normalize_cron(expr)!r} never fires" + SUFFIX
    assert rejection(expr) == message == oracle_unit(expr)[1]
    assert errors(expr) == [message]


def test_impossible_day_is_fine_when_the_weekday_can_match() -> None:
    assert last_tick("0 0 30 2 MON", "2024-03-01 00:00:00") == "2024-02-26 00:00:00"
    assert unit("0 0 30 2 MON") == Schedule.build("0 0 30 2 MON", None).unit.value == "week"


# ------------------------------------------------------------------------------ rejections

# (expression, the detail in the message, Python's normalize_cron accepts it: a documented
# unsupported form that croniter reads)
REJECTED = [
    ("", "it is empty", False),
    ("   ", "it is empty", False),
    ("@every", "'@every' is not one of the aliases", False),
    ("@every 5m", "it has 2 fields, not 5", False),
    ("1 2 3", "it has 3 fields, not 5", False),
    ("0 0 0 * * *", "it has 6 fields, not 5", False),
    ("0 0 0 * * * 2024", "it has 7 fields, not 5", False),
    ("0 0 L * *", "day-of-month: 'L' is not supported: no L, W, #, ?, H or R", True),
    ("0 0 15W * *", "day-of-month: '15W' is not supported: no L, W, #, ?, H or R", True),
    ("0 0 LW * *", "day-of-month: 'LW' is not supported: no L, W, #, ?, H or R", False),
    ("0 0 * * 5L", "day-of-week: '5L' is not supported: no L, W, #, ?, H or R", False),
    ("0 0 * * 1#2", "day-of-week: '1#2' is not supported: no L, W, #, ?, H or R", True),
    ("0 0 ? * *", "day-of-month: '?' is not supported: no L, W, #, ?, H or R", True),
    ("H * * * *", "minute: 'H' is not supported: no L, W, #, ?, H or R", False),
    ("R * * * *", "minute: 'R' is not supported: no L, W, #, ?, H or R", True),
    ("60 * * * *", "minute: 60 is out of range 0-59", False),
    ("0 24 * * *", "hour: 24 is out of range 0-23", False),
    ("0 0 0 * *", "day-of-month: 0 is out of range 1-31", False),
    ("0 0 32 * *", "day-of-month: 32 is out of range 1-31", False),
    ("0 0 * 0 *", "month: 0 is out of range 1-12", False),
    ("0 0 * 13 *", "month: 13 is out of range 1-12", False),
    ("0 0 * * 8", "day-of-week: 8 is out of range 0-7", False),
    ("0 0-24 * * *", "hour: 24 is out of range 0-23", False),
    ("0 0 1,,2 * *", "day-of-month: empty item in '1,,2'", False),
    ("0 0 1, * *", "day-of-month: empty item in '1,'", False),
    ("*,5 * * * *", "minute: '*' cannot be part of a list", True),
    (
        "0 22-2 * * *",
        "hour: range '22-2' runs backwards: wrap-around ranges are not supported",
        True,
    ),
    (
        "0 0 * * FRI-MON",
        "day-of-week: range 'FRI-MON' runs backwards: wrap-around ranges are not supported",
        True,
    ),
    (
        "5-5 * * * *",
        "minute: range '5-5' starts and ends at the same value: write it as one value",
        True,
    ),
    (
        "0 0 * jan-JAN *",
        "month: range 'jan-JAN' starts and ends at the same value: write it as one value",
        True,
    ),
    ("0 0 * * 7/2", "day-of-week: '7/2' starts a step at 7: write 0 for Sunday", True),
    ("*/0 * * * *", "minute: step '0' in '*/0' is not a whole number of at least 1", False),
    ("*/x * * * *", "minute: step 'x' in '*/x' is not a whole number of at least 1", False),
    ("0 0 * * monday", "day-of-week: 'monday' is not a number or one of SUN..SAT", False),
    ("0 0 * mon *", "month: 'mon' is not a number or one of JAN..DEC", False),
    ("0 jan * * *", "hour: 'jan' is not a number", False),
    ("1-2-3 * * * *", "minute: '1-2-3' is not a number, name, range or step", False),
    ("1/2/3 * * * *", "minute: '1/2/3' is not a number, name, range or step", False),
    ("-1 * * * *", "minute: '-1' is not a number, name, range or step", False),
    ("/5 * * * *", "minute: '/5' is not a number, name, range or step", False),
    ("*-5 * * * *", "minute: '*' is not a number", False),
    ("\u0663 * * * *", "minute: '\u0663' is not a number", False),
    ("every day at noon", "it has 4 fields, not 5", False),
]


@pytest.mark.parametrize(("expr", "detail", "python_accepts"), REJECTED)
def test_rejected(expr: str, detail: str, python_accepts: bool) -> None:
    message = f"cron: {expr!r} is not a valid cron expression ({detail})" + SUFFIX
    assert rejection(expr) == message
    assert errors(expr) == [message]
    with pytest.raises(CompilerError):
        last_tick(expr, "2024-01-01 00:00:00")
    if python_accepts:  # a form croniter reads that the subset documents as unsupported
        assert normalize_cron(expr)
        assert _documented_unsupported(expr)
    else:
        with pytest.raises(VulcanConfigError):
            normalize_cron(expr)


def test_not_a_string() -> None:
    assert rejection(None) == "cron: None is not a string" + SUFFIX
    assert rejection(5) == "cron: 5 is not a string" + SUFFIX


def test_every_problem_is_named_in_one_message() -> None:
    expr = "0 0 L * 1#2"
    details = [
        "day-of-month: 'L' is not supported: no L, W, #, ?, H or R",
        "day-of-week: '1#2' is not supported: no L, W, #, ?, H or R",
    ]
    prefix = f"cron: {expr!r} is not a valid cron expression ("
    assert rejection(expr) == prefix + ", ".join(details) + ")" + SUFFIX
    assert errors(expr) == [rejection(expr)]


# ------------------------------------------------------------------------------ properties

# (low, high, names, first value the names stand for) per field; day-of-week goes up to 7
SPECS = [(0, 59, (), 0), (0, 23, (), 0), (1, 31, (), 1), (1, 12, MONTHS, 1), (0, 7, DAYS, 0)]


@st.composite
def _value(draw: st.DrawFn, index: int, low: int, high: int) -> str:
    _, _, names, first = SPECS[index]
    value = draw(st.integers(low, high))
    if names and value - first < len(names) and draw(st.booleans()):
        name = names[value - first]
        return draw(st.sampled_from([name, name.upper(), name.capitalize()]))
    return draw(st.sampled_from(["", "0"])) + str(value)


@st.composite
def _item(draw: st.DrawFn, index: int) -> str:
    low, high, _, _ = SPECS[index]
    step = draw(st.integers(1, high - low + 3))
    kind = draw(
        st.sampled_from(["value", "value", "range", "star_step", "range_step", "start_step"])
    )
    if kind == "value":
        return draw(_value(index, low, high))
    if kind == "star_step":
        return f"*/{step}"
    if kind == "start_step":  # a/n runs to the field's maximum (6 for day-of-week)
        return f"{draw(_value(index, low, min(high, 6) if index == 4 else high))}/{step}"
    a = draw(st.integers(low, high - 1))
    b = draw(st.integers(a + 1, high))
    text = f"{draw(_value(index, a, a))}-{draw(_value(index, b, b))}"
    return text if kind == "range" else f"{text}/{step}"


@st.composite
def _field(draw: st.DrawFn, index: int) -> str:
    if draw(st.integers(0, 3)) == 0:
        return "*"
    return ",".join(draw(st.lists(_item(index), min_size=1, max_size=3)))


@st.composite
def crons(draw: st.DrawFn) -> str:
    if draw(st.integers(0, 9)) == 0:
        alias = draw(st.sampled_from(["@hourly", "@daily", "@midnight", "@weekly", "@monthly"]))
        return draw(st.sampled_from([alias, alias.upper()]))
    fields = [draw(_field(i)) for i in range(5)]
    if draw(st.booleans()):  # sparse minutes/hours, so that more crons have an interval unit
        fields[0] = draw(st.sampled_from(["0", "15", "0,30", "*/15", "5-55/10", "*"]))
        fields[1] = draw(st.sampled_from(["0", "*", "*/6", "9-17", "0,12", fields[1]]))
    return draw(st.sampled_from([" ", "  ", "\t"])).join(fields)


execution_times = st.builds(
    lambda at, whole: at.replace(second=0, microsecond=0) if whole else at.replace(microsecond=0),
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2040, 12, 31, 23, 59, 59)),
    st.booleans(),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crons(), execution_times)
def test_property_matches_croniter(expr: str, at: datetime) -> None:
    expected_unit, python_error = oracle_unit(expr)
    if python_error is not None and "never fires" in python_error:
        assert rejection(expr) == python_error
        assert errors(expr) == [python_error]
        return
    parsed = parse(expr)
    assert_like_croniter(expr, parsed)
    assert last_tick(parsed, at.strftime(FMT)) == oracle_last(expr, at)
    if python_error is None:
        assert unit(expr) == expected_unit
        assert errors(expr) == []
    else:
        assert errors(expr) == [python_error]


def _documented_unsupported(expr: str) -> bool:
    """The forms croniter reads but the subset rejects (see the header of cron.sql)."""
    parts = expr.split()
    if len(parts) != 5:
        return False
    for index, field in enumerate(parts):
        items = field.split(",")
        for item in items:
            lowered = item.lower()
            if item == "" or (item == "*" and len(items) > 1):
                return True
            if re.search(r"[#?()]", item) or re.fullmatch(
                r"[lwhr0-9/,-]*[lwhr][lwhr0-9/,-]*", lowered
            ):
                return True
            base = lowered.split("/")[0]
            if index == 4 and base == "7" and "/" in item:
                return True
            ends = base.split("-")
            if len(ends) == 2:
                names = {3: MONTHS, 4: DAYS}.get(index, ())
                offset = 1 if index == 3 else 0
                values = [
                    names.index(end) + offset if end in names else int(end) if end.isdigit() else -1
                    for end in ends
                ]
                if -1 not in values and values[0] >= values[1]:
                    return True
    return False


def _check_rejection_or_agreement(expr: str) -> None:
    try:
        parsed = parse(expr)
        jinja_error = None
    except CompilerError as error:
        jinja_error = str(error)
    try:
        normalize_cron(expr)
        python_accepts = True
    except VulcanConfigError:
        python_accepts = False
    if jinja_error is None:
        assert python_accepts
        assert_like_croniter(expr, parsed)
    elif "never fires" in jinja_error:
        assert python_accepts
        assert jinja_error == oracle_unit(expr)[1]
    else:
        assert jinja_error.startswith(f"cron: {expr!r} is not a valid cron expression (")
        assert jinja_error.endswith(SUFFIX)
        assert not python_accepts or _documented_unsupported(expr)


BAD_TOKENS = {
    "extension": ["L", "l", "LW", "15W", "W15", "5L", "L-2", "1#2", "MON#1", "?", "H", "H/5", "R"],
    "range": ["60", "24", "32", "0", "13", "8", "99", "0-60", "1-32", "8-9", "-1", "1-", "*-5"],
    "list": ["1,", ",1", "1,,2", "*,1", "1,*"],
    "shape": ["5-2", "sat-mon", "dec-jan", "5-5", "sun-sun", "7/2", "1-2-3", "1/2/3", "*/0", "*/"],
    "word": ["x", "monday", "january", "mon", "jan", "@daily", "**", "5.0", "\u0663"],
}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crons(), st.integers(0, 4), st.sampled_from(sorted(BAD_TOKENS)), st.data())
def test_property_one_bad_field_is_rejected(
    expr: str, index: int, kind: str, data: st.DataObject
) -> None:
    fields = parse(expr)["normalized"].split(" ")
    token = data.draw(st.sampled_from(BAD_TOKENS[kind]))
    if data.draw(st.booleans()) and "," not in token:
        token = f"{token},{fields[index]}"
    fields[index] = token
    bad = " ".join(fields)
    try:
        parse(bad)
    except CompilerError:
        pass
    else:  # the few bad tokens that are fine somewhere: a name in its own field, 0, 8...
        assert normalize_cron(bad) == bad
    _check_rejection_or_agreement(bad)


TOKENS = [
    "*", "*/5", "0", "5", "07", "59", "60", "1-5", "5-1", "5-5", "0-7", "sun-7", "7", "7/2",
    "MON", "jan", "Fri-sun", "L", "?", "1#2", "15W", "H", "1,2", "1,", "*,1", "32", "13",
    "24", "1/2/3", "x", "@daily", "@Hourly", "30", "2", "29", "31",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.lists(st.sampled_from(TOKENS), min_size=1, max_size=7).map(" ".join),
        st.text(alphabet="0123456789*/-,#? LWHlwhMONJAN@\t", max_size=24),
    )
)
def test_property_random_text_is_rejected_or_agrees_with_croniter(expr: str) -> None:
    _check_rejection_or_agreement(expr)
