"""The audits oracle (tests/oracle/audits.py): config parsing and validation, the SQL of each
built-in audit, the evaluation statements, the failure messages, and the batch loop's
statements with and without audits."""

from __future__ import annotations

import datetime
import types
from datetime import date
from typing import Any

import pytest
from dbt.context.base import get_context_modules

from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.oracle import audits
from tests.oracle.audits import Audit, parse_audits, parse_call
from tests.support.macro_harness import (
    CompilerError,
    FakeResult,
    Harness,
    is_state_append,
    relation,
    squash,
)

# --- parsing -----------------------------------------------------------------------------------


def one(item: Any, **kw: Any) -> Audit:
    (audit,) = parse_audits("m", [item], **kw)
    return audit


def problems(items: list[Any], **kw: Any) -> str:
    with pytest.raises(VulcanConfigError) as exc:
        parse_audits("daily_sales", items, **kw)
    return str(exc.value)


@pytest.mark.parametrize(
    "item",
    [
        {"name": "not_null", "columns": ["a", "b"]},
        {"not_null": {"columns": ["a", "b"]}},
        "not_null(columns=[a, b])",
        "NOT_NULL(columns := (a, b))",
        "not_null(columns=['a', \"b\"])",
    ],
)
def test_every_form_gives_the_same_audit(item: Any) -> None:
    assert one(item) == Audit("not_null", {"columns": ["a", "b"]})


def test_arguments_are_normalized() -> None:
    assert one({"name": "not_null", "column": "a"}).args == {"columns": ["a"]}
    assert one("unique_values(columns := (a))").args == {"columns": ["a"]}
    assert one("positive_values(column=(total))").args == {"column": "total"}
    assert one("accepted_values(column=s, is_in=['x', 'y'])").args == {
        "column": "s",
        "values": ["x", "y"],
    }
    assert one("accepted_range(column=p, min_v=-1.5, max_v=100, inclusive=false)").args == {
        "column": "p",
        "min": -1.5,
        "max": 100,
        "inclusive": False,
    }
    assert one({"name": "number_of_rows", "threshold": "10"}).args == {"threshold": 10}


def test_blocking() -> None:
    assert one("not_null(columns=[a])").blocking is True
    assert one("not_null(columns=[a], blocking=false)").blocking is False
    assert one({"name": "not_null", "columns": "a", "blocking": "false"}).blocking is False
    assert "blocking: is not a boolean" in problems([{"name": "not_null", "blocking": "maybe"}])


def test_user_defined_audits_need_their_macro() -> None:
    audit = one({"name": "no_future", "column": "d", "days": 3}, macro_exists=lambda n: True)
    assert audit == Audit("no_future", {"column": "d", "days": 3}, builtin=False)
    assert audit.macro == "audit_no_future"
    # unchecked until the macros are known
    assert not one("no_future").builtin
    text = problems(["no_future"], macro_exists=lambda n: False)
    assert "unknown audit 'no_future'" in text
    assert "not_null, unique_values, unique_combination_of_columns, positive_values" in text
    assert "audit_no_future(relation, ...)" in text


def test_every_problem_is_reported_at_once() -> None:
    text = problems(
        [
            {"name": "not_null", "colums": ["a"]},
            {"name": "accepted_range", "column": "x"},
            "number_of_rows(threshold=-1)",
            "number_of_rows",
            {"columns": ["a"], "blocking": False},
            42,
            "not_null(columns=[a]",
            {"name": "accepted_values", "column": "s", "values": []},
            {"name": "positive_values", "column": ["a", "b"]},
        ],
        grains_audit="sometimes",
    )
    assert "Invalid audits for model 'daily_sales', 10 problem(s)" in text
    for fragment in (
        "audits[1] {'name': 'not_null', 'colums': ['a']}: not_null takes no argument 'colums' "
        "(arguments: columns, name, blocking)",
        "audits[2] {'name': 'accepted_range', 'column': 'x'}: accepted_range needs min, max or "
        "both",
        "audits[3] 'number_of_rows(threshold=-1)': threshold: -1 is not a whole number >= 0",
        "audits[4] 'number_of_rows': number_of_rows needs threshold",
        "audits[5] {'columns': ['a'], 'blocking': False}: has no `name`",
        "audits[6] 42: is not an audit",
        "audits[7] 'not_null(columns=[a]': cannot parse 'not_null(columns=[a]': expected ), got "
        "the end",
        "audits[8]",
        "audits[9]",
        "grains_audit: 'sometimes' is not a boolean",
    ):
        assert fragment in text, fragment


