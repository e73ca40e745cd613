from dbt.adapters.base import AdapterPlugin

from dbt.adapters.vulcan import bundled
from dbt.adapters.vulcan.connections import VulcanConnectionManager, VulcanCredentials
from dbt.adapters.vulcan.impl import VulcanAdapter
from dbt.include import vulcan

__all__ = ["Plugin", "VulcanAdapter", "VulcanConnectionManager", "VulcanCredentials"]

Plugin = AdapterPlugin(
    adapter=VulcanAdapter,  # type: ignore[arg-type]
    credentials=VulcanCredentials,
    include_path=vulcan.PACKAGE_PATH,
    # the name of dbt/include/vulcan/dbt_project.yml; `dbt_vulcan` is the package's
    project_name="dbt_vulcan_adapter",
    dependencies=["spark"],
)

# the kinds' dbt package comes with the adapter: no packages.yml on `type: vulcan`
bundled.install()
