"""dbt-tests-adapter suites that need MERGE (snapshots, unique-key incrementals): Delta and
Iceberg support it; plain parquet tables cannot MERGE in Spark, so those runs are skipped there."""

from __future__ import annotations

from typing import Any

import pytest
from dbt.tests.adapter.basic.test_snapshot_check_cols import BaseSnapshotCheckCols
from dbt.tests.adapter.basic.test_snapshot_timestamp import BaseSnapshotTimestamp
from dbt.tests.adapter.incremental.test_incremental_merge_exclude_columns import (
    BaseMergeExcludeColumns,
)
from dbt.tests.adapter.incremental.test_incremental_predicates import BaseIncrementalPredicates
from dbt.tests.adapter.incremental.test_incremental_unique_id import BaseIncrementalUniqueKey

NO_MERGE = "Spark cannot MERGE INTO a plain parquet table (dbt-spark's merge strategy needs Delta)"

pytestmark = pytest.mark.skip_profile("parquet", reason=NO_MERGE)

MERGE = {"models": {"+incremental_strategy": "merge"}}


class TestSnapshotTimestampVulcan(BaseSnapshotTimestamp):
    pass


class TestSnapshotCheckColsVulcan(BaseSnapshotCheckCols):
    pass


class TestIncrementalUniqueKeyVulcan(BaseIncrementalUniqueKey):
    @pytest.fixture(scope="class")
    def project_config_update(self) -> dict[str, Any]:
        return MERGE


class TestMergeExcludeColumnsVulcan(BaseMergeExcludeColumns):
    @pytest.fixture(scope="class")
    def project_config_update(self) -> dict[str, Any]:
        return MERGE


class TestIncrementalPredicatesVulcan(BaseIncrementalPredicates):
    @pytest.fixture(scope="class")
    def project_config_update(self) -> dict[str, Any]:
        return {
            "models": {
                "+incremental_predicates": ["dbt_internal_dest.id != 2"],
                "+incremental_strategy": "merge",
            }
        }
