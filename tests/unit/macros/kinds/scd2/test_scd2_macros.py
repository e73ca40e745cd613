"""SCD type 2 in Jinja (macros/kinds/scd2/scd2_sql.sql) against its Python oracle,
tests/oracle/scd2.py: for every config of tests/oracle/test_scd2.py and for random configs
and query columns, the same table columns, the same error message (raised by the column check
the materialization runs) or the same SQL (create, changes, rewrite, merge; compared with
whitespace squashed) and the same detection time.

Known differences, all in the problems of a unique_key *expression* (the oracle parses it with
sqlglot, the macros read it lexically): a message quotes the expression as written where the
oracle quotes sqlglot's rendering (`'COUNT(*)'` for `count(*)`, `'x AS y'` for `x as y`), and the
reason in parentheses of an unparsable expression is the Jinja SQL reader's (the unique-key
kind's, text/sql_lexer.sql, which both kinds share). `KNOWN_DIFFERENCES` pins them."""

from __future__ import annotations

import string
from datetime import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.oracle.config import validate
from tests.oracle.scd2 import Scd2Model, detection_time
from tests.oracle.unique_key import parse_keys
from tests.support.macro_harness import CompilerError, Harness, squash

BY_TIME = "scd_type_2_by_time"
BY_COLUMN = "scd_type_2_by_column"
MENU = [("id", "int"), ("name", "string"), ("price", "double"), ("updated_at", "timestamp")]
AT = "2020-01-02 11:00:00"
SOURCE = "select * from src"
TARGET = "db.menu"
_HARNESS: Harness | None = None


def harness() -> Harness:
    global _HARNESS
    if _HARNESS is None:
        _HARNESS = Harness()
    return _HARNESS.reset()


def columns_arg(query: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"name": n, "dtype": t} for n, t in query]


def python_outcome(
    cfg: Any, query: list[tuple[str, str]], execution_time: str, batch: dict[str, Any]
) -> dict[str, Any]:
    """{'error': message} or the table columns and every statement, from scd2.py."""
    try:
        model = Scd2Model.build(cfg, query)
    except VulcanConfigError as error:
        return {"error": str(error)}
    detected = detection_time(execution_time, batch)
    return {
        "columns": model.table_columns(),
        "create": squash(model.create_sql("select 1 as id")),
        "merge": squash(model.merge_sql(TARGET, "db.menu__vulcan_changes")),
        "changes": squash(model.changes_sql(TARGET, SOURCE, detected)),
        "changes_empty": squash(model.changes_sql(TARGET, SOURCE, detected, True)),
        "rewrite": squash(model.rewrite_sql(TARGET, SOURCE, detected)),
        "rewrite_empty": squash(model.rewrite_sql(TARGET, SOURCE, detected, True)),
    }


def jinja_outcome(
    cfg: Any, query: list[tuple[str, str]], execution_time: str, batch: dict[str, Any]
) -> dict[str, Any]:
    """The same from the macros, the error raised as the materialization raises it."""
    h = harness()
    settings_dict = cfg.as_dict()
    found = h.call("vulcan_scd_type_2_model", settings_dict, columns_arg(query))
    spec = found["spec"]
    table_columns = h.call("vulcan_scd_type_2_table_columns", spec)
    try:
        h.call(
            "vulcan_check_columns",
            settings_dict,
            table_columns,
            False,
            "partitioned_by",
            found["problems"],
        )
    except CompilerError as error:
        return {"error": str(error)}
    assert not found["problems"]

    def sql(statement: str, source: str = SOURCE, empty: bool = False) -> str:
        text = h.call(
            "vulcan_scd_type_2_sql", spec, statement, TARGET, source, execution_time, batch, empty
        )
        return squash(text)

    return {
        "columns": table_columns,
        "create": sql("create", "select 1 as id"),
        "merge": sql("merge", "db.menu__vulcan_changes"),
        "changes": sql("changes"),
        "changes_empty": sql("changes", empty=True),
        "rewrite": sql("rewrite"),
        "rewrite_empty": sql("rewrite", empty=True),
    }


def same(
    kind: str,
    config: dict[str, Any],
    query: list[tuple[str, str]] | None = None,
    execution_time: str = AT,
    batch: dict[str, Any] | None = None,
    model: str = "m",
) -> dict[str, Any]:
    """Both outcomes, required equal; returns the Jinja one."""
    cfg = validate(model, kind, config)
    query = query or MENU
    batch = batch or {"index": 1, "count": 1}
    expected = python_outcome(cfg, query, execution_time, batch)
    got = jinja_outcome(cfg, query, execution_time, batch)
    assert got == expected
    return got


# --- the cases of tests/oracle/test_scd2.py ---------------------------------------------------

