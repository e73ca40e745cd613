"""incremental_by_unique_key in Jinja (macros/kinds/unique_key/, engine/describe.sql) against
its Python oracle, tests/oracle/unique_key.py: the same keys (as written and qualified), the
same clauses, merge filter and SQL (MERGE, checked batch, parquet stage / overwrite / emptied
partitions, ALTER TABLE DROP PARTITION), the same column problems, or the same error message,
on every case of tests/oracle/test_unique_key.py and on random keys and clauses. Rendered with
the `spark` dispatch order and an adapter without the vulcan methods (package mode).

Known differences (the Jinja reader is not sqlglot; see the header of
macros/text/sql_lexer.sql):
- the reason in parentheses after "is not a column or SQL expression", "is not a SQL predicate"
  and "cannot parse ... as WHEN MATCHED ..." is the reader's own (`same` drops it);
- messages quote keys and clauses as written; sqlglot quotes its rendering (function names
  upper-cased, `a b` as `a AS b`, DATE'x' as CAST('x' AS DATE), `by source` upper-cased,
  `then delete` lower-cased);
- texts sqlglot reads leniently and Spark would refuse at run time are refused up front:
  `merge_filter: a, b`, `UPDATE SET a = 1 where x`, `WHEN MATCHED AND THEN ...`;
- a key column named like a type (`date`, `timestamp`) is qualified (`target.date`); the
  oracle leaves it bare (sqlglot reads it as a type keyword), which makes `date = date`;
- a comment in a key is left out of its SQL; the oracle keeps it (`a -- c` comments out the
  rest of its ON clause).
`test_known_differences` pins each of them."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tests.oracle.test_unique_key as unit_cases
from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.oracle import engine
from tests.oracle.config import validate
from tests.oracle.unique_key import TableLayout, UpsertSpec, drop_partitions_sql
from tests.support.macro_harness import (
    CompilerError,
    FakeResult,
    Harness,
    relation,
    shared_harness,
    squash,
)

KIND = "incremental_by_unique_key"
VALUES = {"start_ds": "'2025-01-01'", "end_date": "DATE'2025-01-07'"}


def harness() -> Harness:
    return shared_harness("spark")


# the parser's reason in parentheses (sqlglot's or the Jinja reader's)
_REASON = re.compile(
    r"( is not a column or SQL expression| is not a SQL predicate|"
    r" as WHEN MATCHED \[AND <condition>\] THEN UPDATE SET <column> = <expr>, \.\.\. \| DELETE)"
    r" \(.*$",
    re.M,
)


def _reasonless(text: str) -> str:
    return _REASON.sub(r"\1", text)


def config(**values: Any) -> dict[str, Any]:
    return {"unique_key": "id", **values}


def python_spec(
    cfg: dict[str, Any], values: dict[str, str] | None = None, predicates: list[str] | None = None
) -> UpsertSpec | str:
    try:
        return UpsertSpec.build(validate("m", KIND, cfg), values, predicates or [])
    except VulcanConfigError as error:
        return str(error)


def jinja_spec(
    cfg: dict[str, Any], values: dict[str, str] | None = None, predicates: list[str] | None = None
) -> dict[str, Any] | str:
    settings_ = validate("m", KIND, cfg).as_dict()
    try:
        spec = harness().call("vulcan_unique_key_spec", settings_, values or {}, predicates or [])
    except CompilerError as error:
        return str(error)
    assert isinstance(spec, dict)
    return spec


def _python_view(spec: UpsertSpec) -> dict[str, Any]:
    return {
        "keys": [spec.key_sql(alias) for alias in (None, "target", "source", "__vulcan_row")],
        "clauses": [
            (c.condition, c.delete, c.star, [list(a) for a in c.assignments]) for c in spec.clauses
        ],
        "when_matched": spec.when_matched,
        "merge_filter": spec.merge_filter,
        "filters": [list(f) for f in spec.filters],
    }


def _jinja_view(spec: dict[str, Any]) -> dict[str, Any]:
    h = harness()
    return {
        "keys": [
            h.call("_vulcan_uk_keys_sql", spec, a)
            for a in (None, "target", "source", "__vulcan_row")
        ],
        "clauses": [
            (c["condition"], c["delete"], c["star"], [list(a) for a in c["assignments"]])
            for c in spec["clauses"]
        ],
        "when_matched": spec["when_matched"],
        "merge_filter": spec["merge_filter"],
        "filters": [list(f) for f in spec["filters"]],
    }


def same(
    cfg: dict[str, Any],
    values: dict[str, str] | None = None,
    predicates: list[str] | None = None,
    exact: bool = True,
) -> Any:
    """The Jinja spec equals the oracle's (or both fail with the same message; `exact`: the
    parser's reason in parentheses too)."""
    expected = python_spec(cfg, values, predicates)
    got = jinja_spec(cfg, values, predicates)
    if isinstance(expected, str) or isinstance(got, str):
        assert isinstance(got, str), f"Jinja accepted what the oracle refuses: {expected}"
        assert isinstance(expected, str), f"Jinja refused what the oracle accepts: {got}"
        if exact:
            assert got == expected
        else:
            assert _reasonless(got) == _reasonless(expected)
        return expected
    assert _jinja_view(got) == _python_view(expected)
    # the SQL of both formats
    h = harness()
    source_sql = "select * from src"
    assert squash(h.call("vulcan_unique_key_merge_sql", got, "s.t", source_sql)) == squash(
        expected.merge_statement("s.t", source_sql)
    )
    compare = ["id", "Name", "amount"]
    for whole in (False, True):
        rendered = h.call("vulcan_unique_key_merge_sql", got, "s.t", source_sql, compare, whole)
        assert squash(rendered) == squash(
            expected.merge_statement("s.t", source_sql, compare, whole)
        )
    for rows, with_compare in itertools.product((DESCRIBE, PARTITIONED), (False, True)):
        layout = h.call("vulcan_table_layout", rows)
        compared = layout["columns"] if with_compare else None
        args = (got, "s.t", "s.st", source_sql, layout, compared)
        try:
            oracle = expected.parquet(
                "s.t", "s.st", source_sql, TableLayout.from_describe(rows), compared or ()
            )
        except VulcanConfigError as error:
            with pytest.raises(CompilerError) as info:
                h.call("vulcan_unique_key_parquet_sql", *args)
            assert str(info.value) == str(error)
            continue
        parquet = h.call("vulcan_unique_key_parquet_sql", *args)
        assert squash(parquet["stage_select"]) == squash(oracle.stage_select)
        assert parquet["overwrite"] == oracle.overwrite
        assert parquet["emptied_partitions"] == oracle.emptied_partitions
        assert parquet["changed"] == oracle.changed
        assert (oracle.changed is not None) == (with_compare and not expected.when_matched)
    return expected