@pytest.mark.parametrize(
    "text",
    ["not_null(columns=[a] extra)", "f(x=)", "f(=1)", "f(x=1) g", "f(x=1,", "f(x='a)"],
)
def test_call_form_errors(text: str) -> None:
    with pytest.raises(VulcanConfigError, match="cannot parse"):
        parse_call(text)


def test_call_form_values() -> None:
    assert parse_call("f") == ("f", {})
    assert parse_call("f()") == ("f", {})
    assert parse_call("f(a=1, b=-2.5, c='it''s', d=\"x\\\"y\", e=true, f=NULL, g=[], h=[1, [2]])")[
        1
    ] == {"a": 1, "b": -2.5, "c": "it's", "d": 'x"y', "e": True, "f": None, "g": [], "h": [1, [2]]}


def test_grains_imply_a_uniqueness_audit() -> None:
    implied = Audit("unique_combination_of_columns", {"columns": ["a", "b"]}, from_grains=True)
    assert parse_audits("m", [], ["a", "b"]) == [implied]
    assert implied.label == "unique_combination_of_columns(columns=[a, b]) (from grains)"
    assert parse_audits("m", [], ["a", "b"], grains_audit=False) == []
    assert parse_audits("m", [], ["a", "b"], grains_audit="false") == []
    assert parse_audits("m", None, None) == []
    # an explicit uniqueness audit on the grain (any case, any order) replaces it
    explicit = parse_audits("m", ["unique_combination_of_columns(columns=[B, a])"], ["a", "b"])
    assert [a.from_grains for a in explicit] == [False]
    assert len(parse_audits("m", ["unique_values(columns=[id, x], blocking=false)"], ["id"])) == 1
    # ... but not one on other columns
    assert len(parse_audits("m", ["unique_values(columns=[a])"], ["a", "b"])) == 2


# --- SQL ---------------------------------------------------------------------------------------

STAGE = "s.stage"  # any relation: the audits read the one they are given


@pytest.mark.parametrize(
    ("item", "sql"),
    [
        (
            {"name": "not_null", "columns": ["a", "x`y"]},
            "select * from s.stage where `a` is null or `x``y` is null",
        ),
        (
            "not_null(columns=[`my col`, `x``y`])",
            "select * from s.stage where `my col` is null or `x``y` is null",
        ),
        (
            "unique_values(columns=[a, b])",
            "select 'a' as column_name, cast(`a` as string) as value, count(*) as row_count "
            "from s.stage where `a` is not null group by `a` having count(*) > 1\n"
            "union all\n"
            "select 'b' as column_name, cast(`b` as string) as value, count(*) as row_count "
            "from s.stage where `b` is not null group by `b` having count(*) > 1",
        ),
        (
            "unique_combination_of_columns(columns=[a, b])",
            "select `a`, `b`, count(*) as row_count from s.stage "
            "group by `a`, `b` having count(*) > 1",
        ),
        (
            "unique_combination_of_columns(columns=[Row_Count])",
            "select `Row_Count`, count(*) as vulcan_row_count from s.stage "
            "group by `Row_Count` having count(*) > 1",
        ),
        ("positive_values(column=x)", "select * from s.stage where `x` <= 0"),
        ("non_negative_values(column=x)", "select * from s.stage where `x` < 0"),
        (
            "accepted_values(column=s, values=['a', 'it''s', 1, true])",
            "select * from s.stage where `s` not in ('a', 'it\\'s', 1, true)",
        ),
        (
            "accepted_range(column=x, min=0, max=10)",
            "select * from s.stage where `x` < 0 or `x` > 10",
        ),
        (
            "accepted_range(column=x, min=0, inclusive=false)",
            "select * from s.stage where `x` <= 0",
        ),
        (
            "accepted_range(column=x, max=1.5, inclusive=false)",
            "select * from s.stage where `x` >= 1.5",
        ),
        (
            "number_of_rows(threshold=10)",
            "select count(*) as row_count from s.stage having count(*) <= 10",
        ),
    ],
)
def test_builtin_sql(item: Any, sql: str) -> None:
    assert one(item).violations_sql(STAGE) == sql


