"""The kinds' package as the adapter ships it (dbt/adapters/vulcan/bundled.py): the same package
as the repository root's, the adapter's version, and added only where it belongs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dbt.adapters.vulcan import bundled
from dbt.adapters.vulcan.__version__ import version

ROOT = Path(__file__).resolve().parents[3]


def _project(path: Path) -> dict:
    return yaml.safe_load((path / "dbt_project.yml").read_text())


def test_the_bundled_package_is_the_repository_root_package() -> None:
    root, shipped = _project(ROOT), _project(bundled.BUNDLED_PATH)
    root_macros = [(ROOT / p).resolve() for p in root.pop("macro-paths")]
    shipped_macros = [(bundled.BUNDLED_PATH / p).resolve() for p in shipped.pop("macro-paths")]
    assert root_macros == shipped_macros == [ROOT / "dbt" / "include" / "vulcan" / "macros"]
    assert root == shipped
    assert root["name"] == bundled.PACKAGE_NAME
    assert str(root["version"]) == version


def test_added_on_vulcan_when_not_installed() -> None:
    assert bundled.needs_bundled_package(None, None, "vulcan", "shop")


@pytest.mark.parametrize("adapter_type", ["spark", "databricks", None])
def test_other_adapters_see_no_change(adapter_type: str | None) -> None:
    assert not bundled.needs_bundled_package(None, None, adapter_type, "shop")
    # nor is their installed package checked against the adapter's version
    assert not bundled.needs_bundled_package("0.0.9", "dbt_packages/x", adapter_type, "shop")


def test_the_package_itself_as_the_root_project_is_not_added_twice() -> None:
    assert not bundled.needs_bundled_package("0.0.9", str(ROOT), "vulcan", "dbt_vulcan")


def test_an_installed_package_of_the_same_version_is_kept() -> None:
    assert not bundled.needs_bundled_package(version, "dbt_packages/dbt_vulcan", "vulcan", "shop")


def test_an_installed_package_of_another_version_is_refused() -> None:
    with pytest.raises(bundled.PackageVersionMismatch) as caught:
        bundled.needs_bundled_package("0.0.9", "/p/dbt_packages/dbt_vulcan", "vulcan", "shop")
    message = str(caught.value)
    assert "dbt package dbt_vulcan version 0.0.9 (/p/dbt_packages/dbt_vulcan)" in message
    assert f"`vulcan` adapter is version {version}" in message
    assert "remove dbt_vulcan from packages.yml" in message
    assert f"revision of version {version}" in message


def test_installed_once_per_process() -> None:
    from dbt.config.runtime import RuntimeConfig

    wrapped = RuntimeConfig.load_dependencies
    bundled.install()
    assert RuntimeConfig.load_dependencies is wrapped
    assert getattr(wrapped, "_vulcan_bundled", False)