DESCRIBE = unit_cases.DESCRIBE
PARTITIONED = unit_cases.PARTITIONED


# ----------------------------------------------- the cases of tests/oracle/test_unique_key.py


def _parametrized(test: Any) -> list[Any]:
    return list(next(m for m in test.pytestmark if m.name == "parametrize").args[1])


KEYS = [row[0] for row in _parametrized(unit_cases.test_keys_are_qualified_as_written)] + [
    "order_id,product_id",
    "a,,b",
    "id,",
    "NOT a",
    "`a b`",
    "`a``b`",
    "a[0]",
    "s.f.g",
    "interval 1 day + d",
    "extract(day from d)",
    "case when a then b end",
    "case a when 1 then b else c end",
    "a between 1 and 2",
    "if(a, b, c)",
    "a::int",
    "cast(a as decimal(10, 2))",
    "day",
    "transform(tags, (x, i) -> x + i)",
    "1",
    "'x'",
    "id from t",
    "*",
    "payload.id",
    "x.y.z",
    "coalesce(email, '') || name",
    "a is not null",
    "a not in (1, 2)",
    "-a",
    "count(distinct a)",
    "(a, b), c",  # a tuple among other parts: no one split into key parts
    "c, (a, b)",
    "(a, b)",
]
BAD_KEYS = ["count(", "a +", "(a, b", "a = = b", "select", "from", "a and", "a)", "'open", "f(a,"]


@pytest.mark.parametrize("unique_key", KEYS)
def test_keys(unique_key: Any) -> None:
    same(config(unique_key=unique_key))


@pytest.mark.parametrize("unique_key", BAD_KEYS)
def test_bad_keys(unique_key: str) -> None:
    assert isinstance(same(config(unique_key=unique_key), exact=False), str)


