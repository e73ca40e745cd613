"""docs/guides/migrate-merge.md: its example, before (dbt-spark's merge with
merge_update_columns) and after (incremental_by_unique_key with when_matched) as the page writes
them, holds the same rows after each of two runs over changing input (Delta: dbt-spark's merge
needs it)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.functional import rows, run
from tests.support.guides import guide_block

PAGE = "migrate-merge.md"
# step 1: customers 1-3; step 2: customer 2 changes name and email (the name is not updated by
# either model), customer 1 changes email, customer 4 arrives
CHANGES = """{{ config(materialized='view') }}
select customer_id, name, email, updated_at from (
select *, row_number() over (partition by customer_id order by updated_at desc) as n from values
  (1, 'Ann', 'ann@a.com', timestamp'2025-01-01 10:00:00', 1),
  (2, 'Bob', 'bob@a.com', timestamp'2025-01-01 11:00:00', 1),
  (3, 'Cy', 'cy@a.com', timestamp'2025-01-01 12:00:00', 1),
  (2, 'Robert', 'robert@b.com', timestamp'2025-01-02 09:00:00', 2),
  (4, 'Di', 'di@a.com', timestamp'2025-01-02 10:00:00', 2),
  (1, 'Ann', 'ann@c.com', timestamp'2025-01-02 08:00:00', 2)
  as t(customer_id, name, email, updated_at, step)
where step <= {{ var('step', 1) }}
) where n = 1
"""


@pytest.mark.skip_profile(
    "parquet", reason="dbt-spark's merge needs Delta, Iceberg or Hudi (the Delta lane runs it)"
)
class TestMergeConverted:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "customer_changes.sql": CHANGES,
            "before_customers.sql": guide_block(PAGE, "before: models/customers.sql"),
            "after_customers.sql": guide_block(PAGE, "after: models/customers.sql"),
        }

    def test_the_converted_model_gives_merge_s_rows(self, project: Any) -> None:
        schema = project.test_schema

        def table(name: str) -> list[tuple[Any, ...]]:
            return rows(project, f"select * from {schema}.{name} order by 1")

        for step in (1, 2):
            run("run", vars={"step": step})
            assert table("after_customers") == table("before_customers"), step
        after = table("after_customers")
        assert [(r[0], r[1], r[2]) for r in after] == [
            (1, "Ann", "ann@c.com"),
            (2, "Bob", "robert@b.com"),
            (3, "Cy", "cy@a.com"),
            (4, "Di", "di@a.com"),
        ]
