#!/usr/bin/env bash
# Everything a fresh machine needs: a virtualenv with the package and its dev tools, and the
# Delta/Iceberg jars. Safe to run again; it only does what is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=.venv/.vulcan-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[dev]"
  touch "$stamp"
fi
# dbt-databricks in a venv of its own (its releases pin their own dbt-spark): package mode's
# parse and rendering tests on `type: databricks`. 1.11: 1.12's dbt-core fetches a parser wheel
# from outside the package registries.
if [ ! -x .venv-databricks/bin/dbt ]; then
  python3 -m venv .venv-databricks
  .venv-databricks/bin/python -m pip install -q --upgrade pip
  .venv-databricks/bin/python -m pip install -q "dbt-databricks~=1.11.0"
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