def test_bad_keys_are_all_reported() -> None:
    text = same(config(unique_key=["1", "source.id", "id from t", "count("]), exact=False)
    assert "4 problem(s)" in text


def test_composite_keys_with_expressions() -> None:
    same(config(unique_key=["a", "COALESCE(b, '')"], merge_filter=unit_cases.SPEC_FILTER))
    same(config(unique_key=["order_id", "lower(trim(`E mail`))", "d"]))


WHEN_MATCHED = [row[0] for row in _parametrized(unit_cases.test_bad_when_matched)] + [
    unit_cases.SPEC_CLAUSES,
    [
        "WHEN MATCHED AND source.op = 'D' THEN DELETE\n"
        "when matched and source.ts > target.ts then update set *",
        "WHEN MATCHED THEN UPDATE SET target.d = dateadd(day, 1, source.d), "
        "`n` = CASE WHEN source.n > 1 THEN source.n ELSE target.n END",
    ],
    "WHEN MATCHED THEN INSERT *",
    "WHEN MATCHED THEN UPDATE SET a",
    "WHEN MATCHED THEN UPDATE SET a = 1, b",
    "WHEN MATCHED THEN UPDATE SET a.b.c = 1",
    "WHEN MATCHED THEN UPDATE SET a + 1 = 2",
    "when matched and x then update set * ",
    "WHEN MATCHED THEN UPDATE SET *, a = 1",
    "WHEN MATCHED THEN DELETE WHEN MATCHED THEN DELETE",
    "WHEN MATCHED THEN UPDATE SET target.`price` = 1",
    "WHEN MATCHED AND lower(x) = 'a' THEN UPDATE SET price = coalesce(source.price, 1)",
    "WHEN MATCHED AND source.d <= @end_date THEN UPDATE SET *",
    "WHEN MATCHED THEN UPDATE SET target.colour = source.colour",
    "WHEN MATCHED AND source.price < 0 THEN DELETE WHEN MATCHED THEN UPDATE SET *",
    "WHEN MATCHED",
    "WHEN MATCHED THEN UPDATE SET price = 1 garbage",
    "WHEN MATCHED AND (a THEN DELETE",
]


@pytest.mark.parametrize("when_matched", WHEN_MATCHED)
def test_when_matched(when_matched: Any) -> None:
    same(config(unique_key="product_id", when_matched=when_matched), VALUES, exact=False)


@pytest.mark.parametrize(
    "merge_filter",
    [
        "a =",
        unit_cases.SPEC_FILTER,
        "target.d >= @start_ds",
        "a b",
        "x in (1, 2) and y not like 'a%' and z is not distinct from 1",
        "target.d between @start_ds and @end_date or source.op is null",
        "cast(target.a as array<int>) is not null",
        "target.x < 1 and cast(source.y as array<int",
        "(a",
    ],
)
def test_merge_filter(merge_filter: str) -> None:
    same(config(merge_filter=merge_filter), VALUES, exact=False)


def test_time_tokens_and_incremental_predicates() -> None:
    same(
        config(merge_filter="source.x = 1"),
        VALUES,
        ["DBT_INTERNAL_DEST.d >= @start_ds", "dbt_internal_source.y = 'DBT_INTERNAL_DEST'"],
    )
    same(config(), VALUES, ["DBT_INTERNAL_DEST.d > 0"])
    same(config(), VALUES, ["  "])
    # tokens stay as written until a batch renders them (the up-front check)
    spec = jinja_spec(config(merge_filter="target.d >= @start_ds"))
    assert isinstance(spec, dict) and spec["merge_filter"] == "target.d >= @start_ds"


def test_the_exact_statements_of_test_merge() -> None:
    spec = jinja_spec(
        config(
            unique_key="product_id",
            when_matched=unit_cases.SPEC_CLAUSES,
            merge_filter=unit_cases.SPEC_FILTER,
        )
    )
    sql = harness().call("vulcan_unique_key_merge_sql", spec, "s.t", "select * from src")
    assert squash(sql) == unit_cases.MERGE
    checked = harness().call("vulcan_unique_key_checked_source", spec, "select * from src")
    assert squash(checked) == unit_cases.CHECKED


