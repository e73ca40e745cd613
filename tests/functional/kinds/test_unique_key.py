"""incremental_by_unique_key on a real SparkSession (--profile picks parquet, delta or iceberg;
--mode adapter or package: the kind runs from the dbt_vulcan package in both).

Most models read one "run" of the seed `changes` (`where run = var('run')`), so each dbt run
upserts a known batch; the test compares the whole table after each run.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import date
from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture

from tests.support.functional import (
    STATE,
    data_files,
    days,
    model_message,
    orders_csv,
    processed_rows,
    rows,
    run,
    state_rows,
    table_commits,
    table_rows,
)

KIND = "incremental_by_unique_key"
EXEC = "vulcan_execution_time"

# run 1: first load; run 2: update 2 and 3, insert 4, 1 absent; run 3: delete 1 (by
# when_matched), cheaper 2, dearer 3; run 4: 2 moves to eu, 5 new in apac; run 5: NULL keys;
# run 9: a duplicate key
CHANGES = """run,id,name,email,price,category,region
1,1,Ann,ann@x.com,10.0,books,eu
1,2,Bob,bob@x.com,20.0,games,us
1,3,Cid,,30.0,toys,eu
2,2,Bobby,,25.0,,us
2,3,Cid,cid@x.com,,games,eu
2,4,Dee,dee@x.com,40.0,books,eu
3,1,DELETE,,1.0,books,eu
3,2,Bob,bob@x.com,5.0,games,us
3,3,Cyd,cid@x.com,99.0,toys,eu
4,2,Bob,bob@x.com,21.0,games,eu
4,3,Cid,,31.0,toys,eu
4,5,Eve,eve@x.com,50.0,toys,apac
5,,Nil,nil@x.com,1.0,misc,eu
5,,Nil,nil@x.com,2.0,misc,eu
9,1,Ann,ann@x.com,10.0,books,eu
9,6,Fay,fay@x.com,60.0,toys,eu
9,1,Anne,ann@x.com,11.0,books,eu
"""

ITEMS = """run,order_id,product_id,quantity
1,1,1,2
1,1,2,1
1,2,1,5
2,1,2,7
2,2,2,1
"""

CONTACTS = """run,email,name
1,Ann@X.com,ann
1,,anon
2,ann@x.com,ann2
2,,anon2
2,c@x.com,c
"""

COLUMNS = "id, name, email, price, category, region"
BODY = (
    "select id, name, email, price, category, region from {{ ref('changes') }} "
    "where run = {{ var('run', 1) }}"
)
RUN1 = [
    (1, "Ann", "ann@x.com", 10.0, "books", "eu"),
    (2, "Bob", "bob@x.com", 20.0, "games", "us"),
    (3, "Cid", None, 30.0, "toys", "eu"),
]
RUN2 = [
    (2, "Bobby", None, 25.0, None, "us"),
    (3, "Cid", "cid@x.com", None, "games", "eu"),
    (4, "Dee", "dee@x.com", 40.0, "books", "eu"),
]


def model(body: str = BODY, **config: Any) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in {"materialized": KIND, **config}.items())
    return "{{ config(" + args + ") }}\n" + body


def upsert(name: str, run_no: int, *flags: str, expect_pass: bool = True) -> Any:
    return run("run", "-s", name, *flags, vars={"run": run_no}, expect_pass=expect_pass)


def table(project: Any, name: str, columns: str = COLUMNS, order_by: str = "1, 2") -> list:
    return table_rows(project, name, columns, order_by)


class TestUpsert:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"changes.csv": CHANGES, "items.csv": ITEMS, "contacts.csv": CONTACTS}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        keep_email = (
            "WHEN MATCHED THEN UPDATE SET target.email = COALESCE(source.email, target.email)"
        )
        return {
            "upsert.sql": model(unique_key="id"),
            "upsert_dup.sql": model(unique_key="id"),
            "upsert_nulls.sql": model(unique_key="id"),
            "upsert_refresh.sql": model(unique_key="id"),
            "upsert_parts.sql": model(unique_key="id", partition_by=["region"]),
            "unchanged.sql": model(unique_key="id"),
            "unchanged_parts.sql": model(unique_key="id", partition_by=["region"]),
            # batches of a time range (`start`): the MERGE compares through a semi join
            "unchanged_ranged.sql": model(unique_key="id", start="2025-01-01", batch_size=1000),
            "with_map.sql": model(
                "select id, name, map('price', price) as m from {{ ref('changes') }} "
                "where run = {{ var('run', 1) }}",
                unique_key="id",
            ),
            "composite.sql": model(
                "select order_id, product_id, quantity from {{ ref('items') }} "
                "where run = {{ var('run', 1) }}",
                unique_key=["order_id", "product_id"],
            ),
            "by_email.sql": model(
                "select email, name from {{ ref('contacts') }} where run = {{ var('run', 1) }}",
                unique_key="COALESCE(lower(email), '')",
            ),
            "keep_email.sql": model(unique_key="id", when_matched=keep_email),
            # the spec's products_update example
            "multi_clause.sql": model(
                unique_key="id",
                when_matched=[
                    "WHEN MATCHED AND source.price IS NULL THEN UPDATE SET "
                    "target.price = target.price",
                    "WHEN MATCHED THEN UPDATE SET "
                    "target.category = COALESCE(source.category, target.category)",
                ],
            ),
            "conditional.sql": model(
                unique_key="id",
                when_matched=(
                    "WHEN MATCHED AND source.name = 'DELETE' THEN DELETE\n"
                    "WHEN MATCHED AND source.price > target.price THEN UPDATE SET *"
                ),
            ),
            "filtered.sql": model(
                unique_key="id",
                merge_filter="source.region = 'eu' AND target.price < @execution_epoch",
            ),
            "bad_clause.sql": model(
                unique_key="id",
                when_matched="WHEN MATCHED THEN UPDATE SET name = 'x' WHEN NOT MATCHED THEN DELETE",
            ),
        }

    @pytest.fixture(scope="class", autouse=True)
    def seeded(self, project: Any) -> None:
        run("seed")

    def test_first_run_then_upsert(self, project: Any) -> None:
        upsert("upsert", 1)
        assert table(project, "upsert") == RUN1
        upsert("upsert", 2)
        # 1 is absent from the batch: untouched; 2 and 3 updated (every column); 4 inserted
        assert table(project, "upsert") == [RUN1[0], *RUN2]
        # without `start` no interval is tracked: each run is recorded as an empty range
        recorded = state_rows(project, "upsert")
        assert [(t, s == e) for s, e, t in recorded] == [("processed", True)] * 2

    def test_composite_key(self, project: Any) -> None:
        upsert("composite", 1)
        upsert("composite", 2)
        assert table(project, "composite", "order_id, product_id, quantity") == [
            (1, 1, 2),
            (1, 2, 7),
            (2, 1, 5),
            (2, 2, 1),
        ]

    def test_key_expression(self, project: Any) -> None:
        upsert("by_email", 1)
        upsert("by_email", 2)
        # lower(email) matches 'Ann@X.com'; COALESCE makes the NULL emails one key ('')
        assert table(project, "by_email", "email, name") == [
            (None, "anon2"),
            ("ann@x.com", "ann2"),
            ("c@x.com", "c"),
        ]

    def test_when_matched_keeps_target_value(self, project: Any) -> None:
        upsert("keep_email", 1)
        upsert("keep_email", 2)
        # only email is set on a match (a NULL keeps the stored one); new keys are inserted whole
        assert table(project, "keep_email") == [
            RUN1[0],
            (2, "Bob", "bob@x.com", 20.0, "games", "us"),
            (3, "Cid", "cid@x.com", 30.0, "toys", "eu"),
            RUN2[2],
        ]

    def test_multiple_when_matched_clauses(self, project: Any) -> None:
        upsert("multi_clause", 1)
        upsert("multi_clause", 2)
        assert table(project, "multi_clause") == [
            RUN1[0],
            # price not NULL: second clause, category = COALESCE(NULL, 'games')
            (2, "Bob", "bob@x.com", 20.0, "games", "us"),
            # price NULL: the first clause applies (keeps price) and the second does not
            (3, "Cid", None, 30.0, "toys", "eu"),
            RUN2[2],
        ]

    def test_conditional_update_and_delete(self, project: Any) -> None:
        upsert("conditional", 1)
        upsert("conditional", 3)
        assert table(project, "conditional") == [
            # 1 deleted; 2 cheaper: no clause holds, unchanged; 3 dearer: every column updated
            RUN1[1],
            (3, "Cyd", "cid@x.com", 99.0, "toys", "eu"),
        ]

    def test_merge_filter_and_its_caveat(self, project: Any) -> None:
        upsert("filtered", 1)
        run("run", "-s", "filtered", vars={"run": 2, EXEC: "2025-01-02"})
        # 3 (eu) matches and is updated; 2 (us) fails the filter, so it is not matched and is
        # inserted as a NEW row: the key now appears twice (the documented caveat)
        assert table(project, "filtered", order_by="1, 2") == [
            RUN1[0],
            (2, "Bob", "bob@x.com", 20.0, "games", "us"),
            RUN2[0],
            RUN2[1],
            RUN2[2],
        ]

    def test_duplicate_keys_fail_and_leave_the_table_untouched(self, project: Any) -> None:
        upsert("upsert_dup", 1)
        result = upsert("upsert_dup", 9, expect_pass=False)
        message = model_message(result)
        assert "upsert_dup" in message
        assert "duplicate unique_key" in message
        assert "(id) = (1)" in message
        assert table(project, "upsert_dup") == RUN1
        # 6, in the same batch, was not inserted either; the next good batch works
        upsert("upsert_dup", 2)
        assert table(project, "upsert_dup") == [RUN1[0], *RUN2]

    def test_null_keys_never_match(self, project: Any) -> None:
        # two NULL keys in one batch are not duplicates; a rerun inserts them again
        upsert("upsert_nulls", 5)
        upsert("upsert_nulls", 5)
        assert table(project, "upsert_nulls", "id, name, price", "3") == [
            (None, "Nil", 1.0),
            (None, "Nil", 1.0),
            (None, "Nil", 2.0),
            (None, "Nil", 2.0),
        ]

    def test_full_refresh_rebuilds_from_the_query(self, project: Any) -> None:
        upsert("upsert_refresh", 1)
        upsert("upsert_refresh", 2, "--full-refresh")
        assert table(project, "upsert_refresh") == RUN2

    def test_partitioned_rewrites_only_touched_partitions(
        self, project: Any, table_format: str
    ) -> None:
        upsert("upsert_parts", 1)
        upsert("upsert_parts", 4)
        assert table(project, "upsert_parts") == [
            RUN1[0],
            (2, "Bob", "bob@x.com", 21.0, "games", "eu"),
            (3, "Cid", None, 31.0, "toys", "eu"),
            (5, "Eve", "eve@x.com", 50.0, "toys", "apac"),
        ]
        if table_format == "parquet":
            # 2 moved from us to eu: the emptied partition is dropped, not left behind
            partitions = rows(project, f"show partitions {project.test_schema}.upsert_parts")
            assert sorted(p[0] for p in partitions) == ["region=apac", "region=eu"]

    def recorded_columns(self, project: Any) -> None:
        """The table's columns and types ride on the state row: the next run reads nothing."""
        details = rows(
            project,
            f"select details from {STATE} "
            f"where relation = '{project.test_schema.lower()}.unchanged' "
            "and row_type = 'processed' order by recorded_at desc, seq desc limit 1",
        )[0][0]
        recorded = json.loads(details)
        assert recorded["table_columns"] == ["id", "name", "email", "price", "category", "region"]
        assert recorded["table_types"][0] in ("int", "bigint")

    def test_a_time_range_batch_with_no_change_writes_nothing(
        self, project: Any, table_format: str
    ) -> None:
        """A model with `start`: its MERGE leaves unchanged rows out through a semi join on the
        batch's keys (unique_key_sql.sql); a processed day run again with the same rows
        writes nothing, and a changed row in it is written."""
        upsert("unchanged_ranged", 1)
        commits = table_commits(project, "unchanged_ranged", table_format)
        files = data_files(project, "unchanged_ranged")
        day = {"vulcan_start": "2025-01-01", "vulcan_end": "2025-01-01"}
        run("run", "-s", "unchanged_ranged", vars={"run": 1, **day})
        assert table(project, "unchanged_ranged") == RUN1
        after = table_commits(project, "unchanged_ranged", table_format)
        if table_format == "parquet":
            assert data_files(project, "unchanged_ranged") == files
        elif table_format == "delta":
            assert after == commits
        elif table_format == "iceberg":
            assert len(after) == len(commits) + 1
            assert after[-1].get("added-data-files", "0") == "0"
        run("run", "-s", "unchanged_ranged", vars={"run": 2, **day})
        merged = {r[0]: r for r in RUN1} | {r[0]: r for r in RUN2}
        assert table(project, "unchanged_ranged") == [merged[k] for k in sorted(merged)]

    def test_rows_that_did_not_change_are_not_written(
        self, project: Any, table_format: str
    ) -> None:
        upsert("unchanged", 1)
        commits = table_commits(project, "unchanged", table_format)
        files = data_files(project, "unchanged")
        # the same rows again: nothing changed, nothing written
        upsert("unchanged", 1)
        assert table(project, "unchanged") == RUN1
        after = table_commits(project, "unchanged", table_format)
        unchanged_files = data_files(project, "unchanged")
        if table_format == "parquet":  # no overwrite: the same files
            assert unchanged_files == files
        elif table_format == "delta":
            assert after == commits
        elif table_format == "iceberg":
            # Iceberg's MERGE commits an empty snapshot (apache/iceberg#9024): no data file
            assert len(after) == len(commits) + 1
            assert after[-1].get("added-data-files", "0") == "0"
            assert after[-1].get("deleted-data-files", "0") == "0"
        if table_format != "parquet":  # the MERGE's columns (parquet describes its layout)
            self.recorded_columns(project)
        # run 4: 2 and 3 changed, 5 new; 1 is not in the batch
        upsert("unchanged", 4)
        after_run4 = [
            RUN1[0],
            (2, "Bob", "bob@x.com", 21.0, "games", "eu"),  # moved from partition us
            (3, "Cid", None, 31.0, "toys", "eu"),
            (5, "Eve", "eve@x.com", 50.0, "toys", "apac"),
        ]
        assert table(project, "unchanged") == after_run4
        if table_format == "delta":
            metrics = table_commits(project, "unchanged", table_format)[-1]
            assert (metrics["numTargetRowsUpdated"], metrics["numTargetRowsInserted"]) == (
                "2",
                "1",
            )
        files = data_files(project, "unchanged")
        assert files != unchanged_files  # a change is written
        # run 4 again: nothing changes, nothing written; then run 1: 1 unchanged, 2 and 3
        # change back
        upsert("unchanged", 4)
        assert data_files(project, "unchanged") == files
        upsert("unchanged", 1)
        assert data_files(project, "unchanged") != files
        if table_format == "delta":
            metrics = table_commits(project, "unchanged", table_format)[-1]
            assert (metrics["numTargetRowsUpdated"], metrics["numTargetRowsInserted"]) == (
                "2",
                "0",
            )
        assert table(project, "unchanged") == [*RUN1, (5, "Eve", "eve@x.com", 50.0, "toys", "apac")]
        # partitioned (on parquet the batch's partitions are rewritten, only on a change)
        upsert("unchanged_parts", 1)
        files = data_files(project, "unchanged_parts")
        upsert("unchanged_parts", 1)
        assert data_files(project, "unchanged_parts") == files
        upsert("unchanged_parts", 4)
        assert data_files(project, "unchanged_parts") != files
        assert table(project, "unchanged_parts") == after_run4

    def test_a_map_column_still_upserts_every_matched_row(self, project: Any) -> None:
        # a map has no `<=>`: every matched row is updated, as without the comparison
        upsert("with_map", 1)
        upsert("with_map", 1)
        upsert("with_map", 4)
        got = rows(
            project,
            f"select id, name, m['price'] from {project.test_schema}.with_map order by id",
        )
        assert got == [(1, "Ann", 10.0), (2, "Bob", 21.0), (3, "Cid", 31.0), (5, "Eve", 50.0)]

    def test_invalid_when_matched_refused_before_any_write(self, project: Any) -> None:
        result = upsert("bad_clause", 1, expect_pass=False)
        message = model_message(result)
        assert "bad_clause" in message and "when_matched" in message
        assert "only WHEN MATCHED clauses are allowed" in message
        tables = rows(project, f"show tables in {project.test_schema} like 'bad_clause'")
        assert tables == []


