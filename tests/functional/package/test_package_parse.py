"""Package mode: the repository root is the dbt package `dbt_vulcan`. A project on stock
`type: spark` installs it with packages.yml (`local:` here; `git:` for users) and parses:
the kinds' materializations are found for the spark adapter, and dbt reports no deprecation.

Runs dbt in a subprocess: the adapter type differs from the `vulcan` adapter that the rest of
the pytest process has registered. Parsing opens no connection, so no Spark is started."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
DBT = Path(sys.executable).with_name("dbt")

KINDS = (
    "incremental_by_time_range",
    "incremental_by_unique_key",
    "incremental_by_partition",
    "incremental_unmanaged",
    "scd_type_2_by_time",
    "scd_type_2_by_column",
)


def write_project(root: Path) -> None:
    (root / "models").mkdir(parents=True)
    (root / "dbt_project.yml").write_text(
        "name: shop\nversion: '1.0'\nconfig-version: 2\nprofile: shop\n"
    )
    (root / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    (root / "profiles.yml").write_text(
        "shop:\n  target: dev\n  outputs:\n    dev:\n      type: spark\n"
        "      method: session\n      host: localhost\n      schema: analytics\n"
    )
    (root / "models" / "daily.sql").write_text(
        "{{ config(materialized='incremental_by_time_range', time_column='d', "
        "start='2025-01-01') }}\n"
        "select d from (select explode(sequence(@start_date, @end_date)) as d)\n"
    )


def dbt(root: Path, *args: str) -> str:
    done = subprocess.run(
        [str(DBT), *args, "--project-dir", str(root), "--profiles-dir", str(root)],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=300,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    return output


def test_parses_on_stock_spark_with_the_package(tmp_path: Path) -> None:
    write_project(tmp_path)
    dbt(tmp_path, "deps")
    output = dbt(tmp_path, "parse", "--show-all-deprecations")
    assert "Registered adapter: spark" in output
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