# ------------------------------------------------------------------ layout, partitions


@pytest.mark.parametrize(
    "rows",
    [
        DESCRIBE,
        PARTITIONED,
        [r for r in PARTITIONED if r[0] != "Storage Properties"],
        [*PARTITIONED[:-1], ("Storage Properties", "[ partitionOverwriteMode = DYNAMIC ]", "")],
        [("a", "int", None), ("", "", ""), ("# Partition Information", "", "")],
        [],
    ],
)
def test_layout_from_describe(rows: list[tuple[Any, ...]]) -> None:
    layout = TableLayout.from_describe(rows)
    got = harness().call("vulcan_table_layout", rows)
    assert got["columns"] == layout.columns
    assert got["types"] == layout.types
    assert got["partition_cols"] == layout.partition_cols
    assert got["dynamic_overwrite"] == layout.dynamic_overwrite
    assert got["scoped"] == layout.scoped


@pytest.mark.parametrize(
    "rows",
    [
        [('{"region": "it\'s"}',), ('{"day": "2025-01-01"}',)],
        [('{"region": "a\\\\b", "day": null}',)],
        [],
    ],
)
def test_drop_partitions(rows: list[tuple[str]]) -> None:
    expected = drop_partitions_sql("s.t", ["region", "day"], rows)
    got = harness().call("vulcan_drop_partitions_sql", "s.t", ["region", "day"], rows)
    assert got == expected


# --------------------------------------------------------------------- column problems

COLUMNS = unit_cases.COLUMNS


def same_columns(
    target: list[str] | None = COLUMNS, predicates: list[str] | None = None, **cfg: Any
) -> list[str]:
    expected = python_spec(config(**cfg), VALUES, predicates)
    assert isinstance(expected, UpsertSpec)
    spec = jinja_spec(config(**cfg), VALUES, predicates)
    got = harness().call("vulcan_unique_key_column_problems", spec, COLUMNS, target)
    assert got == expected.column_problems(COLUMNS, target)
    return list(got)


@pytest.mark.parametrize(
    "cfg",
    [
        {"unique_key": "nope"},
        {"unique_key": ["ID", "concat(region, nope)"]},
        {"unique_key": ["`nope`", "coalesce(`id`, zz)"]},
        {"merge_filter": "target.zzz > 0"},
        {"merge_filter": "source.zzz > 0"},
        {"merge_filter": "zzz > 0"},
        {"merge_filter": "t.region = 'eu'"},
        {"merge_filter": "name.first = 'x' and target.name.first = 'y' and a.b.c = 1"},
        {"merge_filter": "target.d >= @start_ds and source.updated_at <= @end_date"},
        {"merge_filter": "cast(source.name as struct<a: int, b: map<string, int>>).a = zz"},
        {"merge_filter": "cast(target.id as array<int>) is not null and source.id::int > nope"},
        {
            "merge_filter": "target.updated_at < source.updated_at and region = 'eu' and "
            "updated_at < current_date and transform(array(id), x -> x + 1)[0] > 0 and "
            "Source.NAME is not null"
        },
        {
            "when_matched": "WHEN MATCHED AND source.id > 0 THEN UPDATE SET name = source.name, "
            "region = 'x'"
        },
        {
            "when_matched": "WHEN MATCHED AND source.nope > 1 THEN UPDATE SET name = source.bad, "
            "zz = 1 WHEN MATCHED THEN DELETE"
        },
        {"when_matched": "WHEN MATCHED THEN UPDATE SET target.`NAME` = upper(nope)"},
    ],
)
def test_column_problems(cfg: dict[str, Any]) -> None:
    same_columns(**cfg)
    same_columns(None, **cfg)


def test_incremental_predicates_are_named_as_such() -> None:
    assert same_columns(predicates=["DBT_INTERNAL_DEST.nope > 0"]) == [
        "incremental_predicates: 'target.nope > 0' names target.nope, which is not a column "
        f"of the table (target); {unit_cases.LISTED}"
    ]


