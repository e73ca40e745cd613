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


def test_the_row_hash_covers_the_other_columns_by_name_whatever_their_order() -> None:
    one = harness().call("vulcan_tracked_row_hash", spec(), "r")
    other = harness().call(
        "vulcan_tracked_row_hash", spec(["qty", "sku", "line_no", "invoice_id"]), "r"
    )
    assert (
        one
        == other
        == "sha2(to_json(named_struct('line_no', r.`line_no`, 'qty', r.`qty`, 'sku', r.`sku`)), 256)"
    )
    # a table of key columns only: every group has the same content
    assert harness().call("vulcan_tracked_row_hash", spec(["invoice_id"]), "r") == "sha2('', 256)"
    # the hash column itself is never hashed nor selected twice
    with_hash = spec([*NAMES, "_content_hash"])
    assert [v["name"] for v in with_hash["values"]] == ["line_no", "qty", "sku"]
    assert with_hash["columns"] == ["`invoice_id`", "`line_no`", "`sku`", "`qty`"]


def test_groups_are_hashed_order_independently_and_filtered_by_their_latest_row() -> None:
    plain = squash(harness().call("vulcan_tracked_groups_sql", spec(), "select 1"))
    assert "array_sort(collect_list(sha2(to_json(" in plain
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
    assert "max(`invoice_date`) as vulcan_group_time from s.t group by `invoice_id`" in sql
    assert (
        "or (vulcan_s.vulcan_present is null and (vulcan_t.vulcan_group_time >= CAST('2025-03-01' AS DATE)"
        in sql
    )
    assert "not (vulcan_s.vulcan_hash <=> vulcan_t.vulcan_hash)" in sql
    unbounded = squash(harness().call("vulcan_tracked_changes_sql", spec(), "s.g", "s.t"))
    assert "or (vulcan_s.vulcan_present is null)" in unbounded


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


def test_the_check_reads_the_stage_once_grouped_by_the_key() -> None:
    """One aggregation by the key (no scalar subquery per count, each a scan of the stage): a
    group holds a row twice when it has fewer distinct row hashes than rows; groups whose key
    has a NULL count as NULL keys, never as duplicates."""
    sql = squash(
        harness().call("vulcan_tracked_check_sql", spec(group_key=["region", "invoice_id"]), "s.g")
    )
    assert sql.count(" from s.g ") == 1 and sql.count("select") == 2, sql
    assert sql.startswith(
        "with vulcan_groups as (select `region`, `invoice_id`, count(*) as vulcan_rows, "
        "count(distinct sha2(to_json(named_struct('line_no', vulcan_g.`line_no`, 'qty', "
        "vulcan_g.`qty`, 'sku', vulcan_g.`sku`)), 256)) as vulcan_distinct from s.g as vulcan_g "
        "group by `region`, `invoice_id`)"
    )
    twice = "vulcan_rows > vulcan_distinct and not (`region` is null or `invoice_id` is null)"
    assert (
        "coalesce(sum(case when (`region` is null or `invoice_id` is null) then vulcan_rows end), 0) as null_keys"
        in sql
    )
    assert f"count(case when {twice} then 1 end) as duplicates" in sql
    assert (
        f"min(case when {twice} then to_json(named_struct('region', `region`, 'invoice_id', `invoice_id`)) end) as duplicate_example"
        in sql
    )
