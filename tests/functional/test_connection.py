"""`dbt debug` with type vulcan, and a real MERGE INTO on each format that supports it."""

from __future__ import annotations

from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture

from tests.support.functional import rows


class TestDebug:
    def test_debug_reports_adapter_and_connection(self, project: Any) -> None:
        _, log = run_dbt_and_capture(["debug"])
        assert "adapter type: vulcan" in log
        assert "OK connection ok" in log
        assert "All checks passed!" in log


@pytest.mark.profile_only("delta", "iceberg")
class TestMergeSmoke:
    def test_merge_into_runs_for_real(self, project: Any, table_format: str) -> None:
        t = f"{project.test_schema}.merge_smoke"
        project.run_sql(f"create table {t} (id int, v string) using {table_format}")
        project.run_sql(f"insert into {t} values (1, 'a'), (2, 'b')")
        project.run_sql(
            f"merge into {t} as target using (select 2 as id, 'B' as v union all "
            "select 3, 'c') as source on target.id = source.id "
            "when matched then update set v = source.v when not matched then insert *"
        )
        assert rows(project, f"select id, v from {t} order by id") == [(1, "a"), (2, "B"), (3, "c")]