ORDERS_BODY = """
select customer_id, max(order_date) as last_order_date, count(*) as orders,
       sum(total_amount) as amount
from {{ ref('raw_orders') }}
where order_date between @start_ds and @end_ds
group by customer_id
"""


def last_batch_values(batches: list[tuple[str, int]]) -> list[tuple[int, date, int, float]]:
    """Per customer, the values of the last batch with orders: (customer, last date, n, sum)
    for orders_csv() (3 orders a day, customer = order_id % 7 + 1)."""
    out: dict[int, tuple[int, date, int, float]] = {}
    for first, count in batches:
        per: dict[int, list[tuple[date, int]]] = {}
        for day in days(first, count):
            offset = (day - date(2025, 1, 1)).days
            for order_id in (offset * 3 + k for k in (1, 2, 3)):
                per.setdefault(order_id % 7 + 1, []).append((day, order_id))
        for customer, orders in per.items():
            total = sum(o * 10 + 0.5 for _, o in orders)
            out[customer] = (customer, max(d for d, _ in orders), len(orders), total)
    return [out[c] for c in sorted(out)]


class TestBatched:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=12)}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "customer_latest.sql": model(
                ORDERS_BODY, unique_key="customer_id", start="2025-01-01", batch_size=3
            ),
            "customer_restated.sql": model(
                ORDERS_BODY, unique_key="customer_id", start="2025-01-01"
            ),
        }

    @pytest.fixture(scope="class", autouse=True)
    def seeded(self, project: Any) -> None:
        run("seed")

    def test_batches_upsert_in_order_and_are_recorded(self, project: Any) -> None:
        _, log = run_dbt_and_capture(
            ["run", "-s", "customer_latest", "--vars", '{"vulcan_execution_time": "2025-01-08"}']
        )
        assert "[1/3]" in log and "[upsert 2025-01-04 - 2025-01-06]" in log
        assert processed_rows(project, "customer_latest") == [
            ("2025-01-01 00:00:00", "2025-01-04 00:00:00"),
            ("2025-01-04 00:00:00", "2025-01-07 00:00:00"),
            ("2025-01-07 00:00:00", "2025-01-08 00:00:00"),
        ]
        columns = "customer_id, last_order_date, orders, amount"
        expected = last_batch_values([("2025-01-01", 3), ("2025-01-04", 3), ("2025-01-07", 1)])
        assert table(project, "customer_latest", columns, "1") == expected
        # a later run processes only the new days, as one more batch
        run("run", "-s", "customer_latest", vars={EXEC: "2025-01-10"})
        assert processed_rows(project, "customer_latest")[3:] == [
            ("2025-01-08 00:00:00", "2025-01-10 00:00:00")
        ]
        expected = last_batch_values(
            [("2025-01-01", 3), ("2025-01-04", 3), ("2025-01-07", 1), ("2025-01-08", 2)]
        )
        assert table(project, "customer_latest", columns, "1") == expected

    def test_restatement_is_full_history(self, project: Any) -> None:
        columns = "customer_id, last_order_date, orders, amount"
        run("run", "-s", "customer_restated", vars={EXEC: "2025-01-05"})
        run("run", "-s", "customer_restated", vars={EXEC: "2025-01-07"})
        two_batches = last_batch_values([("2025-01-01", 4), ("2025-01-05", 2)])
        assert table(project, "customer_restated", columns, "1") == two_batches
        run(
            "run-operation",
            "vulcan_restate",
            "--args",
            "{select: customer_restated, start: '2025-01-06', end: '2025-01-06'}",
        )
        run("run", "-s", "customer_restated", vars={EXEC: "2025-01-07"})
        # the one-day request was widened to the whole history: rebuilt in one batch
        assert table(project, "customer_restated", columns, "1") == last_batch_values(
            [("2025-01-01", 6)]
        )
        kinds = Counter(t for _, _, t in state_rows(project, "customer_restated"))
        assert kinds["removed"] >= 2
        assert processed_rows(project, "customer_restated")[-1] == (
            "2025-01-01 00:00:00",
            "2025-01-07 00:00:00",
        )
