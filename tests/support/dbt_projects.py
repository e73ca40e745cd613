"""Throwaway dbt projects for the tests that run dbt in a subprocess on another adapter type
than the pytest process's (`type: spark`, `type: databricks`, a project with no packages.yml):
parsing opens no connection, so no Spark is started and no workspace is needed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
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
