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
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
DBT = Path(sys.executable).with_name("dbt")
DATABRICKS_DBT = REPO / ".venv-databricks" / "bin" / "dbt"
PROFILES = {
    "spark": "      type: spark\n      method: session\n      host: localhost\n",
    # parse never connects: the workspace is made up
    "databricks": "      type: databricks\n      host: example.cloud.databricks.com\n"
    "      http_path: /sql/1.0/warehouses/none\n      token: not-a-token\n",
}

KINDS = (
    "incremental_by_time_range",
    "incremental_by_unique_key",
    "incremental_by_partition",
    "incremental_unmanaged",
    "scd_type_2_by_time",
    "scd_type_2_by_column",
)


def write_project(root: Path, adapter: str) -> None:
    (root / "models").mkdir(parents=True)
    (root / "dbt_project.yml").write_text(
        "name: shop\nversion: '1.0'\nconfig-version: 2\nprofile: shop\n"
    )
    (root / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    (root / "profiles.yml").write_text(
        "shop:\n  target: dev\n  outputs:\n    dev:\n"
        + PROFILES[adapter]
        + "      schema: analytics\n"
    )
    # dbt-vulcan's own keys under `meta` (dbt 1.10+ asks custom keys to be there)
    (root / "models" / "daily.sql").write_text(
        "{{ config(materialized='incremental_by_time_range', "
        "meta={'time_column': 'd', 'start': '2025-01-01'}) }}\n"
        "select d from (select explode(sequence(@start_date, @end_date)) as d)\n"
    )


def dbt(
    executable: Path, root: Path, *args: str, env: dict[str, str] | None = None, ok: bool = True
) -> str:
    """dbt's output; it must exit 0 (`ok=False`: it must fail)."""
    done = subprocess.run(
        [str(executable), *args, "--project-dir", str(root), "--profiles-dir", str(root)],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=300,
        env=env,
    )
    output = done.stdout + done.stderr
    assert (done.returncode == 0) is ok, output
    return output


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