def test_one_error_with_the_partition_problems() -> None:
    """The materialization's check (vulcan_check_columns with the key's problems) raises the
    message engine.check raises."""
    cfg = config(unique_key="nope", merge_filter="zzz > 0", partitioned_by=["nowhere"])
    model_cfg = validate("m", KIND, cfg)
    columns = [("id", "bigint"), ("name", "string")]
    with pytest.raises(VulcanConfigError) as expected:
        engine.check(model_cfg, columns, True, UpsertSpec.build(model_cfg))
    h = harness()
    spec = jinja_spec(cfg)
    problems = h.call("vulcan_unique_key_column_problems", spec, ["id", "name"], ["id", "name"])
    with pytest.raises(CompilerError) as got:
        h.call(
            "vulcan_check_columns",
            model_cfg.as_dict(),
            [{"name": n, "dtype": t} for n, t in columns],
            True,
            "partitioned_by",
            problems,
        )
    assert str(got.value) == str(expected.value)


def test_the_materialization_check_renders_the_first_interval() -> None:
    cfg = config(merge_filter="target.nope >= @start_ds", partitioned_by=["name"])
    model_cfg = validate("m", KIND, cfg)
    columns = [("id", "bigint"), ("name", "string")]
    plan = {"first_interval": ["2025-01-01 00:00:00", "2025-01-02 00:00:00"]}
    plan["execution_time"] = "2025-01-03 00:00:00"
    tokens = harness().call("vulcan_time_tokens", *plan["first_interval"], plan["execution_time"])
    with pytest.raises(VulcanConfigError) as expected:
        engine.check(model_cfg, columns, False, UpsertSpec.build(model_cfg, tokens))
    h = harness()
    saved = h.context["model"]
    h.context["model"] = {"name": "m", "config": cfg}
    try:
        with pytest.raises(CompilerError) as got:
            h.call(
                "_vulcan_unique_key_check_columns",
                model_cfg.as_dict(),
                plan,
                [{"name": n, "dtype": t} for n, t in columns],
                False,
            )
    finally:
        h.context["model"] = saved
    assert str(got.value) == str(expected.value)
    # the tokens were rendered with the first interval's values
    assert "merge_filter: \"target.nope >= '2025-01-01'\" names target.nope" in str(got.value)


# ------------------------------------------- an existing table keeping columns of its own

# the table was built before the query added `region`
TABLE = [("id", "bigint"), ("name", "string"), ("updated_at", "timestamp")]
QUERY = [("id", "bigint"), ("name", "string"), ("region", "string"), ("updated_at", "timestamp")]
TABLE_LISTED = "its columns are: id, name, updated_at"


def _column_dicts(columns: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"name": n, "dtype": t} for n, t in columns]


@pytest.mark.parametrize(
    ("cfg", "predicates", "named"),
    [
        ({"merge_filter": "source.id > 0 and region = 'eu'"}, [], False),
        ({"merge_filter": "source.updated_at < current_date"}, [], False),
        ({"unique_key": "nope"}, [], False),
        ({"when_matched": "WHEN MATCHED AND source.id > 0 THEN DELETE"}, [], False),
        ({"when_matched": "WHEN MATCHED THEN UPDATE SET *"}, [], False),
        ({"merge_filter": "target.id > 0"}, [], True),
        ({"merge_filter": "zzz > 0"}, [], True),
        ({"merge_filter": "t.region = 'eu'"}, [], True),
        ({}, ["DBT_INTERNAL_DEST.id > 0"], True),
        ({"when_matched": "WHEN MATCHED AND target.id > 0 THEN DELETE"}, [], True),
        ({"when_matched": "WHEN MATCHED THEN UPDATE SET name = source.name"}, [], True),
        ({"when_matched": "WHEN MATCHED THEN UPDATE SET name = upper(target.name)"}, [], True),
    ],
)
def test_whether_the_table_columns_matter(
    cfg: dict[str, Any], predicates: list[str], named: bool
) -> None:
    expected = python_spec(config(**cfg), VALUES, predicates)
    assert isinstance(expected, UpsertSpec)
    spec = jinja_spec(config(**cfg), VALUES, predicates)
    assert harness().call("_vulcan_uk_names_table", spec, COLUMNS) is named
    assert expected.names_table(COLUMNS) is named


