"""Test targets: `--profile parquet|delta|iceberg` (default parquet) picks the table format of
the embedded SparkSession that every functional test of this pytest process shares.
`--profile thrift` runs against the Spark Thrift Server of scripts/spark_server.sh (Delta
tables; markers naming `delta` apply to it too). `--profile databricks` (package mode only, run
with .venv-databricks' Python) is stock dbt-databricks against the same server over HTTP, the
Databricks protocol (tests/databricks_shim); no file format is set there, the adapter's default
(Delta) is used, and markers naming `delta` apply to it too."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from dbt.tests.util import write_file

from tests.spark_targets import (
    FORMATS,
    databricks_target,
    file_format,
    server_side_parameters,
    thrift_run_sql_for_tests,
    thrift_target,
)
from tests.support.functional import SESSION_TZ_VAR

pytest_plugins = ["dbt.tests.fixtures.project"]

# dbt writes manifest.json and run_results.json after every invocation (a tenth of a test's
# Python time); the tests that need them turn this back on for themselves (dbt's own suites,
# `dbt retry`, test_secrets: no secret in any artifact; test_package_parse: the manifest)
os.environ.setdefault("DBT_WRITE_JSON", "false")

ROOT = Path(__file__).resolve().parent.parent

# the embedded Spark's metastore, warehouse and temporary files; removed when pytest ends
_WORKDIR = Path(tempfile.mkdtemp(prefix="vulcan-spark-"))

# Most of a test JVM's CPU is the JIT compiling Spark's code (JFR: 33 of about 55 CPU seconds
# on test_unmanaged.py). On parquet the quick tier alone is enough: two suites side by side
# ran 15-34 % faster. Delta's code needs the optimizing tier (its suite ran slower without it);
# Delta and Iceberg keep the JVM's default.
_JIT = {"parquet": " -XX:TieredStopAtLevel=1"}

# The serial collector, not G1: on two cores G1's concurrent threads compete with Spark's tasks
# and dbt for the CPU. Busy core-seconds of the machine (/proc/stat), alternating runs, default
# against serial: test_unique_key.py on parquet 203/205/183 against 173/186/152 (-13 %, wall
# -8 %); test_unmanaged.py + test_partition.py on Delta 322/338 against 309/257 (-14 %, wall
# -11 %). The tests' heaps (4 GB at most, mostly far less) are what it suits.


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--profile", action="store", default="parquet", choices=FORMATS)
    parser.addoption(
        "--mode",
        action="store",
        default="adapter",
        choices=("adapter", "package"),
        help="adapter: `type: vulcan`; package: stock `type: spark` (the package alone)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "profile_only(*names): run only on these targets")
    config.addinivalue_line("markers", "skip_profile(*names, reason): skip on these targets")
    config.addinivalue_line(
        "markers", "adapter_only(reason): needs the `vulcan` adapter (skipped in package mode)"
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_WORKDIR, ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    profile = config.getoption("--profile")
    names = {profile, file_format(profile)}
    package_mode = config.getoption("--mode") == "package"
    for item in items:
        for marker in item.iter_markers(name="adapter_only"):
            if not marker.kwargs.get("reason"):
                raise pytest.UsageError(f"{item.nodeid}: adapter_only needs a reason")
            if package_mode:
                item.add_marker(pytest.mark.skip(reason=f"package mode: {marker.kwargs['reason']}"))
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
    package_mode = request.config.getoption("--mode") == "package"
    if request.config.getoption("--profile") == "databricks":
        if not package_mode:
            raise pytest.UsageError("--profile databricks runs the package: add --mode package")
        import sitecustomize  # the connector's shim (tests/databricks_shim on PYTHONPATH)

        if not hasattr(sitecustomize, "spark_sql"):
            raise pytest.UsageError("--profile databricks: put tests/databricks_shim on PYTHONPATH")
        return databricks_target()
    if request.config.getoption("--profile") == "thrift":
        from dbt.adapters.spark.impl import SparkAdapter

        from dbt.adapters.vulcan.impl import VulcanAdapter

        # DATE values arrive as strings over thrift: tests read them as the session gives them
        patch = pytest.MonkeyPatch()
        adapter = SparkAdapter if package_mode else VulcanAdapter
        patch.setattr(adapter, "run_sql_for_tests", thrift_run_sql_for_tests)
        request.addfinalizer(patch.undo)
        target = thrift_target()
        if package_mode:
            # stock dbt-spark: no profile field for the state table's format (a var sets it)
            del target["state_file_format"]
            target["type"] = "spark"
        return target
    if package_mode:
        # Seeds only: dbt-spark's session method inserts a seed's empty cell as the string
        # 'None' and does not escape quotes (the vulcan adapter fixes both). The test seeds
        # hold NULLs and quotes, so they are loaded with the adapter's binding, to mean the
        # same in both modes; the package's own SQL binds nothing.
        from dbt.adapters.spark.session import SessionConnectionWrapper

        from dbt.adapters.vulcan.session import sql_literal

        patch = pytest.MonkeyPatch()
        patch.setattr(
            SessionConnectionWrapper, "_fix_binding", classmethod(lambda c, v: sql_literal(v))
        )
        request.addfinalizer(patch.undo)
    return {
        # package mode: dbt-spark's own adapter, the kinds from the package alone
        "type": "spark" if package_mode else "vulcan",
        "method": "session",
        "host": "localhost",
        "threads": 1,
        **({} if package_mode else {"state_file_format": table_format}),
        # the metastore lives and dies with this process: Derby need not sync every commit
        "server_side_parameters": {
            **server_side_parameters(
                table_format,
                _WORKDIR,
                "-Dderby.system.durability=test -XX:+UseSerialGC" + _JIT.get(table_format, ""),
            ),
            # dbt-spark's session method applies these to the session before every statement
            # (a SET of the zone lasts one statement): a test runs dbt in another zone with
            # tests.support.functional.session_time_zone, read when dbt loads the profile
            "spark.sql.session.timeZone": "{{ env_var('" + SESSION_TZ_VAR + "', 'UTC') }}",
        },
    }


@pytest.fixture(scope="class")
def dbt_project_yml(
    request: pytest.FixtureRequest,
    project_root: Path,
    project_config_update: Any,
    table_format: str,
) -> dict[str, Any]:
    """dbt.tests' project file, with the target's table format as every node's default."""
    config: dict[str, Any] = {
        "name": "test",
        "profile": "test",
        "flags": {"send_anonymous_usage_stats": False},
    }
    # databricks: the adapter's default format (Delta), as its users get it
    databricks = request.config.getoption("--profile") == "databricks"
    defaults = {} if databricks else {"+file_format": table_format}
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
    if request.config.getoption("--mode") == "package" and not databricks:
        # stock dbt-spark has no profile field for it: the var sets the state table's format
        config["vars"] = {"vulcan_state_file_format": table_format, **config.get("vars", {})}
    write_file(yaml.safe_dump(config), project_root, "dbt_project.yml")
    return config