def test_literals() -> None:
    assert audits.literal("a\\b'c") == "'a\\\\b\\'c'"
    assert audits.literal(date(2025, 1, 2)) == "date'2025-01-02'"
    assert audits.literal(datetime.datetime(2025, 1, 2, 3)) == "timestamp'2025-01-02 03:00:00'"
    assert audits.literal(False) == "false"
    # YAML dates are accepted as range bounds
    audit = one({"name": "accepted_range", "column": "d", "min": date(2025, 1, 1)})
    assert audit.violations_sql(STAGE) == f"select * from {STAGE} where `d` < date'2025-01-01'"


def test_evaluation_statements() -> None:
    sqls = ["select * from x where a is null", "select 1"]
    assert audits.count_query(sqls) == (
        "select 0 as vulcan_audit, count(*) as vulcan_failures from (\n"
        "select * from x where a is null\n) as vulcan_v\n"
        "union all\n"
        "select 1 as vulcan_audit, count(*) as vulcan_failures from (\nselect 1\n) as vulcan_v"
    )
    assert audits.sample_query(sqls, [1]) == (
        "select * from (select 1 as vulcan_audit, to_json(struct(vulcan_v.*), "
        "map('ignoreNullFields', 'false')) as vulcan_sample from (\nselect 1\n) as vulcan_v "
        "limit 5) as vulcan_s1"
    )
    assert audits.failures([(0, 0), (1, 3), (2, None)]) == [1]
    assert audits.failures(FakeResult([(2, 1), (0, 5)])) == [0, 2]


# --- messages ----------------------------------------------------------------------------------

BATCH = {"index": 2, "count": 3, "label": "2025-01-08 - 2025-01-14", "tracked": True}


def described(*items: Any) -> list[dict[str, Any]]:
    return [a.as_dict(STAGE) for a in parse_audits("m", list(items))]


def test_report_names_audit_batch_count_and_samples() -> None:
    found = described(
        "not_null(columns=[order_id])",
        "accepted_values(column=status, values=['a', 'b'], blocking=false)",
        "number_of_rows(threshold=0)",
    )
    samples = [
        (0, '{"order_id":null,"status":"a","n":1.5}'),
        (0, '{"order_id":null,"status":null,"n":[1,2]}'),
        (1, '{"order_id":7,"status":"zz","n":2}'),
    ]
    out = audits.report("daily_sales", found, BATCH, [(0, 2), (1, 1), (2, 0)], samples)
    assert out["error"] == (
        "Audit not_null(columns=[order_id]) failed for model daily_sales, batch [2/3] "
        "2025-01-08 - 2025-01-14: 2 offending rows, e.g. {order_id: None, status: 'a', n: 1.5}; "
        "{order_id: None, status: None, n: [1, 2]}\n"
        "Nothing of this batch was written: the table and its interval state are unchanged."
    )
    assert out["warnings"] == [
        "Audit accepted_values(column=status, values=['a', 'b']) (non-blocking) failed for "
        "model daily_sales, batch [2/3] 2025-01-08 - 2025-01-14: 1 offending row, "
        "e.g. {order_id: 7, status: 'zz', n: 2}"
    ]


def test_report_untracked_batch_and_long_samples() -> None:
    found = described("not_null(columns=[a], blocking=false)")
    batch = {"index": 1, "count": 1, "label": "1970-01-01 - 2025-01-03", "tracked": False}
    out = audits.report("m", found, batch, [(0, 1)], [(0, '{"a":"' + "x" * 500 + '"}')])
    assert out["error"] is None
    (warning,) = out["warnings"]
    assert "batch [1/1] (whole query): 1 offending row, e.g. {a: 'xxx" in warning
    assert warning.endswith("...")
    assert audits.report("m", found, batch, [(0, 0)], [])["warnings"] == []


# --- the check before any write ----------------------------------------------------------------


