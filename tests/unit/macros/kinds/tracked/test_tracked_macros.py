# ruff: noqa: E501
"""The tracked kind's SQL builders (macros/kinds/tracked/tracked_sql.sql), rendered: the checks
of the config against the query's columns, the hash that ignores column order, the window
test, and the statements' shape. What the SQL computes is checked on real Spark against the
oracle (tests/functional/kinds/test_tracked.py)."""

from __future__ import annotations

from typing import Any

from tests.support.macro_harness import Harness, shared_harness, squash

CFG: dict[str, Any] = {
    "model": "invoices",
    "kind": "tracked",
    "group_key": ["invoice_id"],
    "content_hash_column": "_content_hash",
}
NAMES = ["invoice_id", "line_no", "sku", "qty"]


def harness() -> Harness:
    return shared_harness("vulcan")


def spec(names: list[str] = NAMES, window: dict[str, Any] | None = None, **cfg: Any) -> Any:
    return harness().call("vulcan_tracked_spec", {**CFG, **cfg}, names, window)


def test_problems_name_every_missing_key_column_and_a_clashing_hash_column() -> None:
    problems = harness().call(
        "vulcan_tracked_column_problems",
        {**CFG, "group_key": ["invoice_no", "Region"], "content_hash_column": "SKU"},
        ["invoice_id", "region", "sku"],
    )
    assert problems == [
        "group_key: 'invoice_no' is not a column of the model's query; its columns are: invoice_id, region, sku",
        "content_hash_column: 'SKU' is a column of the model's query, and the table keeps each "
        "group's content hash there: rename the query's column or set content_hash_column to another name",
    ]
    assert harness().call("vulcan_tracked_column_problems", CFG, NAMES) == []


def test_a_row_s_content_is_the_other_columns_by_name_whatever_their_order() -> None:
    one = harness().call("vulcan_tracked_row_value", spec(), "r")
    other = harness().call(
        "vulcan_tracked_row_value", spec(["qty", "sku", "line_no", "invoice_id"]), "r"
    )
    assert one == other == "named_struct('line_no', r.`line_no`, 'qty', r.`qty`, 'sku', r.`sku`)"
    # a column that does not sort (a map: `complex`, from its type) is its JSON text
    complex_spec = harness().call("vulcan_tracked_spec", CFG, [*NAMES, "Attrs"], None, ["attrs"])
    assert harness().call("vulcan_tracked_row_value", complex_spec, "r") == (
        "named_struct('attrs', to_json(r.`Attrs`, map('timeZone', 'UTC')), 'line_no', r.`line_no`, 'qty', r.`qty`, "
        "'sku', r.`sku`)"
    )
    # a table of key columns only: every row of a group has the same content
    assert harness().call("vulcan_tracked_row_value", spec(["invoice_id"]), "r") == "0"
    # the hash column itself is never hashed nor selected twice
    with_hash = spec([*NAMES, "_content_hash"])
    assert [v["name"] for v in with_hash["values"]] == ["line_no", "qty", "sku"]
    assert with_hash["columns"] == ["`invoice_id`", "`line_no`", "`sku`", "`qty`"]


def test_groups_are_hashed_order_independently_and_filtered_by_their_latest_row() -> None:
    plain = squash(harness().call("vulcan_tracked_groups_sql", spec(), "select 1"))
    assert "collect_list(named_struct('line_no', vulcan_rows.`line_no`," in plain
    # one JSON text and one hash per group; a group holding a row twice: a NULL hash
    # (reported as 'duplicate' by the changes)
    assert plain.startswith(
        "select `invoice_id`, `line_no`, `sku`, `qty`, case when size(vulcan_group) = "
        "size(array_distinct(vulcan_group)) then sha2(to_json(array_sort(vulcan_group), map('timeZone', 'UTC')), 256) end as `_content_hash`"
    )
    assert plain.count("sha2(") == 1 and plain.count("to_json(") == 1
    assert (
        "over (partition by vulcan_rows.`invoice_id`)" in plain
        and "where" not in plain.split("as vulcan_rows")[-1]
    )
    window = {
        "column": "invoice_date",
        "start": "2025-03-01 00:00:00",
        "end": "2025-03-03 12:00:00",
        "time_type": "date",
        "time_format": None,
    }
    windowed = squash(harness().call("vulcan_tracked_groups_sql", spec(window=window), "select 1"))
    assert (
        ", max(vulcan_rows.`invoice_date`) over (partition by vulcan_rows.`invoice_id`) as vulcan_group_time"
        in windowed
    )
    assert windowed.endswith(
        "where (vulcan_hashed.vulcan_group_time >= CAST('2025-03-01' AS DATE) AND vulcan_hashed.vulcan_group_time < CAST('2025-03-04' AS DATE))"
    )


def test_changes_delete_only_the_windows_groups() -> None:
    window = {
        "column": "invoice_date",
        "start": "2025-03-01 00:00:00",
        "end": "2025-03-02 00:00:00",
        "time_type": "date",
        "time_format": None,
    }
    sql = squash(harness().call("vulcan_tracked_changes_sql", spec(window=window), "s.g", "s.t"))
    assert "max(`invoice_date`) as vulcan_group_time from s.t group by `invoice_id`)" in sql
    assert (
        "when vulcan_s.vulcan_rows is null and (vulcan_t.vulcan_group_time >= CAST('2025-03-01' AS DATE)"
        in sql
    )
    assert "vulcan_s.vulcan_hash <> vulcan_t.vulcan_hash then 'replace'" in sql
    unbounded = squash(harness().call("vulcan_tracked_changes_sql", spec(), "s.g", "s.t"))
    assert "when vulcan_s.vulcan_rows is null then 'delete'" in unbounded


