"""docs/guides/migrate-snapshots.md: its example, before (a dbt snapshot, timestamp strategy)
and after (scd_type_2_by_time with dbt's column names) as the page writes them, holds the same
versions after each of two runs over a changing menu (Delta: dbt-spark's snapshots need it)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.functional import rows, run
from tests.support.guides import guide_block

PAGE = "migrate-snapshots.md"
# step 1: three items; step 2: item 1 gets a new price, item 4 arrives, items 2 and 3 unchanged
MENU = """{{ config(materialized='view') }}
select id, name, price, updated_at from (
select *, row_number() over (partition by id order by updated_at desc) as n from values
  (1, 'Sandwich', 10.99D, timestamp'2025-01-01 00:00:00', 1),
  (2, 'Burger', 8.99D, timestamp'2025-01-01 00:00:00', 1),
  (3, 'Fries', 4.99D, timestamp'2025-01-01 00:00:00', 1),
  (1, 'Sandwich', 12.99D, timestamp'2025-01-02 00:00:00', 2),
  (4, 'Shake', 3.99D, timestamp'2025-01-02 00:00:00', 2)
  as t(id, name, price, updated_at, step)
where step <= {{ var('step', 1) }}
) where n = 1
"""
COLUMNS = "id, name, price, updated_at, dbt_valid_from, dbt_valid_to"


@pytest.mark.skip_profile(
    "parquet", reason="dbt-spark's snapshots need Delta, Iceberg or Hudi (the Delta lane runs it)"
)
class TestSnapshotConverted:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "menu.sql": MENU,
            "menu_history.sql": guide_block(PAGE, "after: models/menu_history.sql"),
        }

    @pytest.fixture(scope="class")
    def snapshots(self) -> dict[str, str]:
        return {"menu_snapshot.sql": guide_block(PAGE, "before: snapshots/menu_snapshot.sql")}

    def test_the_converted_model_keeps_the_snapshot_s_versions(self, project: Any) -> None:
        schema = project.test_schema

        def table(name: str) -> list[tuple[Any, ...]]:
            return rows(project, f"select {COLUMNS} from {schema}.{name} order by 1, 5")

        for step in (1, 2):
            run("build", vars={"step": step})
            assert table("menu_history") == table("menu_snapshot"), step
        history = table("menu_history")
        assert len(history) == 5
        assert [r[5] is None for r in history if r[0] == 1] == [False, True]
