#!/usr/bin/env bash
# Builds the integration project from a clean warehouse: every seed, model and test.
#   bash integration_project/run.sh [parquet|delta|iceberg|databricks] [builds] [adapter|package]
#   (default parquet 1 adapter). `package`: stock `type: spark` with the dbt package alone;
#   the models of what only the adapter runs (Python) are left out. `databricks`: stock
#   `type: databricks` with the package, against the Databricks-protocol test server
#   (package mode only; run it inside `VULCAN_THRIFT_TRANSPORT=http scripts/spark_server.sh
#   run -- ...`, which sets VULCAN_THRIFT_HOST/PORT; a new server is a clean warehouse).
# The execution time is pinned, so every build computes the same intervals and rows. With
# builds > 1 the same `dbt build` runs again on the warehouse the previous one left: every
# model then runs incrementally and every equality test must still pass.
# Environment (all optional): VULCAN_WORKDIR (default integration_project/.spark/<target>-<mode>,
# emptied first; dbt's target/ and logs/ are per target too, so two targets can build at once), VULCAN_JARS_DIR (default .vulcan/jars), DBT (default .venv/bin/dbt), VULCAN_THREADS.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
target=${1:-parquet}
builds=${2:-1}
mode=${3:-adapter}
case "$mode" in
  adapter) export VULCAN_ADAPTER=vulcan; select=() ;;
  package)
    # left out: the Python model (only the adapter runs it), and warehouse_performance
    # (a plain view), whose expected seed has an empty cell: dbt-spark's session method loads
    # it as the string 'None' (the vulcan adapter loads NULL), so its equality test cannot hold
    export VULCAN_ADAPTER=spark
    select=(--exclude product_daily_sales warehouse_performance) ;;
  *) echo "usage: $0 [parquet|delta|iceberg] [builds] [adapter|package]" >&2; exit 2 ;;
esac
state_vars=", vulcan_state_file_format: $target"
case "$target" in
  parquet | delta | iceberg) ;;
  databricks)
    [ "$mode" = package ] || { echo "run.sh: the databricks target is package mode only" >&2; exit 2; }
    [ -n "${VULCAN_THRIFT_PORT:-}" ] || { echo "run.sh: databricks: start the server first (VULCAN_THRIFT_PORT unset; see above)" >&2; exit 2; }
    # dbt-databricks, in its own venv; the connector's test-only shim (tests/databricks_shim)
    DBT=${DBT:-$root/.venv-databricks/bin/dbt}
    export PYTHONPATH="$root/tests/databricks_shim${PYTHONPATH:+:$PYTHONPATH}"
    export VULCAN_DATABRICKS_TOKEN=${VULCAN_DATABRICKS_TOKEN:-$(printf 'vulcan:vulcan' | base64)}
    state_vars="" ;;  # the state's format is the adapter's default (Delta)
  *) echo "usage: $0 [parquet|delta|iceberg|databricks] [builds]" >&2; exit 2 ;;
esac
case "$builds" in
  [1-9]) ;;
  *) echo "usage: $0 [parquet|delta|iceberg] [builds]: builds is 1 to 9, not '$builds'" >&2; exit 2 ;;
esac

# A clean warehouse and metastore for every build; only a folder this script made is emptied.
export VULCAN_WORKDIR=${VULCAN_WORKDIR:-$here/.spark/$target-$mode}
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
# the kinds' macros: this repository as a dbt package (packages.yml, `local: ..`)
"$dbt" deps --project-dir "$here" --profiles-dir "$here" --target "$target" --log-path "logs/$target-$mode" >/dev/null
# VULCAN_VIRTUAL_FROM=N: builds N and later with the virtual layer (vulcan_virtual: true): the
# tables of the builds before are adopted, every model becomes a view over its version's table,
# and every equality test must still pass (0, the default: never)
virtual_from=${VULCAN_VIRTUAL_FROM:-0}
for build in $(seq "$builds"); do
  if [ "$virtual_from" -gt 0 ] && [ "$build" -ge "$virtual_from" ]; then
    state_vars="$state_vars, vulcan_virtual: true"
    echo "run.sh: build $build with the virtual layer (vulcan_virtual: true)"
  fi
  if [ "$build" -gt 1 ]; then
    # restatement along the DAG: two days of daily_sales and, downstream, the week that covers
    # them in weekly_sales; this build recomputes both and every equality test must still pass
    echo "run.sh: restate daily_sales+ for 2025-04-02 .. 2025-04-03"
    "$dbt" run-operation vulcan_restate --project-dir "$here" --profiles-dir "$here" --target "$target" \
      --target-path "target/$target-$mode" --log-path "logs/$target-$mode" \
      --args "{select: 'daily_sales+', start: '2025-04-02', end: '2025-04-03'}" \
      --vars "{vulcan_execution_time: '2025-04-30 06:00:00'$state_vars}"
  fi
  echo "run.sh: dbt build $build of $builds ($target, $mode)"
  "$dbt" build --project-dir "$here" --profiles-dir "$here" --target "$target" \
    --target-path "target/$target-$mode" --log-path "logs/$target-$mode" "${select[@]}" \
    --vars "{vulcan_execution_time: '2025-04-30 06:00:00'$state_vars}"
done