@pytest.mark.parametrize("additive", ["allow", "warn", "error", "ignore"])
@pytest.mark.parametrize("destructive", ["allow", "warn", "error", "ignore"])
@pytest.mark.parametrize(
    ("table", "query"),
    [
        (TABLE, QUERY),  # added
        (QUERY, TABLE),  # dropped
        (TABLE, [("ID", "bigint"), ("name", "string"), ("updated_at", "timestamp")]),  # same
        (TABLE, [("id", "string"), ("name", "string"), ("Region", "string")]),  # all three
    ],
)
def test_the_table_after_the_schema_change(
    additive: str,
    destructive: str,
    table: list[tuple[str, str]],
    query: list[tuple[str, str]],
) -> None:
    cfg = validate(
        "m", KIND, config(on_additive_change=additive, on_destructive_change=destructive)
    )
    expected = engine.table_after_change(cfg, table, query)
    got = harness().call(
        "_vulcan_unique_key_table_after_change",
        cfg.as_dict(),
        _column_dicts(table),
        _column_dicts(query),
    )
    assert got == expected


@pytest.mark.parametrize(
    ("cfg", "new_table", "reads", "problem"),
    [
        # the table lacks region and keeps lacking it: named, the table's columns listed
        (
            {"on_additive_change": "ignore", "merge_filter": "target.region = 'eu'"},
            False,
            1,
            "merge_filter: \"target.region = 'eu'\" names target.region, which is not a "
            f"column of the table (target); {TABLE_LISTED}",
        ),
        (
            {
                "on_additive_change": "ignore",
                "when_matched": "WHEN MATCHED AND target.region <> source.region THEN "
                "UPDATE SET name = source.name",
            },
            False,
            1,
            "when_matched clause 1: 'target.region <> source.region' names target.region",
        ),
        (
            {
                "on_additive_change": "ignore",
                "when_matched": "WHEN MATCHED THEN UPDATE SET name = coalesce(target.region, '')",
            },
            False,
            1,
            "when_matched clause 1: \"coalesce(target.region, '')\" names target.region",
        ),
        (
            {
                "on_additive_change": "ignore",
                "when_matched": "WHEN MATCHED THEN UPDATE SET region = source.region",
            },
            False,
            1,
            "when_matched clause 1: UPDATE SET region = ...: 'region' is not a column of the "
            f"table (target); {TABLE_LISTED}",
        ),
        # nothing names the table: not read, and source columns are still checked
        ({"on_additive_change": "ignore", "merge_filter": "source.region = 'eu'"}, False, 0, None),
        (
            {"on_additive_change": "ignore", "merge_filter": "source.nope = 'eu'"},
            False,
            0,
            "merge_filter: \"source.nope = 'eu'\" names source.nope",
        ),
        # the schema change adds region first (on_additive_change: allow): not read
        ({"merge_filter": "target.region = 'eu'"}, False, 0, None),
        # the table keeps its columns and gains region
        (
            {
                "on_destructive_change": "ignore",
                "merge_filter": "target.region is null and target.updated_at is not null",
            },
            False,
            1,
            None,
        ),
        # a new table has the query's columns
        ({"on_additive_change": "ignore", "merge_filter": "target.region = 'eu'"}, True, 0, None),
    ],
)
def test_an_existing_table_keeping_its_columns(
    cfg: dict[str, Any], new_table: bool, reads: int, problem: str | None
) -> None:
    """The materialization's check reads the table's columns only when it keeps columns of its
    own and the key's SQL names them, and raises the message engine.check raises with
    the table's columns."""
    cfg = config(**cfg)
    model_cfg = validate("m", KIND, cfg)
    plan = {"first_interval": ["2025-01-01 00:00:00", "2025-01-02 00:00:00"]}
    plan["execution_time"] = "2025-01-03 00:00:00"
    tokens = harness().call("vulcan_time_tokens", *plan["first_interval"], plan["execution_time"])
    spec = UpsertSpec.build(model_cfg, tokens)
    expected: str | None = None
    try:
        engine.check(model_cfg, QUERY, new_table, spec, table=TABLE)
    except VulcanConfigError as error:
        expected = str(error)
    h = harness()
    h.statements.clear()
    saved_columns, h.table_columns = h.table_columns, list(TABLE)
    saved = h.context["model"]
    h.context["model"] = {"name": "m", "config": cfg}
    got: str | None = None
    try:
        h.call(
            "_vulcan_unique_key_check_columns",
            model_cfg.as_dict(),
            plan,
            _column_dicts(QUERY),
            new_table,
            relation(),
        )
    except CompilerError as error:
        got = str(error)
    finally:
        h.context["model"] = saved
        h.table_columns = saved_columns
    # the table's columns, read as its query's (engine/describe.sql: vulcan_table_columns)
    assert h.statements.count(f"describe query select * from {relation()}") == reads
    assert got == expected
    if problem is None:
        assert got is None
    else:
        assert got is not None and problem in got and "Invalid config for model 'm'" in got


