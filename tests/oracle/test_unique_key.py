"""The unique_key oracle (tests/oracle/unique_key.py): key and when_matched parsing, and the
exact SQL of a batch (unique_key.py directly, and the strategy macros rendered through the
macro harness: the macros build the same SQL in Jinja,
tests/unit/macros/kinds/unique_key/test_unique_key_macros.py compares them in depth)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.oracle.config import validate
from tests.oracle.unique_key import (
    Clause,
    TableLayout,
    UpsertSpec,
    drop_partitions_sql,
    parse_keys,
    parse_when_matched,
)
from tests.support.macro_harness import STAGE, FakeResult, Harness, relation, squash

KIND = "incremental_by_unique_key"
SPEC_CLAUSES = [
    "WHEN MATCHED AND source.price IS NULL THEN UPDATE SET target.price = target.price",
    "WHEN MATCHED THEN UPDATE SET target.category = COALESCE(source.category, target.category)",
]
SPEC_FILTER = "source._operation IS NULL AND target.order_date > dateadd(day, -7, current_date)"


def spec(**config: Any) -> UpsertSpec:
    return UpsertSpec.build(validate("m", KIND, {"unique_key": "id", **config}))


def problems(**config: Any) -> str:
    with pytest.raises(VulcanConfigError) as info:
        spec(**config)
    text = str(info.value)
    assert text.startswith("Invalid config for model 'm' (incremental_by_unique_key)")
    return text


# --- keys ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("unique_key", "target", "source"),
    [
        ("id", ["target.id"], ["source.id"]),
        (["order_id", "product_id"], ["target.order_id", "target.product_id"], None),
        ("order_id, product_id", ["target.order_id", "target.product_id"], None),
        ("(order_id, product_id)", ["target.order_id", "target.product_id"], None),
        ("COALESCE(email, '')", ["COALESCE(target.email, '')"], ["COALESCE(source.email, '')"]),
        # functions pass through exactly as written (no dialect round trip)
        ("dateadd(day, 1, d)", ["dateadd(day, 1, target.d)"], None),
        ("lower(trim(`E mail`))", ["lower(trim(target.`E mail`))"], None),
        ("transform(tags, x -> upper(x))", ["transform(target.tags, x -> upper(x))"], None),
        ("payload.id", None, None),  # a struct field reads like a table: refused below
    ],
)
def test_keys_are_qualified_as_written(
    unique_key: Any, target: list[str] | None, source: list[str] | None
) -> None:
    if target is None:
        assert "names a table" in problems(unique_key=unique_key)
        return
    upsert = spec(unique_key=unique_key)
    assert upsert.key_sql("target") == target
    if source is not None:
        assert upsert.key_sql("source") == source


@given(st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), min_size=1, max_size=4))
def test_a_comma_list_of_columns_is_a_composite_key(names: list[str]) -> None:
    keys, errors = parse_keys([", ".join(names)])
    reserved = not keys and errors  # e.g. `select`, `from`: not a column, reported
    assert reserved or [k.text for k in keys] == names


def test_bad_keys_are_all_reported() -> None:
    text = problems(unique_key=["1", "source.id", "id from t", "count("])
    assert "4 problem(s)" in text
    assert "'1' is not a column or an expression over the model's columns" in text
    assert "'source.id' names a table" in text
    assert "'id from t' is not a column or SQL expression" in text


def test_match_condition_uses_equality_and_the_filter() -> None:
    upsert = spec(unique_key=["a", "COALESCE(b, '')"], merge_filter=SPEC_FILTER)
    assert upsert.match_condition() == (
        "target.a = source.a and COALESCE(target.b, '') = COALESCE(source.b, '') "
        f"and ({SPEC_FILTER})"
    )
    assert upsert.match_condition(with_filter=False).endswith("= COALESCE(source.b, '')")


# --- when_matched -------------------------------------------------------------------------


def test_when_matched_clauses_keep_the_text_as_written() -> None:
    clauses, errors = parse_when_matched(
        [
            "WHEN MATCHED AND source.op = 'D' THEN DELETE\n"
            "when matched and source.ts > target.ts then update set *",
            "WHEN MATCHED THEN UPDATE SET target.d = dateadd(day, 1, source.d), "
            "`n` = CASE WHEN source.n > 1 THEN source.n ELSE target.n END",
        ]
    )
    assert errors == []
    assert clauses == [
        Clause("source.op = 'D'", delete=True),
        Clause("source.ts > target.ts", star=True),
        Clause(
            None,
            assignments=(
                ("d", "dateadd(day, 1, source.d)"),
                ("n", "CASE WHEN source.n > 1 THEN source.n ELSE target.n END"),
            ),
        ),
    ]


@pytest.mark.parametrize(
    ("when_matched", "expected"),
    [
        (
            "WHEN MATCHED THEN UPDATE SET a = 1 WHEN NOT MATCHED THEN INSERT *",
            "clause 2 ('WHEN NOT MATCHED THEN INSERT *'): only WHEN MATCHED clauses are allowed",
        ),
        (
            "WHEN MATCHED THEN UPDATE SET a = 1 WHEN NOT MATCHED BY SOURCE THEN DELETE",
            "only WHEN MATCHED clauses are allowed",
        ),
        ("WHEN MATCHED THEN INSERT *", "the action must be UPDATE SET ... or DELETE"),
        ("WHEN MATCHED THEN UPDATE SET source.a = 1", "'source.a' is not a column of the target"),
        (
            "WHEN MATCHED THEN UPDATE SET a = 1 WHEN MATCHED THEN DELETE",
            "clause 1 of 2 has no AND condition",
        ),
        ("WHEN MATCHED THEN UPDATE SET", "UPDATE SET needs `column = expr, ...` or `*`"),
        ("WHEN MATCHED THEN UPDATE SET a = (", "when_matched: cannot parse"),
    ],
)
def test_bad_when_matched(when_matched: str, expected: str) -> None:
    assert expected in problems(when_matched=when_matched)


def test_bad_merge_filter() -> None:
    assert "merge_filter: 'a =' is not a SQL predicate" in problems(merge_filter="a =")


def test_time_tokens_render_in_merge_filter_and_when_matched() -> None:
    cfg = validate(
        "m",
        KIND,
        {
            "unique_key": "id",
            "merge_filter": "target.d >= @start_ds",
            "when_matched": "WHEN MATCHED AND source.d <= @end_date THEN UPDATE SET *",
        },
    )
    upsert = UpsertSpec.build(cfg, {"start_ds": "'2025-01-01'", "end_date": "DATE'2025-01-07'"})
    assert upsert.merge_filter == "target.d >= '2025-01-01'"
    assert upsert.clauses[0].condition == "source.d <= DATE'2025-01-07'"


def test_incremental_predicates_join_merge_filter_with_dbt_aliases_renamed() -> None:
    cfg = validate("m", KIND, {"unique_key": "id", "merge_filter": "source.x = 1"})
    upsert = UpsertSpec.build(
        cfg,
        {"start_ds": "'2025-01-01'"},
        ["DBT_INTERNAL_DEST.d >= @start_ds", "dbt_internal_source.y = 'DBT_INTERNAL_DEST'"],
    )
    assert upsert.merge_filter == (
        "(source.x = 1) and (target.d >= '2025-01-01') and (source.y = 'DBT_INTERNAL_DEST')"
    )


def test_the_strategy_reads_incremental_predicates_from_the_model(h: Harness) -> None:
    config = {"unique_key": "id", "incremental_predicates": "DBT_INTERNAL_DEST.d > 0"}
    args = {
        **strategy_args("delta"),
        "model": {"name": "m", "config": config},
        "cfg": validate("m", KIND, {"unique_key": "id"}).as_dict(),
        "sql": "select 1 as id",
    }
    h.call("vulcan_unique_key_delta", args)
    assert "on target.id = source.id and (target.d > 0)" in h.statements[-1]


# --- the MERGE (delta / iceberg) ----------------------------------------------------------

CHECKED = (
    "select __vulcan_row.* from ("
    "select struct(vulcan_src.*) as __vulcan_row, "
    "count(*) over (partition by product_id) as __vulcan_n "
    "from (select * from src) as vulcan_src) as vulcan_checked "
    "where case when __vulcan_row.product_id is not null and __vulcan_n > 1 then raise_error("
    "concat('Model \\'m\\' (incremental_by_unique_key): duplicate unique_key in one batch: "
    "(product_id) = (', coalesce(cast(__vulcan_row.product_id as string), 'NULL'), "
    "') appears in ', cast(__vulcan_n as string), ' rows. Each key may appear at most once "
    "per batch; deduplicate the model\\'s query (the table was not changed).')) else true end"
)
MERGE = (
    f"merge into s.t as target using ({CHECKED}) as source "
    "on target.product_id = source.product_id "
    f"and ({SPEC_FILTER}) "
    f"{SPEC_CLAUSES[0]} {SPEC_CLAUSES[1]} "
    "when not matched then insert *"
)


def test_merge_statement_with_clauses_and_filter() -> None:
    upsert = spec(unique_key="product_id", when_matched=SPEC_CLAUSES, merge_filter=SPEC_FILTER)
    assert squash(upsert.merge_statement("s.t", "select * from src")) == MERGE


def test_default_merge_updates_every_column() -> None:
    sql = squash(spec().merge_statement("s.t", "select 1 as id"))
    assert sql.endswith(
        "on target.id = source.id when matched then update set * when not matched then insert *"
    )


def test_merge_leaves_out_rows_equal_to_the_table() -> None:
    sql = squash(spec().merge_statement("s.t", "select 1 as id, 2 as v", ["id", "v"]))
    assert (
        "left anti join (select target.* from s.t as target left semi join "
        "(select 1 as id, 2 as v) as source on target.id = source.id)"
    ) in sql
    assert (
        ") as source on target.id = source.id) as target on target.id = source.id "
        "and target.`id` <=> source.`id` and target.`v` <=> source.`v`) as source "
        "on target.id = source.id when matched then update set *"
    ) in sql


def test_merge_of_the_whole_query_compares_with_the_whole_table() -> None:
    sql = squash(spec().merge_statement("s.t", "select 1 as id, 2 as v", ["id", "v"], whole=True))
    assert "left semi join" not in sql
    assert (
        "left anti join s.t as target on target.id = source.id "
        "and target.`id` <=> source.`id` and target.`v` <=> source.`v`) as source"
    ) in sql


def test_merge_with_when_matched_compares_nothing() -> None:
    upsert = spec(unique_key="product_id", when_matched=SPEC_CLAUSES, merge_filter=SPEC_FILTER)
    assert squash(upsert.merge_statement("s.t", "select * from src", ["product_id"])) == MERGE


@pytest.fixture
def h() -> Harness:
    return Harness.of_module(__name__)


BATCH = {"index": 2, "count": 2, "start": "2025-01-01 00:00:00", "end": "2025-01-02 00:00:00"}


def strategy_args(
    fmt: str, created: bool = False, index: int = 2, per_run: dict[str, Any] | None = None
) -> dict[str, Any]:
    config = {
        "unique_key": "product_id",
        "when_matched": SPEC_CLAUSES,
        "merge_filter": SPEC_FILTER,
        "file_format": fmt,
    }
    return {
        "relation": relation(),
        "model": {"name": "m", "config": config},
        "cfg": validate("m", KIND, config).as_dict(),
        "batch": {**BATCH, "index": index},
        "plan": {"execution_time": "2025-01-02 00:00:00"},
        "sql": "select * from src",
        "created": created,
        "per_run": {} if per_run is None else per_run,
    }


@pytest.mark.parametrize("fmt", ["delta", "iceberg"])
def test_strategy_is_one_merge_per_batch(h: Harness, fmt: str) -> None:
    h.call(f"vulcan_unique_key_{fmt}", strategy_args(fmt))
    assert h.statements == [MERGE]


@pytest.mark.parametrize("fmt", ["delta", "iceberg"])
def test_first_batch_into_a_new_table_is_an_insert(h: Harness, fmt: str) -> None:
    h.call(f"vulcan_unique_key_{fmt}", strategy_args(fmt, created=True, index=1))
    assert h.statements == [f"insert into s.t {CHECKED}"]


def default_args(
    fmt: str, previous: dict[str, Any] | None = None, start: str | None = None
) -> dict[str, Any]:
    """A batch of a model without when_matched, on a table the last run recorded `previous`
    (`start`: a model whose batches are time ranges; none: the whole query each run)."""
    config = {"unique_key": "id", "file_format": fmt, **({"start": start} if start else {})}
    return {
        **strategy_args(fmt),
        "model": {"name": "m", "config": config},
        "cfg": validate("m", KIND, config).as_dict(),
        "plan": {"execution_time": "2025-01-02 00:00:00", "previous_details": previous or {}},
    }


@pytest.mark.parametrize("start", [None, "2025-01-01"])
@pytest.mark.parametrize("fmt", ["delta", "iceberg"])
def test_merge_compares_the_columns_the_last_run_recorded(
    h: Harness, fmt: str, start: str | None
) -> None:
    recorded = {"table_columns": ["id", "v"], "table_types": ["int", "string"]}
    args = default_args(fmt, recorded, start)
    h.call(f"vulcan_unique_key_{fmt}", args)
    assert len(h.statements) == 1  # no DESCRIBE
    # the whole query's batch (no start) against the whole table, a time range's through the
    # semi join
    whole = start is None
    expected = spec().merge_statement("s.t", "select * from src", ["id", "v"], whole)
    assert squash(h.statements[0]) == squash(expected)
    assert args["per_run"] == {"table_columns": ["id", "v"], "table_types": ["int", "string"]}


def test_merge_describes_the_table_once_when_no_types_were_recorded(h: Harness) -> None:
    h.table_columns = [("id", "int"), ("v", "string")]
    args = default_args("delta", {"table_columns": ["id", "v"]})
    h.call("vulcan_unique_key_delta", args)
    h.call("vulcan_unique_key_delta", {**args, "batch": {**BATCH, "index": 3}})
    assert [s for s in h.statements if s.startswith("describe")] == ["describe s.t"]
    assert len(h.statements) == 3
    assert args["per_run"] == {"table_columns": ["id", "v"], "table_types": ["int", "string"]}


def test_skip_unchanged_rows_false_compares_nothing(h: Harness) -> None:
    args = default_args("delta", {"table_columns": ["id"], "table_types": ["int"]})
    config = {"unique_key": "id", "file_format": "delta", "skip_unchanged_rows": False}
    args["cfg"] = validate("m", KIND, config).as_dict()
    h.call("vulcan_unique_key_delta", args)
    assert squash(h.statements[0]) == squash(spec().merge_statement("s.t", "select * from src"))


def test_a_map_column_updates_every_matched_row(h: Harness) -> None:
    previous = {"table_columns": ["id", "m"], "table_types": ["int", "map<string,int>"]}
    h.call("vulcan_unique_key_delta", default_args("delta", previous))
    assert squash(h.statements[0]) == squash(spec().merge_statement("s.t", "select * from src"))


# --- parquet ------------------------------------------------------------------------------

DESCRIBE = [
    ("product_id", "bigint", None),
    ("price", "double", None),
    ("category", "string", None),
    ("region", "string", None),
]
PARTITIONED = [
    *DESCRIBE,
    ("# Partition Information", "", ""),
    ("# col_name", "data_type", "comment"),
    ("region", "string", None),
    ("", "", ""),
    ("# Detailed Table Information", "", ""),
    ("Provider", "parquet", ""),
    ("Storage Properties", "[partitionOverwriteMode=dynamic]", ""),
]


def test_layout_from_describe() -> None:
    plain = TableLayout.from_describe(DESCRIBE)
    assert plain.columns == ["product_id", "price", "category", "region"]
    assert plain.types == ["bigint", "double", "string", "string"]
    assert not plain.partition_cols
    assert not plain.scoped
    layout = TableLayout.from_describe(PARTITIONED)
    assert layout.partition_cols == ["region"]
    assert layout.dynamic_overwrite and layout.scoped
    no_option = [r for r in PARTITIONED if r[0] != "Storage Properties"]
    assert not TableLayout.from_describe(no_option).scoped


def test_parquet_stage_flags_changed_rows_only_without_when_matched() -> None:
    layout = TableLayout.from_describe(PARTITIONED)
    plain = spec(unique_key="product_id").parquet(
        "s.t", "s.st", "select * from src", layout, layout.columns
    )
    assert plain.changed == "select 1 from s.st where __vulcan_changed limit 1"
    select = squash(plain.stage_select)
    assert (
        "source.__vulcan_s is not null and (target.__vulcan_t is null or not ("
        "target.`product_id` <=> source.`product_id` and target.`price` <=> source.`price` and "
        "target.`category` <=> source.`category` and target.`region` <=> source.`region`"
        ")) as __vulcan_changed"
    ) in select
    assert select.endswith("true as __vulcan_marker, false as __vulcan_changed from vulcan_scope")
    clauses = spec(unique_key="product_id", when_matched=SPEC_CLAUSES).parquet(
        "s.t", "s.st", "select * from src", layout, layout.columns
    )
    assert clauses.changed is None and "__vulcan_changed" not in clauses.stage_select


def test_parquet_select_chooses_each_column_by_clause() -> None:
    upsert = spec(unique_key="product_id", when_matched=SPEC_CLAUSES)
    parquet = upsert.parquet(
        "s.t", "s.st", "select * from src", TableLayout.from_describe(DESCRIBE)
    )
    select = squash(parquet.stage_select)
    head = "case when source.__vulcan_s is null then target.`{0}` when target.__vulcan_t is null "
    head += "then source.`{0}` when source.price IS NULL then {1} when true then {2} "
    head += "else target.`{0}` end as `{0}`"
    assert head.format("price", "target.price", "target.`price`") in select
    assert (
        head.format("category", "target.`category`", "COALESCE(source.category, target.category)")
        in select
    )
    assert "from (select *, true as __vulcan_t from s.t) as target full outer join (" in select
    assert select.endswith("as source on target.product_id = source.product_id")
    assert parquet.overwrite == (
        "insert overwrite table s.t by name select `product_id`, `price`, `category`, `region` "
        "from s.st"
    )
    assert parquet.emptied_partitions is None


def test_parquet_default_takes_the_batch_row_and_delete_filters() -> None:
    layout = TableLayout.from_describe(DESCRIBE)
    default = squash(spec().parquet("s.t", "s.st", "select 1", layout).stage_select)
    assert "else source.`price` end as `price`" in default
    assert "where not" not in default
    deleting = spec(
        when_matched="WHEN MATCHED AND source.price < 0 THEN DELETE WHEN MATCHED THEN UPDATE SET *"
    )
    select = squash(deleting.parquet("s.t", "s.st", "select 1", layout).stage_select)
    assert select.endswith(
        "where not coalesce(source.__vulcan_s and target.__vulcan_t and (case when "
        "source.price < 0 then true when true then false else false end), false)"
    )


def test_parquet_refuses_unknown_columns() -> None:
    upsert = spec(when_matched="WHEN MATCHED THEN UPDATE SET target.colour = source.colour")
    with pytest.raises(VulcanConfigError, match="colour not a column of the table"):
        upsert.parquet("s.t", "s.st", "select 1", TableLayout.from_describe(DESCRIBE))


def test_parquet_partitioned_is_scoped_with_markers() -> None:
    upsert = spec(unique_key="product_id")
    parquet = upsert.parquet("s.t", "s.st", "select 1", TableLayout.from_describe(PARTITIONED))
    select = squash(parquet.stage_select)
    assert "vulcan_scope as (select `region` from vulcan_source union select target.`region` " in (
        select
    )
    assert (
        "from (select target.*, true as __vulcan_t from s.t as target left semi join vulcan_scope "
        "on target.`region` <=> vulcan_scope.`region`) as target full outer join vulcan_source"
    ) in select
    assert select.endswith(
        "union all select null, null, null, vulcan_scope.`region`, true as __vulcan_marker "
        "from vulcan_scope"
    )
    assert parquet.overwrite.endswith("from s.st where not __vulcan_marker")
    assert parquet.emptied_partitions == (
        "select to_json(named_struct('region', cast(`region` as string))) as vulcan_partition "
        "from s.st group by `region` having bool_and(__vulcan_marker)"
    )


def test_drop_partitions_sql_escapes_and_keeps_nulls() -> None:
    rows = [('{"region": "it\'s"}',), ('{"day": "2025-01-01"}',)]
    assert drop_partitions_sql("s.t", ["region", "day"], rows) == (
        "alter table s.t drop if exists partition (`region` = 'it\\'s', `day` = null), "
        "partition (`region` = null, `day` = '2025-01-01')"
    )
    assert drop_partitions_sql("s.t", ["region"], []) == ""


def test_parquet_strategy_first_batch_inserts(h: Harness) -> None:
    h.call("vulcan_unique_key_parquet", strategy_args("parquet", created=True, index=1))
    assert h.statements == [f"insert into s.t by name {CHECKED}"]


def test_parquet_strategy_stages_and_swaps(h: Harness) -> None:
    h.query_results["describe table extended s.t"] = FakeResult(DESCRIBE)
    per_run: dict[str, Any] = {}
    h.call("vulcan_unique_key_parquet", strategy_args("parquet", per_run=per_run))
    stage = f"s.t{STAGE}"
    assert h.statements[0] == "describe table extended s.t"
    assert h.statements[1].startswith(
        f"create table {stage} using parquet tblproperties ('vulcan.replay' = 'overwrite') "
        "as select case when"
    )
    assert h.statements[2:] == [
        f"insert overwrite table s.t by name select `product_id`, `price`, `category`, "
        f"`region` from {stage}",
        f"drop table if exists {stage}",
    ]
    # the next batch of the run reuses the layout: three statements
    h.statements.clear()
    h.call("vulcan_unique_key_parquet", strategy_args("parquet", per_run=per_run))
    assert len(h.statements) == 3
    assert h.statements[0].startswith(f"create table {stage} using parquet tblproperties")


def test_parquet_strategy_drops_emptied_partitions(h: Harness) -> None:
    h.query_results["describe table extended s.t"] = FakeResult(PARTITIONED)
    emptied = (
        "select to_json(named_struct('region', cast(`region` as string))) as vulcan_partition "
        f"from s.t{STAGE} group by `region` having bool_and(__vulcan_marker)"
    )
    h.query_results[emptied] = FakeResult([('{"region": "us"}',)])
    h.call("vulcan_unique_key_parquet", strategy_args("parquet"))
    assert h.statements[2:] == [
        emptied,
        "alter table s.t drop if exists partition (`region` = 'us')",
        "insert overwrite table s.t by name select `product_id`, `price`, `category`, `region` "
        f"from s.t{STAGE} where not __vulcan_marker",
        f"drop table if exists s.t{STAGE}",
    ]


# ------------------------------------------------------------- columns against the query

COLUMNS = ["id", "name", "region", "updated_at"]
LISTED = "its columns are: id, name, region, updated_at"


def column_problems(target: list[str] | None = COLUMNS, **config: Any) -> list[str]:
    spec = UpsertSpec.build(validate("m", KIND, {"unique_key": "id", **config}))
    return spec.column_problems(COLUMNS, target)


def test_key_columns_must_be_returned_by_the_query() -> None:
    assert column_problems(unique_key="nope") == [
        f"unique_key: 'nope' is not a column of the model's query; {LISTED}"
    ]
    assert column_problems(unique_key=["ID", "concat(region, nope)"]) == [
        f"unique_key: 'concat(region, nope)' names nope, which is not a column of the "
        f"model's query; {LISTED}"
    ]


def test_merge_filter_columns_are_checked_per_side() -> None:
    assert column_problems(merge_filter="target.zzz > 0") == [
        "merge_filter: 'target.zzz > 0' names target.zzz, which is not a column of the "
        f"table (target); {LISTED}"
    ]
    assert column_problems(merge_filter="source.zzz > 0") == [
        "merge_filter: 'source.zzz > 0' names source.zzz, which is not a column of the "
        f"model's query (source); {LISTED}"
    ]
    assert column_problems(merge_filter="zzz > 0") == [
        "merge_filter: 'zzz > 0' names zzz, which is a column of neither the model's query "
        "(source: id, name, region, updated_at) nor the table (target: id, name, region, "
        "updated_at)"
    ]
    assert column_problems(merge_filter="t.region = 'eu'") == [
        "merge_filter: \"t.region = 'eu'\" names t.region: 't' is neither source (the model's "
        "query) nor target (the table); write source.<column> or target.<column>"
    ]


def test_good_references_pass() -> None:
    fine = (
        "target.updated_at < source.updated_at and region = 'eu' and updated_at < "
        "current_date and transform(array(id), x -> x + 1)[0] > 0 and Source.NAME is not null"
    )
    assert column_problems(merge_filter=fine) == []
    clause = "WHEN MATCHED AND source.id > 0 THEN UPDATE SET name = source.name, region = 'x'"
    assert column_problems(when_matched=clause) == []


def test_when_matched_conditions_values_and_assigned_columns_are_checked() -> None:
    clause = (
        "WHEN MATCHED AND source.nope > 1 THEN UPDATE SET name = source.bad, zz = 1 "
        "WHEN MATCHED THEN DELETE"
    )
    assert column_problems(when_matched=clause) == [
        "when_matched clause 1: 'source.nope > 1' names source.nope, which is not a column "
        f"of the model's query (source); {LISTED}",
        "when_matched clause 1: 'source.bad' names source.bad, which is not a column of the "
        f"model's query (source); {LISTED}",
        f"when_matched clause 1: UPDATE SET zz = ...: 'zz' is not a column of the table "
        f"(target); {LISTED}",
    ]


def test_an_unknown_target_is_not_checked() -> None:
    assert column_problems(None, merge_filter="target.zzz > 0 and t.x = 1 and zz = 1") == []
    assert column_problems(None, merge_filter="source.zzz > 0") != []


def test_incremental_predicates_are_named_as_such() -> None:
    spec = UpsertSpec.build(
        validate("m", KIND, {"unique_key": "id"}), None, ["DBT_INTERNAL_DEST.nope > 0"]
    )
    assert spec.column_problems(COLUMNS, COLUMNS) == [
        "incremental_predicates: 'target.nope > 0' names target.nope, which is not a column "
        f"of the table (target); {LISTED}"
    ]
