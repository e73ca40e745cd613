#!/usr/bin/env bash
# make compat: the package on every supported dbt-core and Spark, and the adapter installed
# alone from its wheel. One venv per cell in .venv-compat/ (kept: a rerun only tests), the
# Delta/Iceberg jars of each Spark in .vulcan/jars-<spark>/, then writes docs/compat.md.
#
# A cell `<dbt>:<spark>` installs dbt-core <dbt>.x with its dbt-spark and pyspark <spark>.x
# (uv, scripts/uv-overrides.txt) and runs, in package mode (stock `type: spark`):
#   - on Delta: a time-range lifecycle (backfill, new days, lookback, a restated range, a
#     failed batch and its rerun, schema changes), unique key in batches, SCD type 2 by column
#     (the spec's menu);
#   - on Iceberg: the time-range backfill and new days; on parquet: plan == run;
#   - a Spark with no Delta (or Iceberg) runtime published yet (4.3; 4.2 has no Iceberg): the
#     Delta subset on parquet, the Iceberg one left out (the jars column says which ran);
#   - the example project (integration_project/run.sh parquet package), every kind checked
#     against its expected seeds.
# The cell `adapter` builds the wheel, installs it into an empty venv with uv (the newest
# dbt-core and pyspark it allows) and builds the example project with `type: vulcan` and no
# packages.yml, after checking that installing it did not change dbt-core's version.
#
#   bash scripts/compat.sh                      # every cell
#   COMPAT_CELLS="1.10:3.5 adapter" bash scripts/compat.sh
# COMPAT_REPORT (default docs/compat.md) is where the table goes; CI's cell writes elsewhere.
# COMPAT_PLAN=0 leaves out plan == run on parquet (CI's cell: CI runs it on the default pair).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cells=${COMPAT_CELLS:-"1.10:3.5 1.10:4.0 1.11:4.0 1.12:4.0 1.12:3.5 1.12:4.1 1.12:4.2 1.12:4.3 adapter"}
results=.vulcan/compat
mkdir -p "$results"
KINDS=tests/functional/kinds
DELTA_SUBSET=(
  "$KINDS/test_time_range.py::TestTimeRange::test_backfill_then_new_days"
  "$KINDS/test_time_range.py::TestTimeRange::test_lookback_picks_up_late_rows"
  "$KINDS/test_time_range.py::TestTimeRange::test_explicit_range_is_idempotent_and_clears_empty_days"
  "$KINDS/test_time_range.py::TestTimeRange::test_failure_in_batch_keeps_earlier_batches_and_rerun_finishes"
  "$KINDS/test_time_range.py::TestTimeRangeLifecycle"
  "$KINDS/test_unique_key.py::TestBatched"
  "$KINDS/test_scd2.py::TestMenuByColumn"
  "tests/functional/reliability/test_off_path.py::TestDeltaTimestampPartitionsNotInUtc"
)
PARQUET_SUBSET=(tests/functional/test_plan_equals_run.py)
ICEBERG_SUBSET=("$KINDS/test_time_range.py::TestTimeRange::test_backfill_then_new_days")

source scripts/uv_install.sh

versions() {  # the versions a venv resolved, one line
  "$1/bin/python" - <<'EOF'
from importlib.metadata import version
print(" ".join(f"{p}={version(p)}" for p in ("dbt-core", "dbt-spark", "pyspark")))
EOF
}

jar_versions() {  # the Delta and Iceberg jars of a folder
  find "$1" -name '*.jar' -printf '%f\n' | grep -E '^(delta-spark|iceberg-spark-runtime)' | sort | paste -sd' ' -
}

format_or_parquet() {  # format_or_parquet <format> <jars folder>: the format, or parquet when
  # no runtime of it exists for the cell's Spark (fetch_jars.sh left its folder empty): the
  # Delta subset then runs on parquet, the Iceberg one not at all
  if compgen -G "$2/$1/*.jar" >/dev/null; then echo "$1"; else echo parquet; fi
}

