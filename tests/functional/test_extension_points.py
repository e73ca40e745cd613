"""The documented extension points (docs/architecture.md, "Where the modes differ"), in both
modes: a project's own write strategy `vulcan_<kind>_<file_format>` is found before the
package's, and a project's `spark__vulcan_create_empty_table` replaces the package's through
the `dispatch:` block for the `dbt_vulcan` namespace."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from tests.support.functional import processed_rows, rows, run, table_rows

EVENTS = """id,day,amount
1,2025-01-01,10
2,2025-01-02,20
3,2025-01-03,30
4,2025-01-04,40
"""

MODEL = """
{{ config(materialized='incremental_by_time_range', time_column='day', start='2025-01-01',
          batch_size=2,
          pre_hook="create table if not exists {{ this.schema }}.strategy_calls (label string)
                    using parquet") }}
select cast(day as date) as day, sum(amount) as amount
from {{ ref('raw_events') }}
where cast(day as date) between @start_ds and @end_ds
group by 1
"""

# the project's strategy for every format: the package's write, then one row per batch
STRATEGIES = "\n".join(
    f"""{{% macro vulcan_time_range_{fmt}(args) %}}
  {{% do dbt_vulcan.vulcan_time_range_{fmt}(args) %}}
  {{% do run_query("insert into " ~ args.relation.schema ~ ".strategy_calls"
                   ~ " values ('" ~ args.batch.label ~ "')") %}}
{{% endmacro %}}"""
    for fmt in ("parquet", "delta", "iceberg")
)

# the project's table creation: the package's, then a table property of its own
CREATE = """
{% macro spark__vulcan_create_empty_table(relation, sql, cfg, replace=false, columns=none) %}
  {% do dbt_vulcan.default__vulcan_create_empty_table(relation, sql, cfg, replace, columns) %}
  {% do run_query("alter table " ~ relation ~ " set tblproperties ('created_by' = 'project')") %}
{% endmacro %}
"""


@pytest.mark.profile_only("parquet")  # not about a table format: once per mode
class TestExtensionPoints:
    @pytest.fixture(scope="class")
    def project_config_update(self) -> dict[str, Any]:
        return {
            "dispatch": [{"macro_namespace": "dbt_vulcan", "search_order": ["test", "dbt_vulcan"]}]
        }

    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_events.csv": EVENTS}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"daily.sql": MODEL}

    @pytest.fixture(scope="class")
    def macros(self) -> dict[str, str]:
        return {"strategies.sql": STRATEGIES, "create.sql": CREATE}

    def test_the_project_s_strategy_and_table_creation_are_used(self, project: Any) -> None:
        run("seed")
        run("run", "-s", "daily", vars={"vulcan_execution_time": "2025-01-05"})
        # the package's write happened, through the project's strategy, once per batch
        assert table_rows(project, "daily", "day, amount") == [
            (date(2025, 1, d), 10 * d) for d in range(1, 5)
        ]
        calls = rows(project, f"select label from {project.test_schema}.strategy_calls order by 1")
        assert calls == [("2025-01-01 - 2025-01-02",), ("2025-01-03 - 2025-01-04",)]
        assert processed_rows(project, "daily")[-1][1] == "2025-01-05 00:00:00"
        # the table was created by the project's macro
        properties = dict(rows(project, f"show tblproperties {project.test_schema}.daily"))
        assert properties.get("created_by") == "project"