def test_audits_are_checked_before_any_write(h: Harness) -> None:
    """vulcan_check_extras (both modes: tests/unit/macros/audits/test_audit_macros.py) parses
    the audits with the project's macros `audit_<name>` known, before anything is written."""
    cfg = {"model": "daily", "kind": "incremental_by_time_range", "grains": []}
    h.context["model"] = {"name": "daily", "config": {"audits": ["mine(x=1)"]}}
    h.context["audit_mine"] = lambda relation, **args: ""
    try:
        h.call("vulcan_check_extras", {**cfg, "audits": ["mine(x=1)"]})
    finally:
        del h.context["audit_mine"]
    with pytest.raises(CompilerError, match="unknown audit 'mine'"):
        h.call("vulcan_check_extras", {**cfg, "audits": ["mine(x=1)"]})
    with pytest.raises(CompilerError, match="grains_audit: 3 is not a boolean"):
        h.call("vulcan_check_extras", {**cfg, "audits": [], "grains": ["id"], "grains_audit": 3})


# --- the batch loop ------------------------------------------------------------------------------


@pytest.fixture
def h() -> Harness:
    harness = Harness.of_module(__name__)
    harness.context.update(
        {
            "compiled_code": "select * from src where d between @start_ds and @end_ds",
            "modules": get_context_modules(),
            "store_raw_result": lambda *a, **k: None,
        }
    )
    return harness


KIND = "incremental_by_time_range"
CFG = {"kind": KIND, "time_column": "d", "partition_cols": ["d"], "file_format": "parquet"}
PLAN = {
    "batches": [
        {
            "index": i,
            "count": 2,
            "start": f"2025-01-0{2 * i - 1} 00:00:00",
            "end": f"2025-01-0{2 * i + 1} 00:00:00",
            "intervals": 2,
            "label": f"2025-01-0{2 * i - 1} - 2025-01-0{2 * i}",
            "dirty": False,
            "tracked": True,
        }
        for i in (1, 2)
    ],
    "fingerprint": "fp",
    "execution_time": "2025-01-05 00:00:00",
    "fingerprint_changed": False,
}
QUERY = "select * from (select * from src where d between '{}' and '{}') as vulcan_batch"
# half-open at the day after the batch's last
FILTER = "where `d` >= CAST('{0}' AS DATE) AND `d` < CAST('{1}' AS DATE)"


def batch_sql(first: str, last: str) -> str:
    after = (date.fromisoformat(last) + datetime.timedelta(days=1)).isoformat()
    return QUERY.format(first, last) + " " + FILTER.format(first, after)


def run_batches(h: Harness, **config: Any) -> list[str]:
    h.context["model"] = {
        "name": "daily",
        "unique_id": "model.p.daily",
        "config": {"time_column": "d", "start": "2025-01-01", **config},
    }
    cfg: dict[str, Any] = {
        **CFG,
        **{k: config[k] for k in ("audits", "grains", "grains_audit") if k in config},
    }
    h.call("vulcan_run_batches", KIND, "time_range", relation(), PLAN, cfg, "date")
    return [s for s in h.statements if not is_state_append(s)]


def test_without_audits_the_loop_runs_no_extra_statement(h: Harness) -> None:
    assert run_batches(h) == [
        f"insert overwrite table s.t by name {batch_sql('2025-01-01', '2025-01-02')}",
        f"insert overwrite table s.t by name {batch_sql('2025-01-03', '2025-01-04')}",
    ]
    assert sum(is_state_append(s) for s in h.statements) == 2
    h.reset()
    assert len(run_batches(h, grains=["id"], grains_audit=False)) == 2


def test_audited_batches_are_staged_once_and_written_from_the_stage(h: Harness) -> None:
    count = (
        "select 0 as vulcan_audit, count(*) as vulcan_failures from "
        "(select * from {} where `id` is null) as vulcan_v"
    )
    statements = run_batches(h, audits=["not_null(columns=[id])"])
    stage = "s.t__vulcan_audit_0123abcd4567"
    assert statements == [
        f"create table {stage} using parquet as {batch_sql('2025-01-01', '2025-01-02')}",
        count.format(stage),
        f"insert overwrite table s.t by name select * from {stage}",
        f"drop table if exists {stage}",
        f"create table {stage} using parquet as {batch_sql('2025-01-03', '2025-01-04')}",
        count.format(stage),
        f"insert overwrite table s.t by name select * from {stage}",
        f"drop table if exists {stage}",
    ]
    # each batch is recorded after its write, before its stage is dropped
    assert is_state_append(h.statements[3])