# --------------------------------------------------------------------- known differences


@pytest.mark.parametrize(
    ("cfg", "jinja", "oracle"),
    [
        (
            {"unique_key": "lower(source.id)"},
            "'lower(source.id)' names a table",
            "'LOWER(source.id)' names a table",
        ),
        ({"unique_key": "a b"}, "'a b' is not a column or an", "'a AS b' is not a column or an"),
        ({"merge_filter": "a, b"}, "merge_filter: 'a, b' is not a SQL predicate", None),
        ({"when_matched": "WHEN MATCHED THEN UPDATE SET a = 1 where x"}, "cannot parse", None),
        ({"when_matched": "WHEN MATCHED AND THEN DELETE"}, "cannot parse", None),
    ],
)
def test_known_differences(cfg: dict[str, Any], jinja: str, oracle: str | None) -> None:
    expected = python_spec(config(**cfg))
    got = jinja_spec(config(**cfg))
    assert isinstance(got, str) and jinja in got
    if oracle is None:
        assert isinstance(expected, UpsertSpec)  # sqlglot reads it; Spark would refuse it
    else:
        assert isinstance(expected, str) and oracle in expected


def test_comments_around_a_key_are_left_out() -> None:
    """The oracle keeps a key's trailing comment, so `target.a -- c = source.a -- c` comments
    out the rest of the ON clause; the Jinja key is its tokens' text."""
    spec = jinja_spec(config(unique_key="a -- c"))
    assert harness().call("_vulcan_uk_match", spec) == "target.a = source.a"
    oracle = python_spec(config(unique_key="a -- c"))
    assert isinstance(oracle, UpsertSpec) and oracle.match_condition() == (
        "target.a -- c = source.a -- c"
    )


def test_a_type_named_key_column_is_qualified() -> None:
    spec = jinja_spec(config(unique_key="date"))
    assert harness().call("_vulcan_uk_keys_sql", spec, "target") == ["target.date"]
    oracle = python_spec(config(unique_key="date"))
    assert isinstance(oracle, UpsertSpec) and oracle.key_sql("target") == ["date"]


# ------------------------------------------------------------------------ random cases

# sqlglot keywords a bare name may collide with (both refuse most; not compared)
_RESERVED_WORDS = (
    "all and any array as asc between bit by case cast char collate cross cube current_date "
    "current_time current_timestamp current_user date day default delete desc distinct div "
    "else end escape except exists false filter first for from full glob group having if "
    "ilike in inner insert int intersect interval into is join json last left like limit "
    "localtime map merge minus natural not null nulls offset on or order outer over "
    "partition pivot qualify range right rlike rollup row rows select set some sort struct "
    "table text then time timestamp top true union unique unknown unnest update use user "
    "using uuid values when where window with x year"
)
_RESERVED = set(_RESERVED_WORDS.split())

NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True).filter(lambda n: n not in _RESERVED)
COLUMN = st.one_of(NAMES, NAMES.map(lambda n: f"`{n}`"), st.just("`E mail`"))


def _key_expression() -> st.SearchStrategy[str]:
    return st.one_of(
        COLUMN,
        st.builds(lambda c: f"lower({c})", COLUMN),
        st.builds(lambda c: f"COALESCE({c}, '')", COLUMN),
        st.builds(lambda a, b: f"concat({a}, '-', {b})", COLUMN, COLUMN),
        st.builds(lambda c: f"{c} + 1", COLUMN),
        st.builds(lambda c: f"cast({c} as string)", COLUMN),
        st.builds(lambda c: f"transform({c}, x -> x + 1)", COLUMN),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_key_expression(), min_size=1, max_size=3), st.sampled_from(["list", ",", "()"]))
