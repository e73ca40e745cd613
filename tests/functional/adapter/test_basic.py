"""dbt-tests-adapter's base suites, passing with `type: vulcan`.

They exercise dbt-spark's own materializations through the adapter, which do not depend on
dbt-vulcan's table-format strategies: they run on the parquet target only (CI time). The
suites whose behaviour does depend on the format (snapshots, merges) are in
test_delta_suites.py and run on Delta."""

from __future__ import annotations

import pytest
from dbt.tests.adapter.basic.test_adapter_methods import BaseAdapterMethod
from dbt.tests.adapter.basic.test_base import BaseSimpleMaterializations
from dbt.tests.adapter.basic.test_empty import BaseEmpty
from dbt.tests.adapter.basic.test_ephemeral import BaseEphemeral
from dbt.tests.adapter.basic.test_generic_tests import BaseGenericTests
from dbt.tests.adapter.basic.test_incremental import BaseIncremental
from dbt.tests.adapter.basic.test_singular_tests import BaseSingularTests
from dbt.tests.adapter.basic.test_validate_connection import BaseValidateConnection

pytestmark = pytest.mark.profile_only("parquet")


class TestSimpleMaterializationsVulcan(BaseSimpleMaterializations):
    pass


class TestEmptyVulcan(BaseEmpty):
    pass


class TestEphemeralVulcan(BaseEphemeral):
    pass


class TestIncrementalVulcan(BaseIncremental):
    pass


class TestGenericTestsVulcan(BaseGenericTests):
    pass


class TestSingularTestsVulcan(BaseSingularTests):
    pass


class TestAdapterMethodVulcan(BaseAdapterMethod):
    pass


class TestValidateConnectionVulcan(BaseValidateConnection):
    pass
