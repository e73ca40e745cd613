#!/usr/bin/env bash
# The README's operations walkthrough, from a clean warehouse: each step's command and what
# it printed (dbt's own log lines trimmed to the model's). Takes a few minutes (one JVM a step).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export VULCAN_WORKDIR=${VULCAN_WORKDIR:-$here/.spark}
export VULCAN_LOG4J_CONFIG=$root/tests/log4j2.properties
rm -rf "$VULCAN_WORKDIR" && mkdir -p "$VULCAN_WORKDIR"
dbt=$root/.venv/bin/dbt
"$dbt" deps --project-dir "$here" --profiles-dir "$root/integration_project" >/dev/null

step() {  # step TITLE dbt-args...
  local title=$1
  shift
  printf '\n### %s\n$ dbt %s\n' "$title" "$*"
  "$dbt" --no-use-colors --log-format text "$@" --project-dir "$here" \
    --profiles-dir "$root/integration_project" 2>&1 |
    sed -E 's/^[0-9:]{8}  //' |
    grep -vE '^(Running with|Registered adapter|Found [0-9]|Concurrency|Unable to do partial|Finished running|Done\. |Completed successfully|$)' |
    grep -vE '^(\{"ts"|WARNING: Using incubator|Setting default log level|To adjust logging|[[:space:]]+at |Caused by)' || true
}

step "seed" seed
step "first backfill (execution time 2025-01-08)" run --vars '{vulcan_execution_time: "2025-01-08"}'
step "plan the next run" run-operation vulcan_plan --args '{select: daily_revenue, execution_time: "2025-01-10"}'
step "the daily run" run --vars '{vulcan_execution_time: "2025-01-10"}'
step "a late event for 2025-01-09 arrived: lookback picks it up" run --vars '{vulcan_execution_time: "2025-01-11"}'
step "restate two days" run-operation vulcan_restate --args '{select: daily_revenue, start: "2025-01-02", end: "2025-01-03"}'
step "plan shows the pending restatement" run-operation vulcan_plan --args '{select: daily_revenue, execution_time: "2025-01-11"}'
step "the run recomputes it" run --vars '{vulcan_execution_time: "2025-01-11"}'
step "restate everything, then a backfill that fails in its third batch" run-operation vulcan_restate --args '{select: daily_revenue, start: "2025-01-01", end: "2025-01-10"}'
step "" run -s daily_revenue --vars '{vulcan_execution_time: "2025-01-11", fail_day: "2025-01-09"}'
step "status: batches 1-2 are kept" run-operation vulcan_status --args '{select: daily_revenue}'
step "a plain run resumes with the remaining intervals only" run -s daily_revenue --vars '{vulcan_execution_time: "2025-01-11"}'
step "history" run-operation vulcan_history --args '{select: daily_revenue}'
