"""A column type as Spark describes it, written back as SQL (macros/text/sql_string.sql:
vulcan_type_sql): a struct's field names, which Spark prints bare, in backquotes. Checked
against the Python reference (tests/oracle/engine.py: type_sql) and, as the oracle of both,
sqlglot's Spark type parser: the macro's SQL must parse to the type Spark described."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlglot import exp

from tests.oracle.engine import type_sql
from tests.support.macro_harness import Harness

_H = Harness()


@pytest.mark.parametrize(
    ("described", "sql"),
    [
        ("bigint", "bigint"),
        ("decimal(10,2)", "decimal(10,2)"),
        ("map<string,array<int>>", "map<string,array<int>>"),
        ("interval day to second", "interval day to second"),
        ("struct<>", "struct<>"),
        ("struct<a:int,b:string>", "struct<`a`:int,`b`:string>"),
        (
            "struct<a b:int,c,d:string,x>y:int,q`r:int>",
            "struct<`a b`:int,`c,d`:string,`x>y`:int,`q``r`:int>",
        ),
        (
            "struct<Amount:decimal(10,2),tags:array<string>>",
            "struct<`Amount`:decimal(10,2),`tags`:array<string>>",
        ),
        (
            "array<struct<k:map<string,struct<x:int,y:struct<>>>,n:bigint>>",
            "array<struct<`k`:map<string,struct<`x`:int,`y`:struct<>>>,`n`:bigint>>",
        ),
    ],
)
def test_struct_field_names_are_quoted(described: str, sql: str) -> None:
    assert _H.call("vulcan_type_sql", described) == sql
    assert type_sql(described) == sql


@dataclass(frozen=True)
class T:
    """A Spark type: how Spark describes it and how SQL writes it."""

    described: str
    sql: str


PRIMITIVES = st.sampled_from(
    [
        "int",
        "bigint",
        "string",
        "date",
        "timestamp",
        "timestamp_ntz",
        "boolean",
        "double",
        "decimal(10,2)",
        "decimal(38,0)",
        "binary",
    ]
).map(lambda t: T(t, t))
# Spark's simpleString prints a field's name bare: anything but a colon (where it ends), and
# not starting with `>` (`struct<>` is a struct without fields)
NAMES = st.text(
    alphabet=st.characters(blacklist_characters=":", blacklist_categories=("Cs", "Cc")),
    min_size=1,
    max_size=8,
).filter(lambda name: not name.startswith(">"))


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _compound(children: st.SearchStrategy[T]) -> st.SearchStrategy[T]:
    fields = st.lists(st.tuples(NAMES, children), max_size=4)
    return st.one_of(
        children.map(lambda t: T(f"array<{t.described}>", f"array<{t.sql}>")),
        st.tuples(PRIMITIVES, children).map(
            lambda kv: T(
                f"map<{kv[0].described},{kv[1].described}>", f"map<{kv[0].sql},{kv[1].sql}>"
            )
        ),
        fields.map(
            lambda fs: T(
                "struct<" + ",".join(f"{n}:{t.described}" for n, t in fs) + ">",
                "struct<" + ",".join(f"{_quote(n)}:{t.sql}" for n, t in fs) + ">",
            )
        ),
    )


TYPES = st.recursive(PRIMITIVES, _compound, max_leaves=8)


@settings(max_examples=150, deadline=None)
@given(t=TYPES)
def test_any_described_type_is_written_as_the_sql_of_the_same_type(t: T) -> None:
    written = _H.call("vulcan_type_sql", t.described)
    assert written == type_sql(t.described) == t.sql
    assert exp.DataType.build(written, dialect="spark") == exp.DataType.build(
        t.sql, dialect="spark"
    )