CATALOGUE: list[tuple[str, dict[str, Any], list[tuple[str, str]] | None]] = [
    # table columns, valid names and type
    (
        BY_TIME,
        {
            "unique_key": "id",
            "valid_from_name": "vf",
            "valid_to_name": "vt",
            "time_data_type": "timestamp_ntz",
        },
        None,
    ),
    # every problem at once
    (
        BY_COLUMN,
        {
            "unique_key": ["id", "region"],
            "columns": ["name", "colour"],
            "updated_at_name": "changed",
        },
        [*MENU, ("valid_to", "timestamp")],
    ),
    # by time needs its updated_at column; valid names must differ
    (BY_TIME, {"unique_key": "id"}, MENU[:3]),
    (BY_TIME, {"unique_key": "id", "valid_from_name": "x", "valid_to_name": "X"}, None),
    (BY_TIME, {"unique_key": "id", "valid_from_name": "price"}, None),
    # names resolve case-insensitively; '*' skips keys and the change time
    (
        BY_COLUMN,
        {"unique_key": "id", "columns": "*", "updated_at_name": "DS"},
        [("ID", "int"), ("Name", "string"), ("ds", "date")],
    ),
    (BY_COLUMN, {"unique_key": "id", "columns": ["PRICE"]}, None),
    # key expressions kept, plain keys quoted
    (BY_TIME, {"unique_key": ["`id`", "lower(name)"]}, None),
    (BY_TIME, {"unique_key": "concat(ID, name)"}, None),
    (BY_TIME, {"unique_key": ["concat(id, nope)", "missing"]}, None),
    # merge / hard deletes / first load options
    (BY_TIME, {"unique_key": "id", "invalidate_hard_deletes": True}, None),
    (BY_TIME, {"unique_key": "id", "updated_at_as_valid_from": True}, None),
    (BY_COLUMN, {"unique_key": "id", "columns": "*", "execution_time_as_valid_from": True}, None),
    (BY_COLUMN, {"unique_key": "id", "columns": ["name", "price"]}, None),
    (
        BY_COLUMN,
        {
            "unique_key": "id",
            "columns": ["v"],
            "updated_at_name": "ds",
            "invalidate_hard_deletes": True,
        },
        [("id", "int"), ("v", "int"), ("ds", "date")],
    ),
    (BY_TIME, {"unique_key": "id", "time_data_type": "date"}, None),
    (BY_COLUMN, {"unique_key": ["id", "name"], "columns": "*"}, None),
    # a key that is every column: nothing left to watch
    (BY_COLUMN, {"unique_key": ["id", "name", "price", "updated_at"], "columns": "*"}, None),
    # quoted and odd names
    (
        BY_COLUMN,
        {"unique_key": "`we``ird`", "columns": "*"},
        [("we`ird", "int"), ("a b", "string")],
    ),
]


@pytest.mark.parametrize(("kind", "config", "query"), CATALOGUE)
def test_the_catalogue_matches_the_oracle(
    kind: str, config: dict[str, Any], query: list[tuple[str, str]] | None
) -> None:
    same(kind, config, query)


def test_messages_and_columns_are_real() -> None:
    """Spot checks that the comparison above compares something."""
    got = same(BY_TIME, {"unique_key": ["concat(id, nope)", "missing"]})
    assert got["error"] == (
        "Invalid config for model 'm' (scd_type_2_by_time), 2 problem(s):\n"
        "  - unique_key: 'concat(id, nope)' names nope, which is not a column of the model's "
        "query; its columns are: id, name, price, updated_at\n"
        "  - unique_key: 'missing' is not a column of the model's query; its columns are: "
        "id, name, price, updated_at"
    )
    ok = same(BY_TIME, {"unique_key": "id", "valid_from_name": "vf", "time_data_type": "date"})
    assert [c["name"] for c in ok["columns"]] == [
        "id",
        "name",
        "price",
        "updated_at",
        "vf",
        "valid_to",
    ]
    assert ok["columns"][-1]["dtype"] == "date"
    assert "CAST('2020-01-02' AS DATE)" in ok["changes"]
    assert ok["merge"].startswith(
        "MERGE INTO db.menu AS vulcan_target USING db.menu__vulcan_changes"
    )


def test_the_duplicate_key_message_is_escaped() -> None:
    got = same(BY_COLUMN, {"unique_key": ["id", "name"], "columns": "*"}, model="it's")
    assert "raise_error(concat('Model \\'it\\'s\\' (scd_type_2_by_column): '" in got["rewrite"]


