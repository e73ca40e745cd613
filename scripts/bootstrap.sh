#!/usr/bin/env bash
# Everything a fresh machine needs: a virtualenv with the package and its dev tools, and the
# Delta/Iceberg jars. Safe to run again; it only does what is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# Python packages install with uv (scripts/uv_install.sh).
source scripts/uv_install.sh
# dbt-databricks in a venv of its own (its releases pin their own dbt-spark): package mode on
# `type: databricks` (the parse and rendering tests, and `make databricks` against the
# Databricks-protocol test server). dbt-databricks and its SQL connector are pinned together:
# the connector's test-only shim (tests/databricks_shim) is written against that version. The
# test tools, and this repository without its dependencies (the tests' Python helpers import
# it; dbt runs `type: databricks`, never the `vulcan` adapter, there). 1.12.8 asks a certifi
# newer than the registry here serves: scripts/uv-overrides.txt takes the newest served. Its
# dependencies install in the background,
# beside the main venv; this repository once both are done.
databricks_stamp=.venv-databricks/.vulcan-installed
databricks_pid=
if [ ! -f "$databricks_stamp" ] || [ scripts/bootstrap.sh -nt "$databricks_stamp" ] || [ pyproject.toml -nt "$databricks_stamp" ]; then
  (
  uv_install .venv-databricks "dbt-databricks==1.12.8" "databricks-sql-connector==4.1.5" \
    "pytest>=8" "hypothesis>=6.100" "dbt-tests-adapter>=1.19,<1.21" "sqlglot>=30,<31" "croniter>=2.0,<8"
  ) &
  databricks_pid=$!
fi
# The default set-up: the newest dbt-core and dbt-spark the adapter allows, on Spark 4.0 (the
# Spark of Databricks' newest LTS runtime); `make compat` runs the other versions.
stamp=.venv/.vulcan-installed
installed=$databricks_pid
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ scripts/bootstrap.sh -nt "$stamp" ]; then
  uv_install .venv -e ".[dev]" "pyspark>=4.0,<4.1"
  touch "$stamp"
  installed=1
fi
if ! command -v java >/dev/null 2>&1; then
  echo "bootstrap: Spark needs a Java runtime (JDK 17); install one (e.g. apt-get install openjdk-17-jdk-headless)" >&2
  exit 1
fi
if ! command -v mvn >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && apt-get install -y -qq maven) >/dev/null
  else
    echo "bootstrap: Maven is needed to fetch the Delta/Iceberg jars" >&2
    exit 1
  fi
fi
bash scripts/fetch_jars.sh
if [ -n "$databricks_pid" ]; then
  if ! wait "$databricks_pid"; then
    echo "bootstrap: installing .venv-databricks failed (above)" >&2
    exit 1
  fi
  "$root/.venv-databricks/bin/uv" pip install -q --python .venv-databricks/bin/python --no-deps -e .
  touch "$databricks_stamp"
fi
if [ -n "$installed" ]; then uv_prune .venv; fi