def test_user_defined_audit_macro_gets_the_stage_and_its_arguments(h: Harness) -> None:
    calls: list[Any] = []

    def audit_recent(relation: Any, column: str, days: int) -> str:
        calls.append((str(relation), column, days))
        return f"select * from {relation} where {column} < {days}"

    h.context["audit_recent"] = audit_recent
    try:
        statements = run_batches(h, audits=[{"name": "recent", "column": "d", "days": 3}])
    finally:
        del h.context["audit_recent"]
    assert calls == [("s.t__vulcan_audit_0123abcd4567", "d", 3)] * 2
    stage = "s.t__vulcan_audit_0123abcd4567"
    assert f"from (select * from {stage} where d < 3) as vulcan_v" in statements[1]


def test_failing_blocking_audit_stops_before_the_write(h: Harness) -> None:
    stage = "s.t__vulcan_audit_0123abcd4567"
    sql = f"select * from {stage} where `id` is null"
    count = f"select 0 as vulcan_audit, count(*) as vulcan_failures from ({sql}) as vulcan_v"
    h.query_results[count] = FakeResult([(0, 1)])
    sample = audits.sample_query([sql], [0])
    h.query_results[squash(sample)] = FakeResult([(0, '{"id":null,"d":"2025-01-01"}')])
    with pytest.raises(CompilerError) as exc:
        run_batches(h, audits=["not_null(columns=[id])"])
    assert str(exc.value) == (
        "Audit not_null(columns=[id]) failed for model daily, batch [1/2] "
        "2025-01-01 - 2025-01-02: 1 offending row, e.g. {id: None, d: '2025-01-01'}\n"
        "Nothing of this batch was written: the table and its interval state are unchanged."
    )
    assert h.statements == [
        f"create table {stage} using parquet as {batch_sql('2025-01-01', '2025-01-02')}",
        count,
        squash(sample),
        f"drop table if exists {stage}",
    ]


def test_failing_non_blocking_audit_warns_and_writes(h: Harness) -> None:
    warned: list[str] = []
    stage = "s.t__vulcan_audit_0123abcd4567"
    sql = f"select * from {stage} where `id` is null"
    count = f"select 0 as vulcan_audit, count(*) as vulcan_failures from ({sql}) as vulcan_v"
    h.query_results[count] = FakeResult([(0, 4)])
    original = h.context["exceptions"]
    h.context["exceptions"] = types.SimpleNamespace(warn=warned.append)
    try:
        statements = run_batches(h, audits=["not_null(columns=[id], blocking=false)"])
    finally:
        h.context["exceptions"] = original
    assert len(warned) == 2
    assert warned[0].startswith(
        "Audit not_null(columns=[id]) (non-blocking) failed for model daily, batch [1/2] "
        "2025-01-01 - 2025-01-02: 4 offending rows"
    )
    assert statements.count(f"insert overwrite table s.t by name select * from {stage}") == 2


def test_iceberg_targets_stage_in_iceberg_and_purge_it(h: Harness) -> None:
    stage = "s.t__vulcan_audit_0123abcd4567"
    h.context["model"] = {
        "name": "daily",
        "unique_id": "model.p.daily",
        "config": {"time_column": "d", "start": "2025-01-01", "grains": ["id"]},
    }
    cfg = {**CFG, "file_format": "iceberg", "grains": ["id"]}
    h.call("vulcan_run_batches", KIND, "time_range", relation(), PLAN, cfg, "date")
    assert h.statements[:1] == [
        f"create table {stage} using iceberg as {batch_sql('2025-01-01', '2025-01-02')}",
    ]
    assert "group by `id` having count(*) > 1" in h.statements[1]
    # a table this run did not create: the range deleted, then the staged rows inserted
    assert h.statements[2].startswith("delete from s.t where `d` >= ")
    assert h.statements[3] == f"insert into s.t by name select * from {stage}"
    assert h.statements[-1] == f"drop table if exists {stage} purge"