@pytest.mark.parametrize(
    ("batch", "expected"),
    [
        ({"index": 1, "count": 1, "end": "2020-01-02", "tracked": False}, datetime(2020, 1, 5)),
        ({"index": 3, "count": 3, "end": "2020-01-04", "tracked": True}, datetime(2020, 1, 5)),
        ({"index": 1, "count": 3, "end": "2020-01-02", "tracked": True}, datetime(2020, 1, 2)),
        ({"index": 1, "count": 3, "end": "2020-01-09", "tracked": True}, datetime(2020, 1, 5)),
        (
            {"index": 2, "count": 3, "end": "2020-01-03 12:30:00.5"},
            datetime(2020, 1, 3, 12, 30, 0, 500000),
        ),
    ],
)
def test_detection_time(batch: dict[str, Any], expected: datetime) -> None:
    assert detection_time("2020-01-05 00:00:00", batch) == expected
    assert (
        harness().call("vulcan_scd_type_2_detection_time", "2020-01-05 00:00:00", batch) == expected
    )


def test_a_batch_of_a_backfill_is_detected_at_its_end() -> None:
    batch = {"index": 1, "count": 3, "end": "2020-01-02 00:00:00", "tracked": True}
    got = same(
        BY_COLUMN,
        {"unique_key": "id", "columns": "*", "invalidate_hard_deletes": True},
        batch=batch,
    )
    assert "CAST('2020-01-02 00:00:00+00:00' AS TIMESTAMP) AS _vulcan_change_time" in got["changes"]


def test_an_unknown_statement_is_refused() -> None:
    h = harness()
    spec = h.call(
        "vulcan_scd_type_2_model",
        validate("m", BY_TIME, {"unique_key": "id"}).as_dict(),
        columns_arg(MENU),
    )["spec"]
    with pytest.raises(CompilerError, match="unknown SCD2 statement 'upsert'"):
        h.call("vulcan_scd_type_2_sql", spec, "upsert", TARGET, SOURCE, AT)


def test_partition_problems_and_scd2_problems_are_reported_together() -> None:
    """The materialization's one check: the partition columns of a new table (against the
    table's columns, valid_from included) and the SCD2 problems in one message."""
    h = harness()
    cfg = validate("m", BY_TIME, {"unique_key": "nope", "partitioned_by": ["region"]}).as_dict()
    found = h.call("vulcan_scd_type_2_model", cfg, columns_arg(MENU))
    table_columns = h.call("vulcan_scd_type_2_table_columns", found["spec"])
    with pytest.raises(CompilerError) as exc:
        h.call(
            "vulcan_check_columns", cfg, table_columns, True, "partitioned_by", found["problems"]
        )
    message = str(exc.value)
    assert message.startswith("Invalid config for model 'm' (scd_type_2_by_time), 2 problem(s):")
    assert "partitioned_by: 'region' is not a column of the model's query" in message
    assert "unique_key: 'nope' is not a column of the model's query" in message
    # partitioning by valid_from is allowed: it is a column of the table
    cfg = validate("m", BY_TIME, {"unique_key": "id", "partitioned_by": ["valid_from"]}).as_dict()
    found = h.call("vulcan_scd_type_2_model", cfg, columns_arg(MENU))
    table_columns = h.call("vulcan_scd_type_2_table_columns", found["spec"])
    h.call("vulcan_check_columns", cfg, table_columns, True, "partitioned_by", found["problems"])


# --- unique_key expressions -----------------------------------------------------------------

EXPRESSIONS = [
    "lower(name)",
    "concat(id, nope)",
    "nope + nope",
    "coalesce(name, 'x')",
    "cast(id as string)",
    "cast(price as decimal(10, 2))",
    "id + interval 1 day",
    "transform(array(id), x -> x + 1)",
    "aggregate(array(id), 0, (acc, x) -> acc + x)",
    "(id, name)",
    "id, name",
    "(id, nope), other",
    "t.id",
    "s.f",
    "1",
    "id from t",
    "id where id > 1",
    "`name` || `nope`",
    "case when price > 1 then name else 'cheap' end",
    "if(price is null, 'none', name)",
    "md5(concat_ws('|', id, name))",
    "name like 'a%'",
    "lower(Name)",
    "upper(`updated_at`)",
]

# expression -> the Jinja message (the oracle quotes sqlglot's rendering or parser detail)
KNOWN_DIFFERENCES = {
    "count(*)": "unique_key: 'count(*)' is not a column or an expression over the model's columns",
    "x as y": "unique_key: 'x as y' is not a column or an expression over the model's columns",
    "lower(t.id)": "unique_key: 'lower(t.id)' names a table; write the column alone (it is "
    "matched as source.<key> = target.<key>)",
    # the reason in parentheses is the Jinja SQL reader's (text/sql_lexer.sql),
    # not sqlglot's
    "lower(": "unique_key: 'lower(' is not a column or SQL expression (expecting ))",
    "now()": "unique_key: 'now()' is not a column or an expression over the model's columns",
}


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_key_expressions_match_the_oracle(expression: str) -> None:
    same(BY_TIME, {"unique_key": ["id", expression]})
    same(BY_COLUMN, {"unique_key": expression, "columns": "*"})