def test_random_keys(keys: list[str], form: str) -> None:
    if form == "list":
        same(config(unique_key=keys))
    elif form == ",":
        same(config(unique_key=", ".join(keys)))
    else:
        same(config(unique_key=f"({', '.join(keys)})"))


SIDE = st.sampled_from(["source", "target"])
TABLE_COLUMN = st.sampled_from(["product_id", "price", "category", "region"])
VALUE = st.one_of(
    st.builds(lambda s, c: f"{s}.{c}", SIDE, TABLE_COLUMN),
    st.builds(lambda a, b: f"COALESCE(source.{a}, target.{b})", TABLE_COLUMN, TABLE_COLUMN),
    st.sampled_from(["1", "'x'", "NULL", "target.price * 2"]),
)
CONDITION = st.one_of(
    st.builds(lambda a, b: f"source.{a} > target.{b}", TABLE_COLUMN, TABLE_COLUMN),
    st.builds(lambda c: f"source.{c} IS NULL", TABLE_COLUMN),
    st.builds(lambda c: f"target.{c} = 'x' AND source.{c} <> 'y'", TABLE_COLUMN),
    st.builds(lambda c: f"source.{c} >= @start_ds", TABLE_COLUMN),
)
ACTION = st.one_of(
    st.just("DELETE"),
    st.just("UPDATE SET *"),
    st.lists(st.builds(lambda c, v: f"{c} = {v}", TABLE_COLUMN, VALUE), min_size=1, max_size=3).map(
        lambda items: "UPDATE SET " + ", ".join(items)
    ),
    st.builds(lambda v: f"UPDATE SET target.price = {v}", VALUE),
    st.just("INSERT *"),
    st.just("UPDATE SET source.price = 1"),
)
CLAUSE = st.builds(
    lambda condition, action: (
        "WHEN MATCHED" + (f" AND {condition}" if condition else "") + f" THEN {action}"
    ),
    st.one_of(st.none(), CONDITION),
    ACTION,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(CLAUSE, min_size=1, max_size=3),
    st.booleans(),
    st.one_of(st.none(), CONDITION),
    st.lists(
        st.sampled_from(["product_id", "lower(category)", "region"]),
        min_size=1,
        max_size=2,
        unique=True,
    ),
)
def test_random_clauses(
    clauses: list[str], one_string: bool, merge_filter: str | None, keys: list[str]
) -> None:
    cfg = config(unique_key=keys, when_matched="\n".join(clauses) if one_string else clauses)
    if merge_filter:
        cfg["merge_filter"] = merge_filter
    same(cfg, VALUES)


# ------------------------------------------------------------- the strategies, package mode


def _args(fmt: str, created: bool = False, per_run: dict[str, Any] | None = None) -> dict[str, Any]:
    return {**unit_cases.strategy_args(fmt, created, 1 if created else 2, per_run)}


@pytest.mark.parametrize("fmt", ["delta", "iceberg"])
def test_merge_strategies_render_without_the_adapter(fmt: str) -> None:
    h = harness().reset()
    h.call(f"vulcan_unique_key_{fmt}", _args(fmt))
    assert h.statements == [unit_cases.MERGE]
    h.reset()
    h.call(f"vulcan_unique_key_{fmt}", _args(fmt, created=True))
    assert h.statements == [f"insert into s.t {unit_cases.CHECKED}"]


def test_parquet_strategy_renders_without_the_adapter() -> None:
    h = harness().reset()
    h.query_results["describe table extended s.t"] = FakeResult(PARTITIONED)
    stage = f"s.t{unit_cases.STAGE}"
    emptied = (
        "select to_json(named_struct('region', cast(`region` as string))) as vulcan_partition "
        f"from {stage} group by `region` having bool_and(__vulcan_marker)"
    )
    h.query_results[emptied] = FakeResult([('{"region": "us"}',), ('{"region": null}',)])
    h.call("vulcan_unique_key_parquet", _args("parquet"))
    assert h.statements[0] == "describe table extended s.t"
    assert h.statements[2:] == [
        emptied,
        "alter table s.t drop if exists partition (`region` = 'us'), partition (`region` = null)",
        "insert overwrite table s.t by name select `product_id`, `price`, `category`, `region` "
        f"from {stage} where not __vulcan_marker",
        f"drop table if exists {stage}",
    ]
    assert relation().render() == "s.t"
