"""Package mode: the repository root is the dbt package `dbt_vulcan`. A project on stock
`type: spark` or `type: databricks` installs it with packages.yml (`local:` here; `git:` for
users) and parses: the kinds' materializations are in the manifest for spark (which dbt also
uses for databricks, whose parent is spark).

Runs dbt in a subprocess: the adapter type differs from the `vulcan` adapter that the rest of
the pytest process has registered. Parsing opens no connection, so no Spark is started and no
Databricks workspace is needed (none is reachable here: on databricks, parsing is all that
is tested). dbt-databricks lives in its own venv, `.venv-databricks` (scripts/bootstrap.sh)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.support.dbt_projects import DATABRICKS_DBT, DBT, KINDS, REPO, dbt, write_project


@pytest.mark.profile_only("parquet")  # no Spark: once per CI run is enough
@pytest.mark.parametrize("adapter", ["spark", "databricks"])
def test_parses_on_a_stock_adapter_with_the_package(tmp_path: Path, adapter: str) -> None:
    executable = DBT if adapter == "spark" else DATABRICKS_DBT
    assert executable.exists(), f"{executable}: run scripts/bootstrap.sh (make setup)"
    write_project(tmp_path, adapter)
    dbt(executable, tmp_path, "deps")
    output = dbt(executable, tmp_path, "parse", "--show-all-deprecations", "--write-json")
    assert f"Registered adapter: {adapter}" in output
    # on databricks dbt checks model configs against its JSON schema (on spark it does not)
    assert "deprecat" not in output.lower(), output
    manifest = json.loads((tmp_path / "target" / "manifest.json").read_text())
    found = {
        name.split(".")[-1]
        for name, macro in manifest["macros"].items()
        if macro["package_name"] == "dbt_vulcan"
    }
    for kind in KINDS:
        assert f"materialization_{kind}_spark" in found
    assert manifest["nodes"]["model.shop.daily"]["config"]["materialized"] == KINDS[0]


@pytest.mark.profile_only("parquet")  # no Spark: once per CI run is enough
@pytest.mark.parametrize("adapter", ["spark", "databricks"])
def test_the_example_project_parses_with_no_deprecation(tmp_path: Path, adapter: str) -> None:
    """The example project (integration_project/) on the newest dbt the set-up installs: no
    deprecation, with dbt's JSON-schema checks of configs on (type: databricks)."""
    executable = DBT if adapter == "spark" else DATABRICKS_DBT
    project = tmp_path / "example"
    shutil.copytree(
        REPO / "integration_project",
        project,
        ignore=shutil.ignore_patterns("target", "logs", "dbt_packages", ".spark"),
    )
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    env = {
        **os.environ,
        "VULCAN_ADAPTER": adapter,
        "VULCAN_WORKDIR": str(tmp_path / "work"),
        "VULCAN_LOG4J_CONFIG": str(REPO / "tests" / "log4j2.properties"),
        # parse never connects: the server is made up
        "VULCAN_THRIFT_HOST": "localhost",
        "VULCAN_THRIFT_PORT": "1",
        "VULCAN_DATABRICKS_TOKEN": "not-a-token",
    }
    target = ["--target", "databricks" if adapter == "databricks" else "parquet"]
    dbt(executable, project, "deps", *target, env=env)
    output = dbt(
        executable,
        project,
        "parse",
        *target,
        "--show-all-deprecations",
        "--no-partial-parse",
        env=env,
    )
    assert f"Registered adapter: {adapter}" in output, output
    assert "deprecat" not in output.lower(), output