run_cell() {  # run_cell <dbt minor> <spark minor>
  local dbt=$1 spark=$2
  local venv=.venv-compat/dbt$dbt-spark$spark log=$results/dbt$dbt-spark$spark.log
  local dbt_spark=1.11.0
  [ "$dbt" = 1.10 ] && dbt_spark=1.10.0
  local jars=$root/.vulcan/jars-$spark
  echo "compat: dbt-core $dbt, Spark $spark ($log)"
  local started=$SECONDS status=pass
  {
    uv_install "$venv" -e ".[dev]" "dbt-core~=$dbt.0" "dbt-spark[session,PyHive]~=$dbt_spark" "pyspark~=$spark.0" \
      && PYTHON=$venv/bin/python VULCAN_JARS_DIR=$jars bash scripts/fetch_jars.sh \
      && VULCAN_JARS_DIR=$jars "$venv/bin/python" -m pytest "${DELTA_SUBSET[@]}" -q \
        --profile "$(format_or_parquet delta "$jars")" --mode package \
      && { [ "$(format_or_parquet iceberg "$jars")" = parquet ] || VULCAN_JARS_DIR=$jars \
        "$venv/bin/python" -m pytest "${ICEBERG_SUBSET[@]}" -q --profile iceberg --mode package; } \
      && { [ "${COMPAT_PLAN:-1}" = 0 ] || VULCAN_JARS_DIR=$jars "$venv/bin/python" -m pytest "${PARQUET_SUBSET[@]}" -q \
        --profile parquet --mode package; } \
      && DBT=$root/$venv/bin/dbt VULCAN_JARS_DIR=$jars \
        VULCAN_WORKDIR=$root/integration_project/.spark/compat-$dbt-$spark \
        bash integration_project/run.sh parquet 1 package
  } >"$log" 2>&1 || status=fail
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$dbt" "$spark" "$status" "$((SECONDS - started))" \
    "$(versions "$venv" 2>/dev/null || echo '?')" "$(jar_versions "$jars" 2>/dev/null)" \
    >"$results/dbt$dbt-spark$spark.tsv"
  echo "compat: dbt-core $dbt, Spark $spark: $status"
  [ "$status" = pass ] || tail -60 "$log" >&2
}

run_adapter_cell() {
  local venv=.venv-compat/adapter log=$results/adapter.log work
  work=$(mktemp -d)
  echo "compat: the adapter alone, from its wheel ($log)"
  local started=$SECONDS status=pass
  {
    rm -rf "$venv" dist
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip uv build
    "$venv/bin/python" -m build -q --wheel --outdir dist . \
      && uv_install "$venv" "dbt-core>=1.12,<1.13" \
      && before=$("$venv/bin/python" -c 'from importlib.metadata import version; print(version("dbt-core"))') \
      && uv_install "$venv" dist/dbt_vulcan-*.whl \
      && after=$("$venv/bin/python" -c 'from importlib.metadata import version; print(version("dbt-core"))') \
      && echo "dbt-core before the adapter: $before, after: $after" \
      && [ "$before" = "$after" ] \
      && PYTHON=$venv/bin/python VULCAN_JARS_DIR=$root/.vulcan/jars-adapter bash scripts/fetch_jars.sh \
      && cp -r integration_project "$work/example" \
      && rm -rf "$work/example/packages.yml" "$work/example/package-lock.yml" "$work/example/dbt_packages" "$work/example/target" \
        "$work/example/.spark" "$work/example/logs" \
      && DBT=$root/$venv/bin/dbt VULCAN_JARS_DIR=$root/.vulcan/jars-adapter \
        VULCAN_LOG4J_CONFIG=$root/tests/log4j2.properties VULCAN_WORKDIR=$work/spark \
        bash "$work/example/run.sh" parquet \
      && [ ! -e "$work/example/dbt_packages/dbt_vulcan" ]
  } >"$log" 2>&1 || status=fail
  rm -rf "$work" dist
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "adapter" "-" "$status" "$((SECONDS - started))" \
    "$(versions "$venv" 2>/dev/null || echo '?')" "$(jar_versions "$root/.vulcan/jars-adapter" 2>/dev/null)" \
    >"$results/adapter.tsv"
  echo "compat: the adapter alone: $status"
  [ "$status" = pass ] || tail -60 "$log" >&2
}

failed=0
for cell in $cells; do
  if [ "$cell" = adapter ]; then run_adapter_cell; else run_cell "${cell%:*}" "${cell#*:}"; fi
  tsv=$results/$([ "$cell" = adapter ] && echo adapter || echo "dbt${cell%:*}-spark${cell#*:}").tsv
  if grep -q "$(printf '\tfail\t')" "$tsv"; then failed=1; fi
done
uv_prune .venv
"$root/.venv/bin/python" scripts/compat_report.py "$results" "${COMPAT_REPORT:-docs/compat.md}"
if [ "$failed" = 1 ]; then
  echo "compat: failures (logs in $results/)" >&2
  exit 1
fi