def test_changes_report_the_rules_broken_in_a_hash_aggregation_by_key_and_hash() -> None:
    """Each side read once, aggregated by the key on fixed-width values (the hash string's
    xxhash64: a hash aggregation, not the sort a string's max takes); the NULL keys and the
    groups holding a row twice come out of the same statement, before the kinds of change."""
    sql = squash(
        harness().call(
            "vulcan_tracked_changes_sql", spec(group_key=["region", "invoice_id"]), "s.g", "s.t"
        )
    )
    assert sql.count(" from s.g ") == 1 and sql.count(" from s.t ") == 1, sql
    assert (
        "from (select `region`, `invoice_id`, max(xxhash64(`_content_hash`)) as vulcan_hash, "
        "bool_or(`_content_hash` is null) as vulcan_twice, count(*) as vulcan_rows "
        "from s.g group by `region`, `invoice_id`) as vulcan_s" in sql
    )
    assert (
        "full outer join (select `region`, `invoice_id`, max(xxhash64(`_content_hash`)) as vulcan_hash, "
        "true as vulcan_present from s.t group by `region`, `invoice_id`) as vulcan_t" in sql
    )
    assert (
        "case when vulcan_s.vulcan_rows is not null and (vulcan_s.`region` is null or vulcan_s.`invoice_id` is null) then 'null_key' "
        "when vulcan_s.vulcan_twice then 'duplicate' "
        "when vulcan_t.vulcan_present is null then 'insert'" in sql
    )
    assert sql.endswith(") as vulcan_changes where vulcan_change is not null")
    # a table built by this run: every group new, the rules checked alike, no table read
    new = squash(
        harness().call(
            "vulcan_tracked_changes_sql", spec(group_key=["region", "invoice_id"]), "s.g"
        )
    )
    assert " from s.t" not in new and "else 'insert' end as vulcan_change" in new


def test_the_counts_are_the_check_and_the_summary_in_one_statement() -> None:
    sql = squash(
        harness().call(
            "vulcan_tracked_counts_sql", spec(group_key=["region", "invoice_id"]), "s.c", "s.g"
        )
    )
    assert sql == (
        "select vulcan_change, count(*) as vulcan_groups, sum(vulcan_rows) as vulcan_rows, "
        "min(to_json(named_struct('region', `region`, 'invoice_id', `invoice_id`))) as vulcan_example "
        "from s.c as vulcan_c group by vulcan_change union all select 'groups', count(*), null, null "
        "from (select `region`, `invoice_id` from s.g group by `region`, `invoice_id`) as vulcan_k"
    )


def test_problems_from_the_counts() -> None:
    cfg = {**CFG, "group_key": ["region", "invoice_id"]}
    found = {
        "null_key": ["null_key", 2, 3, "{}"],
        "duplicate": ["duplicate", 1, 2, '{"region":"eu","invoice_id":7}'],
        "insert": ["insert", 4, 9, "{}"],
    }
    assert harness().call("_vulcan_tracked_problems", cfg, found) == [
        "group_key (region, invoice_id) is NULL in 3 rows of the query; every row needs its group's key",
        '1 group holds the same row more than once (e.g. the group {"region":"eu","invoice_id":7}), '
        "which makes the group ambiguous: a group is a set of distinct rows; add a column that tells "
        "them apart (a line number) or select distinct",
    ]
    assert harness().call("_vulcan_tracked_problems", cfg, {"insert": found["insert"]}) == []


def test_one_merge_deletes_changed_groups_and_inserts_their_rows() -> None:
    sql = squash(
        harness().call(
            "vulcan_tracked_merge_sql",
            spec(group_key=["region", "invoice_id"]),
            "s.t",
            "s.g",
            "s.c",
        )
    )
    assert sql.startswith("merge into s.t as vulcan_target using (")
    assert (
        "select `region` as __vulcan_k0, `invoice_id` as __vulcan_k1, 'delete' as __vulcan_op from s.c where vulcan_change <> 'insert'"
        in sql
    )
    assert (
        "on vulcan_source.__vulcan_op = 'delete' and vulcan_target.`region` <=> vulcan_source.__vulcan_k0 and vulcan_target.`invoice_id` <=> vulcan_source.__vulcan_k1"
        in sql
    )
    assert sql.endswith(
        "when matched then delete when not matched and vulcan_source.__vulcan_op = 'insert' then insert "
        "(`invoice_id`, `line_no`, `sku`, `qty`, `_content_hash`) values (vulcan_source.`invoice_id`, "
        "vulcan_source.`line_no`, vulcan_source.`sku`, vulcan_source.`qty`, vulcan_source.`_content_hash`)"
    )


def test_columns_hashed_as_json_are_the_ones_of_a_type_that_may_not_sort() -> None:
    from types import SimpleNamespace

    columns = [
        SimpleNamespace(name=name, dtype=dtype)
        for name, dtype in [
            ("invoice_id", "int"),
            ("sku", "string"),
            ("attrs", "map<string,string>"),
            ("tags", "array<string>"),
            ("address", "struct<city:string,zip:string>"),
            ("payload", "variant"),
            ("price", "decimal(10,2)"),
        ]
    ]
    assert harness().call("_vulcan_tracked_complex", columns) == [
        "attrs",
        "tags",
        "address",
        "payload",
    ]
