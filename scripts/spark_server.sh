#!/usr/bin/env bash
# A local Spark cluster with a Thrift JDBC/ODBC server in front of it, from pyspark's own jars:
# a standalone master and one worker bound to 127.0.0.1, and HiveThriftServer2 submitted to
# that master with Delta Lake configured (jars from .vulcan/jars/delta). Its warehouse, Derby
# metastore, logs and pid files live in one directory that the server owns.
#
#   scripts/spark_server.sh run [-- CMD ...]   start, run CMD with VULCAN_THRIFT_HOST/PORT set,
#                                               stop (also when CMD fails or is interrupted),
#                                               exit with CMD's status
#   scripts/spark_server.sh start DIR          start in DIR; prints the env file to source
#   scripts/spark_server.sh stop DIR           stop what `start DIR` started
#
# Ports are picked free at start (the machine may run other Sparks). Settings: env
# VULCAN_THRIFT_TRANSPORT (binary, or http: the Databricks-protocol test target, HiveServer2
# over HTTP at path /cliservice with authentication NONE, reporting a Databricks runtime
# version through `spark.databricks.clusterUsageTags.sparkVersion`; tests/databricks_shim),
# VULCAN_THRIFT_MASTER (cluster: a standalone master and worker; local: the Thrift server
# runs its tasks in its own JVM, one process instead of four),
# VULCAN_THRIFT_WORKER_MEMORY (2g), VULCAN_THRIFT_EXECUTOR_MEMORY (1g),
# VULCAN_THRIFT_DRIVER_MEMORY (2g), VULCAN_THRIFT_CORES (2), VULCAN_THRIFT_START_TIMEOUT (240 s),
# VULCAN_THRIFT_KEEP (1: keep DIR after `run`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-"$root/.venv/bin/python"}

spark_home() {
  "$py" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))'
}