@pytest.mark.parametrize("expression", sorted(KNOWN_DIFFERENCES))
def test_key_expression_known_differences(expression: str) -> None:
    _, oracle_problems = parse_keys([expression])
    found = harness().call("_vulcan_scd2_key_columns", expression)
    assert found["problems"] == [KNOWN_DIFFERENCES[expression]]
    assert len(oracle_problems) == 1 and oracle_problems[0] != KNOWN_DIFFERENCES[expression]
    # the same kind of problem, only the quoted text differs
    ours = KNOWN_DIFFERENCES[expression]
    assert (
        oracle_problems[0].split("'")[-1] == ours.split("'")[-1]
        or oracle_problems[0].split(" (")[0] == ours.split(" (")[0]  # the reason differs
    )


# --- random configs -------------------------------------------------------------------------

POOL = ["id", "name", "price", "updated_at", "ds", "region", "valid_from", "valid_to", "v"]
TYPES = ["int", "bigint", "string", "double", "timestamp", "date", "decimal(10,2)"]
FUNCTIONS = ["lower", "upper", "concat", "coalesce", "md5", "trim"]


def cased(name: str) -> st.SearchStrategy[str]:
    return st.sampled_from([name, name.upper(), name.capitalize()])


@st.composite
def queries(draw: st.DrawFn) -> list[tuple[str, str]]:
    names = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=6, unique=True))
    return [(draw(cased(n)), draw(st.sampled_from(TYPES))) for n in names]


def names_from(query: list[tuple[str, str]]) -> st.SearchStrategy[str]:
    """Mostly the query's columns (in any case), sometimes another name."""
    present = st.sampled_from([n for n, _ in query]).flatmap(cased)
    other = st.sampled_from([*POOL, "nope", "other"]).flatmap(cased)
    return st.one_of(present, present, present, other)


@st.composite
def key_entries(draw: st.DrawFn, query: list[tuple[str, str]]) -> str:
    name = names_from(query)
    form = draw(st.sampled_from(["plain", "plain", "quoted", "call", "concat", "op"]))
    if form == "plain":
        return draw(name)
    if form == "quoted":
        return "`" + draw(name) + "`"
    if form == "call":
        return f"{draw(st.sampled_from(FUNCTIONS))}({draw(name)})"
    if form == "concat":
        return f"concat({draw(name)}, '|', {draw(name)})"
    return f"{draw(name)} || {draw(name)}"


@st.composite
def configs(draw: st.DrawFn, query: list[tuple[str, str]]) -> tuple[str, dict[str, Any]]:
    kind = draw(st.sampled_from([BY_TIME, BY_COLUMN]))
    config: dict[str, Any] = {
        "unique_key": draw(st.lists(key_entries(query), min_size=1, max_size=3)),
    }
    name = names_from(query)
    if kind == BY_TIME or draw(st.booleans()):
        config["updated_at_name"] = draw(name)
    if kind == BY_COLUMN:
        config["columns"] = draw(st.one_of(st.just("*"), st.lists(name, min_size=1, max_size=3)))
        config["execution_time_as_valid_from"] = draw(st.booleans())
    else:
        config["updated_at_as_valid_from"] = draw(st.booleans())
    for key, default in (("valid_from_name", "valid_from"), ("valid_to_name", "valid_to")):
        if draw(st.integers(0, 3)) == 0:
            config[key] = draw(st.sampled_from(["valid_from", "valid_to", "vf", "VT", "ds"]))
        else:
            config[key] = default + "_" + draw(st.sampled_from(["a", "b"]))
    config["invalidate_hard_deletes"] = draw(st.booleans())
    config["time_data_type"] = draw(st.sampled_from(["timestamp", "timestamp_ntz", "date"]))
    return kind, config


@st.composite
def batches(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(1, 3))
    day = draw(st.integers(1, 9))
    return {
        "index": draw(st.integers(1, count)),
        "count": count,
        "end": f"2020-01-0{day} 00:00:00",
        "tracked": draw(st.booleans()),
    }


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    query=queries(),
    batch=batches(),
    micros=st.sampled_from(["", ".000001", ".5"]),
    model=st.text(string.ascii_letters + "'\\ _", min_size=1, max_size=8),
)
def test_random_configs_match_the_oracle(
    data: st.DataObject,
    query: list[tuple[str, str]],
    batch: dict[str, Any],
    micros: str,
    model: str,
) -> None:
    kind, values = data.draw(configs(query))
    try:
        validate(model, kind, values)
    except VulcanConfigError:
        return  # the validator's own cases: tests/unit/macros/config/test_validate_macros.py
    same(kind, values, query, "2020-01-05 06:07:08" + micros, batch, model=model)
