"""`pip install dbt-vulcan` and `type: vulcan` alone give every kind: no packages.yml. The kinds'
package comes with the adapter (dbt/adapters/vulcan/bundled.py); a project that installs the
package too keeps it when it is the adapter's version, and another version stops dbt before it
parses, naming both versions and the fix.

`dbt parse` in a subprocess (a project of its own; parsing opens no connection, so no Spark).
Every other adapter-mode functional test runs kinds for real with no packages.yml."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dbt.adapters.vulcan.__version__ import version
from dbt.adapters.vulcan.bundled import BUNDLED_PATH
from tests.support import dbt_projects
from tests.support.dbt_projects import DBT, KINDS, REPO

pytestmark = [
    pytest.mark.profile_only("parquet"),  # no Spark: once per CI run is enough
    pytest.mark.adapter_only(reason="the `vulcan` adapter's own install"),
]


def write_project(root: Path, packages: str | None = None) -> None:
    (root / "models").mkdir(parents=True)
    (root / "dbt_project.yml").write_text(
        "name: shop\nversion: '1.0'\nconfig-version: 2\nprofile: shop\n"
    )
    if packages is not None:
        (root / "packages.yml").write_text(f"packages:\n  - local: {packages}\n")
    (root / "profiles.yml").write_text(
        "shop:\n  target: dev\n  outputs:\n    dev:\n"
        "      type: vulcan\n      method: session\n      host: localhost\n"
        "      schema: analytics\n"
    )
    (root / "models" / "daily.sql").write_text(
        "{{ config(materialized='incremental_by_time_range', time_column='d', "
        "start='2025-01-01') }}\n"
        "select d from (select explode(sequence(@start_date, @end_date)) as d)\n"
    )


def dbt(root: Path, *args: str, ok: bool = True) -> str:
    return dbt_projects.dbt(DBT, root, *args, ok=ok)


def materializations(root: Path) -> dict[str, str]:
    manifest = json.loads((root / "target" / "manifest.json").read_text())
    return {
        macro["name"]: macro["original_file_path"].split("/macros/")[0]
        for macro in manifest["macros"].values()
        if macro["package_name"] == "dbt_vulcan" and macro["name"].startswith("materialization_")
    }


def test_no_packages_yml(tmp_path: Path) -> None:
    write_project(tmp_path)
    output = dbt(tmp_path, "parse", "--write-json", "--show-all-deprecations")
    assert "Registered adapter: vulcan" in output
    found = materializations(tmp_path)
    for kind in KINDS:
        assert found[f"materialization_{kind}_spark"] == "..", found  # package/../macros
    assert BUNDLED_PATH.joinpath("dbt_project.yml").is_file()
    assert not (tmp_path / "dbt_packages").exists()


def test_the_package_installed_too_at_the_same_version(tmp_path: Path) -> None:
    write_project(tmp_path, packages=str(REPO))
    dbt(tmp_path, "deps")
    dbt(tmp_path, "parse", "--write-json")
    found = materializations(tmp_path)
    for kind in KINDS:  # the repository root's macro-paths
        assert found[f"materialization_{kind}_spark"] == "dbt/include/vulcan", found


def test_the_package_of_another_version_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "old_package"
    (other / "macros").mkdir(parents=True)
    (other / "dbt_project.yml").write_text(
        "name: dbt_vulcan\nversion: '0.0.9'\nconfig-version: 2\nmacro-paths: [macros]\n"
    )
    project = tmp_path / "project"
    write_project(project, packages=str(other))
    dbt(project, "deps")
    output = dbt(project, "parse", ok=False)
    assert "installs the dbt package dbt_vulcan version 0.0.9" in output, output
    assert f"the `vulcan` adapter is version {version}" in output, output
    assert "remove dbt_vulcan from packages.yml" in output, output
    assert not (project / "target" / "manifest.json").exists()
