"""The kinds' dbt package, shipped inside the adapter: `type: vulcan` needs no packages.yml.

The kinds are the dbt package `dbt_vulcan`: their macros call each other as `dbt_vulcan.<name>`
and dispatch in that namespace, which dbt gives only to an installed (non-internal) package, not
to an adapter's own macros. So the adapter adds the copy in its wheel
(`dbt/include/vulcan/package`) to the project's installed packages, the way `dbt deps` would
have: dbt loads a project's packages in `RuntimeConfig.load_dependencies`, which this module
wraps for projects on `type: vulcan` (other adapters' projects see no change). The package is
added after dbt has counted the installed packages against packages.yml, as an installed
package would be, and before anything is parsed.

A project that installs the package too (packages.yml) keeps its own copy when it is the
adapter's version; another version stops the run before anything is parsed, naming both
versions and the fix: a package and an adapter of different versions would run the macros of
one against the Python of the other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.vulcan.__version__ import version as ADAPTER_VERSION

PACKAGE_NAME = "dbt_vulcan"
BUNDLED_PATH = Path(__file__).resolve().parents[2] / "include" / "vulcan" / "package"


class PackageVersionMismatch(DbtRuntimeError):
    CODE = 10021
    MESSAGE = "dbt-vulcan version mismatch"


def needs_bundled_package(
    installed_version: str | None,
    installed_at: str | None,
    adapter_type: str | None,
    root_name: str | None,
) -> bool:
    """Whether dbt should load the adapter's copy of the package: on `type: vulcan`, when the
    project has none of its own (`installed_at` is None). A copy of another version is
    refused."""
    if adapter_type != "vulcan" or root_name == PACKAGE_NAME:
        return False
    if installed_at is None:
        return True
    if installed_version != ADAPTER_VERSION:
        raise PackageVersionMismatch(
            f"dbt-vulcan: the project installs the dbt package {PACKAGE_NAME} version "
            f"{installed_version} ({installed_at}), but the `vulcan` adapter is version "
            f"{ADAPTER_VERSION} (pip dbt-vulcan). The adapter ships the package itself: remove "
            f"{PACKAGE_NAME} from packages.yml and run `dbt clean`, or install the package's "
            f"revision of version {ADAPTER_VERSION} and run `dbt deps`."
        )
    return False


def install() -> None:
    """Wrap dbt's loading of a project's packages (once per process)."""
    from dbt.config.runtime import RuntimeConfig

    original: Callable[..., Mapping[str, Any]] = RuntimeConfig.load_dependencies
    if getattr(original, "_vulcan_bundled", False):
        return

    def load_dependencies(self: Any, base_only: bool = False) -> Mapping[str, Any]:
        dependencies = original(self, base_only)
        if base_only:  # dbt's own test set-up: the adapters' macros only
            return dependencies
        installed = dependencies.get(PACKAGE_NAME)
        adapter_type = getattr(getattr(self, "credentials", None), "type", None)
        if needs_bundled_package(
            None if installed is None else str(installed.version),
            None if installed is None else str(installed.project_root),
            adapter_type,
            self.project_name,
        ):
            # the dict dbt keeps as self.dependencies: loaded once per run, like the others
            self.dependencies[PACKAGE_NAME] = self.new_project(str(BUNDLED_PATH))
        return dependencies

    load_dependencies._vulcan_bundled = True  # type: ignore[attr-defined]
    RuntimeConfig.load_dependencies = load_dependencies  # type: ignore[method-assign]