free_port() {
  "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

port_open() {  # port_open PORT
  "$py" -c 'import socket, sys; s = socket.socket(); s.settimeout(1); sys.exit(s.connect_ex(("127.0.0.1", int(sys.argv[1]))))' "$1"
}

alive() {  # alive PIDFILE
  [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

fail_start() {  # fail_start DIR MESSAGE
  echo "spark_server: $2; last lines of the logs in $1/logs:" >&2
  for log in "$1"/logs/*.log; do
    [ -f "$log" ] || continue
    echo "--- $log" >&2
    tail -25 "$log" >&2
  done
  stop_server "$1"
  exit 1
}

wait_for() {  # wait_for DIR PIDFILE PORT WHAT
  local deadline=$((SECONDS + ${VULCAN_THRIFT_START_TIMEOUT:-240}))
  until port_open "$3"; do
    alive "$2" || fail_start "$1" "$4 exited during start-up"
    [ "$SECONDS" -lt "$deadline" ] || fail_start "$1" "$4 not listening on port $3 in time"
    sleep 1
  done
}

launch() {  # launch DIR NAME CMD...: in its own process group, so stop can end its children
  local dir=$1 name=$2
  shift 2
  setsid "$@" >"$dir/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/$name.pid"
}

start_server() {
  local dir=$1
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  local home
  home=$(spark_home)
  local delta_jars
  # on the JVMs' own class path: with spark.jars, the Thrift server's handler threads may not
  # see them (DATA_SOURCE_NOT_FOUND: delta)
  delta_jars=$(find "$root/.vulcan/jars/delta" -name '*.jar' 2>/dev/null | sort | paste -sd: -)
  if [ -z "$delta_jars" ]; then
    echo "spark_server: no Delta jars in .vulcan/jars/delta: run bash scripts/fetch_jars.sh" >&2
    exit 1
  fi
  # Hive's llap-common when Spark leaves it out (scripts/fetch_jars.sh): a session's close
  # loads Hive's function registry, which needs it
  local hive_jars
  hive_jars=$(find "$root/.vulcan/jars/hive" -name '*.jar' 2>/dev/null | sort | paste -sd: -)
  mkdir -p "$dir/logs" "$dir/conf" "$dir/work" "$dir/tmp"
  local master_port worker_port thrift_port
  master_port=$(free_port)
  worker_port=$(free_port)
  thrift_port=$(free_port)
  local log4j="$root/tests/log4j2.properties"
  local cores=${VULCAN_THRIFT_CORES:-2}
  local mode=${VULCAN_THRIFT_MASTER:-cluster} master
  case "$mode" in
    cluster) master=spark://127.0.0.1:$master_port ;;
    local) master="local[$cores]" ;;
    *) echo "spark_server: VULCAN_THRIFT_MASTER is cluster or local, not '$mode'" >&2; exit 2 ;;
  esac

  # every JVM (master, worker, executors, thrift server) reads these
  cat >"$dir/conf/spark-defaults.conf" <<EOF
spark.master                          $master
spark.driver.host                     127.0.0.1
spark.driver.bindAddress              127.0.0.1
spark.driver.memory                   ${VULCAN_THRIFT_DRIVER_MEMORY:-2g}
spark.driver.extraJavaOptions         -Dderby.system.home=$dir -Dlog4j2.configurationFile=$log4j -Djava.io.tmpdir=$dir/tmp
spark.executor.memory                 ${VULCAN_THRIFT_EXECUTOR_MEMORY:-1g}
spark.executor.cores                  $cores
spark.cores.max                       $cores
spark.executor.extraJavaOptions       -Dlog4j2.configurationFile=$log4j -Djava.io.tmpdir=$dir/tmp
spark.local.dir                       $dir/tmp
spark.ui.enabled                      false
spark.ui.showConsoleProgress          false
spark.sql.shuffle.partitions          4
spark.locality.wait                   0s
spark.sql.session.timeZone            UTC
spark.sql.warehouse.dir               $dir/warehouse
spark.hadoop.javax.jdo.option.ConnectionURL  jdbc:derby:;databaseName=$dir/metastore_db;create=true
spark.driver.extraClassPath           $delta_jars${hive_jars:+:$hive_jars}
spark.executor.extraClassPath         $delta_jars
spark.sql.extensions                  io.delta.sql.DeltaSparkSessionExtension
spark.sql.catalog.spark_catalog       org.apache.spark.sql.delta.catalog.DeltaCatalog
spark.databricks.delta.snapshotPartitions  2
EOF
  local transport=${VULCAN_THRIFT_TRANSPORT:-binary}
  local transport_conf=(--hiveconf hive.server2.thrift.port="$thrift_port")
  case "$transport" in
    binary) ;;
    http)
      # dbt-databricks reads the runtime version (`SET ...sparkVersion`) to choose its SQL: an
      # LTS runtime whose features Apache Spark 4.0 has
      echo "spark.databricks.clusterUsageTags.sparkVersion  15.4.x-scala2.12" >>"$dir/conf/spark-defaults.conf"
      transport_conf=(--hiveconf hive.server2.transport.mode=http
        --hiveconf hive.server2.thrift.http.port="$thrift_port"
        --hiveconf hive.server2.thrift.http.path=cliservice) ;;
    *) echo "spark_server: VULCAN_THRIFT_TRANSPORT is binary or http, not '$transport'" >&2; exit 2 ;;
  esac
  export SPARK_HOME=$home SPARK_CONF_DIR=$dir/conf SPARK_LOCAL_IP=127.0.0.1
  export SPARK_DAEMON_JAVA_OPTS="-Dlog4j2.configurationFile=$log4j -Djava.io.tmpdir=$dir/tmp"

  # SPARK_DAEMON_MEMORY sizes the master and worker (the launcher would also apply it to the
  # Thrift server, which needs the driver memory)
  if [ "$mode" = cluster ]; then
    launch "$dir" master env SPARK_DAEMON_MEMORY=256m "$home/bin/spark-class" org.apache.spark.deploy.master.Master \
      --host 127.0.0.1 --port "$master_port" --webui-port 0
    wait_for "$dir" "$dir/master.pid" "$master_port" "the Spark master"
    launch "$dir" worker env SPARK_DAEMON_MEMORY=256m "$home/bin/spark-class" org.apache.spark.deploy.worker.Worker \
      --host 127.0.0.1 --port "$worker_port" --webui-port 0 --cores "$cores" \
      --memory "${VULCAN_THRIFT_WORKER_MEMORY:-2g}" --work-dir "$dir/work" \
      "spark://127.0.0.1:$master_port"
    wait_for "$dir" "$dir/worker.pid" "$worker_port" "the Spark worker"
  fi
  launch "$dir" thriftserver env SPARK_DAEMON_MEMORY="${VULCAN_THRIFT_DRIVER_MEMORY:-2g}" \
    "$home/bin/spark-submit" \
    --class org.apache.spark.sql.hive.thriftserver.HiveThriftServer2 \
    --name vulcan-thrift-server \
    --hiveconf hive.server2.thrift.bind.host=127.0.0.1 \
    "${transport_conf[@]}" \
    --hiveconf hive.server2.authentication=NONE \
    --hiveconf hive.server2.enable.doAs=false \
    spark-internal
  wait_for "$dir" "$dir/thriftserver.pid" "$thrift_port" "the Thrift server"
  printf 'VULCAN_THRIFT_HOST=127.0.0.1\nVULCAN_THRIFT_PORT=%s\nVULCAN_THRIFT_DIR=%s\nVULCAN_THRIFT_TRANSPORT=%s\n' \
    "$thrift_port" "$dir" "$transport" >"$dir/env"
  echo "spark_server: Thrift server ($transport) on 127.0.0.1:$thrift_port (master $master), dir $dir" >&2
  echo "$dir/env"
}

stop_one() {  # stop_one PIDFILE: TERM the process group, KILL it after 20 s
  local pidfile=$1 pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 40); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    # the group may still hold children (the worker's executors) after its leader exited
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

stop_server() {
  local dir=$1
  stop_one "$dir/thriftserver.pid"
  stop_one "$dir/worker.pid"
  stop_one "$dir/master.pid"
}

cmd=${1:-}
case "$cmd" in
  start)
    [ $# -eq 2 ] || { echo "usage: $0 start DIR" >&2; exit 2; }
    start_server "$2"
    ;;
  stop)
    [ $# -eq 2 ] || { echo "usage: $0 stop DIR" >&2; exit 2; }
    stop_server "$2"
    ;;
  run)
    shift
    [ "${1:-}" = "--" ] && shift
    dir=$(mktemp -d "${TMPDIR:-/tmp}/vulcan-thrift-XXXXXX")
    child=""
    cleanup() {
      # the start-up or CMD may still run (we were interrupted): end it first
      if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
        kill -TERM "$child" 2>/dev/null || true
        wait "$child" 2>/dev/null || true
      fi
      stop_server "$dir"
      if [ "${VULCAN_THRIFT_KEEP:-0}" != 1 ]; then rm -rf "$dir"; fi
    }
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    # start-up and CMD run in the background and are waited for: bash runs a trap only
    # between commands, and `wait` is interrupted by a signal (a foreground child is not)
    start_server "$dir" >/dev/null &
    child=$!
    wait "$child"
    child=""
    set -a
    # shellcheck disable=SC1090
    . "$dir/env"
    set +a
    status=0
    if [ $# -gt 0 ]; then
      "$@" &
      child=$!
      wait "$child" || status=$?
      child=""
    fi
    if [ "$status" -ne 0 ]; then
      # what the server saw (a lost session, an OutOfMemoryError): the client side only shows
      # a closed socket
      echo "spark_server: CMD exited $status; the server's errors in $dir/logs:" >&2
      grep -hE "ERROR|Exception|Error:" "$dir"/logs/*.log 2>/dev/null | tail -40 >&2 || true
    fi
    exit "$status"
    ;;
  *)
    echo "usage: $0 run [-- CMD ...] | start DIR | stop DIR" >&2
    exit 2
    ;;
esac