SHIM = "{% macro is_incremental() %}{{ return(dbt_vulcan.is_incremental()) }}{% endmacro %}\n"


@pytest.fixture(scope="class")
def packages(request: pytest.FixtureRequest) -> dict[str, Any]:
    """Package mode installs the package (`local:` this repository) with packages.yml; the
    `vulcan` adapter needs none (it ships the package: dbt/adapters/vulcan/bundled.py)."""
    if request.config.getoption("--mode") != "package":
        return {}
    return {"packages": [{"local": str(ROOT)}]}


@pytest.fixture(scope="class", autouse=True)
def _package_installed(request: pytest.FixtureRequest) -> None:
    if "project" not in request.fixturenames or request.config.getoption("--mode") != "package":
        return
    from dbt.adapters.factory import FACTORY
    from dbt.tests.util import run_dbt

    project = request.getfixturevalue("project")
    # dbt's is_incremental() is not dispatched: a project on type: spark adds this line
    # (README, "Install as a dbt package") for models that call it
    write_file(SHIM, project.project_root, "macros", "vulcan_is_incremental.sql")
    registered = dict(FACTORY.adapters)
    run_dbt(["deps"])
    # `dbt deps` runs without an adapter and unregisters the project's: put it back for the
    # tests that query through `project` before their first dbt command
    FACTORY.adapters.update(registered)
