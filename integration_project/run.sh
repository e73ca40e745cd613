#!/usr/bin/env bash
# Builds the integration project from a clean warehouse: every seed, model and test.
#   bash integration_project/run.sh [parquet|delta|iceberg]     (default parquet)
# The execution time is pinned, so every build computes the same intervals and rows.
# Environment (all optional): VULCAN_WORKDIR (default integration_project/.spark, emptied
# first), VULCAN_JARS_DIR (default .vulcan/jars), DBT (default .venv/bin/dbt), VULCAN_THREADS.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
target=${1:-parquet}
case "$target" in
  parquet | delta | iceberg) ;;
  *) echo "usage: $0 [parquet|delta|iceberg]" >&2; exit 2 ;;
esac

# A clean warehouse and metastore for every build; only a folder this script made is emptied.
export VULCAN_WORKDIR=${VULCAN_WORKDIR:-$here/.spark}
marker="$VULCAN_WORKDIR/.vulcan-integration-workdir"
if [ -d "$VULCAN_WORKDIR" ] && [ -n "$(ls -A "$VULCAN_WORKDIR")" ] && [ ! -f "$marker" ]; then
  echo "run.sh: $VULCAN_WORKDIR is not empty and was not made by run.sh; not deleting it" >&2
  exit 1
fi
rm -rf "$VULCAN_WORKDIR"
mkdir -p "$VULCAN_WORKDIR"
touch "$marker"

jars() {
  local folder=${VULCAN_JARS_DIR:-$root/.vulcan/jars}/$1
  local found
  found=$(find "$folder" -maxdepth 1 -name '*.jar' 2>/dev/null | sort | paste -sd, -)
  if [ -z "$found" ] && [ "$target" = "$1" ]; then
    echo "run.sh: no $1 jars in $folder: run 'bash scripts/fetch_jars.sh' (or 'make setup')" >&2
    exit 1
  fi
  echo "$found"
}
if [ -z "${VULCAN_DELTA_JARS:-}" ]; then VULCAN_DELTA_JARS=$(jars delta); fi
if [ -z "${VULCAN_ICEBERG_JARS:-}" ]; then VULCAN_ICEBERG_JARS=$(jars iceberg); fi
export VULCAN_DELTA_JARS VULCAN_ICEBERG_JARS
export VULCAN_LOG4J_CONFIG=${VULCAN_LOG4J_CONFIG:-$root/tests/log4j2.properties}

dbt=${DBT:-$root/.venv/bin/dbt}
cd "$here"
exec "$dbt" build --project-dir "$here" --profiles-dir "$here" --target "$target" \
  --vars '{vulcan_execution_time: "2025-04-30 06:00:00"}'
