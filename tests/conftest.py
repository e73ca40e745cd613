"""Test targets: `--profile parquet|delta|iceberg` (default parquet) picks the table format of
the embedded SparkSession that every functional test of this pytest process shares.
`--profile thrift` runs against the Spark Thrift Server of scripts/spark_server.sh (Delta
tables; markers naming `delta` apply to it too)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from dbt.tests.util import write_file

from tests.spark_targets import (
    FORMATS,
    file_format,
    server_side_parameters,
    thrift_run_sql_for_tests,
    thrift_target,
)

pytest_plugins = ["dbt.tests.fixtures.project"]

_WORKDIR = Path(tempfile.mkdtemp(prefix="vulcan-spark-"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--profile", action="store", default="parquet", choices=FORMATS)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "profile_only(*names): run only on these targets")
    config.addinivalue_line("markers", "skip_profile(*names, reason): skip on these targets")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    profile = config.getoption("--profile")
    names = {profile, file_format(profile)}
    for item in items:
        for marker in item.iter_markers(name="profile_only"):
            unknown = set(marker.args) - set(FORMATS)
            if unknown:
                raise pytest.UsageError(f"{item.nodeid}: unknown profile {sorted(unknown)}")
            if not names & set(marker.args):
                item.add_marker(pytest.mark.skip(reason=f"runs only on {', '.join(marker.args)}"))
        for marker in item.iter_markers(name="skip_profile"):
            unknown = set(marker.args) - set(FORMATS)
            if unknown:
                raise pytest.UsageError(f"{item.nodeid}: unknown profile {sorted(unknown)}")
            if names & set(marker.args):
                reason = marker.kwargs.get("reason")
                if not reason:
                    raise pytest.UsageError(f"{item.nodeid}: skip_profile needs a reason")
                item.add_marker(pytest.mark.skip(reason=f"{profile}: {reason}"))


@pytest.fixture(scope="session")
def table_format(request: pytest.FixtureRequest) -> str:
    return file_format(str(request.config.getoption("--profile")))


@pytest.fixture(scope="session")
def dbt_profile_target(request: pytest.FixtureRequest, table_format: str) -> dict[str, Any]:
    if request.config.getoption("--profile") == "thrift":
        from dbt.adapters.vulcan.impl import VulcanAdapter

        # DATE values arrive as strings over thrift: tests read them as the session gives them
        patch = pytest.MonkeyPatch()
        patch.setattr(VulcanAdapter, "run_sql_for_tests", thrift_run_sql_for_tests)
        request.addfinalizer(patch.undo)
        return thrift_target()
    return {
        "type": "vulcan",
        "method": "session",
        "host": "localhost",
        "threads": 1,
        "state_file_format": table_format,
        "server_side_parameters": server_side_parameters(table_format, _WORKDIR),
    }


@pytest.fixture(scope="class")
def dbt_project_yml(
    project_root: Path, project_config_update: Any, table_format: str
) -> dict[str, Any]:
    """dbt.tests' project file, with the target's table format as every node's default."""
    config: dict[str, Any] = {
        "name": "test",
        "profile": "test",
        "flags": {"send_anonymous_usage_stats": False},
    }
    defaults = {"+file_format": table_format}
    for section in ("models", "seeds", "snapshots"):
        config[section] = dict(defaults)
    if project_config_update:
        updates = (
            project_config_update
            if isinstance(project_config_update, dict)
            else yaml.safe_load(project_config_update)
        )
        for key, value in updates.items():
            if key in ("models", "seeds", "snapshots") and isinstance(value, dict):
                config[key] = {**config[key], **value}
            else:
                config[key] = value
    write_file(yaml.safe_dump(config), project_root, "dbt_project.yml")
    return config
