#!/usr/bin/env bash
# Fetch the Delta Lake and Apache Iceberg Spark runtime jars that match the installed pyspark
# from Maven Central into .vulcan/jars/<format>/ (git-ignored; VULCAN_JARS_DIR moves it: make
# compat keeps one folder per Spark version). Idempotent. PYTHON picks the venv.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-"$root/.venv/bin/python"}
spark_version=$("$py" -c 'import pyspark; print(pyspark.__version__)')
spark_minor=${spark_version%.*}
# Delta's and Iceberg's runtimes for each Spark minor (Scala 2.12 on Spark 3.5, 2.13 on 4.x).
# Spark 3.5: Delta 3.3.3 at least (Spark 3.5.6+ refuses 3.3.2's CREATE OR REPLACE TABLE ... AS
# SELECT: "does not support truncate in batch mode", delta-io/delta#4671).
case "$spark_minor" in
  3.5) delta=3.3.3; delta_artifact=delta-spark_2.12; iceberg_artifact=iceberg-spark-runtime-3.5_2.12; iceberg=1.10.1 ;;
  4.0) delta=4.0.1; delta_artifact=delta-spark_2.13; iceberg_artifact=iceberg-spark-runtime-4.0_2.13; iceberg=1.10.1 ;;
  4.1) delta=4.3.1; delta_artifact=delta-spark_2.13; iceberg_artifact=iceberg-spark-runtime-4.1_2.13; iceberg=1.12.0 ;;
  # Spark 4.2: Delta 4.4 (built on Spark 4.2.0); Iceberg publishes no runtime for it yet (no
  # iceberg-spark-runtime-4.2 on Maven Central on 2026-12-01). Spark 4.3: neither yet.
  4.2) delta=4.4.0; delta_artifact=delta-spark_2.13; iceberg= ;;
  4.3) delta=; iceberg= ;;
  *) echo "fetch_jars: no known Delta/Iceberg versions for Spark $spark_version" >&2; exit 1 ;;
esac
fetch() {  # fetch <format> <groupId:artifactId:version>...
  local dir="${VULCAN_JARS_DIR:-$root/.vulcan/jars}/$1"; shift
  mkdir -p "$dir"
  # the folder is the classpath: a jar of another version (a Spark or pin changed) goes
  local wanted=() jar
  for artifact in "$@"; do
    IFS=: read -r group name version <<<"$artifact"
    wanted+=("$name-$version.jar")
  done
  for jar in "$dir"/*.jar; do
    [ -e "$jar" ] || continue
    [[ " ${wanted[*]} " == *" $(basename "$jar") "* ]] || rm -f "$jar"
  done
  for artifact in "$@"; do
    IFS=: read -r group name version <<<"$artifact"
    [ -s "$dir/$name-$version.jar" ] && continue
    if ! mvn -B -q dependency:copy -Dartifact="$artifact" -DoutputDirectory="$dir" \
        >"$dir/mvn.log" 2>&1; then
      echo "fetch_jars: could not fetch $artifact from Maven Central; mvn said:" >&2
      tail -20 "$dir/mvn.log" >&2
      exit 1
    fi
  done
}
# a format with no runtime for this Spark gets an empty folder (its tests then say so)
if [ -n "$delta" ]; then
  fetch delta "io.delta:$delta_artifact:$delta" "io.delta:delta-storage:$delta"
else
  fetch delta
fi
if [ -n "$iceberg" ]; then fetch iceberg "org.apache.iceberg:$iceberg_artifact:$iceberg"; else fetch iceberg; fi
# Spark 4's distribution leaves out Hive's llap-common, which Hive's function registry loads when
# the Thrift server (scripts/spark_server.sh) closes a session on some handler threads: without
# it the thread dies on NoClassDefFoundError (LlapSigner$Signable) and the client reads 0 bytes
# (SPARK-51041 added it back to Spark's own Thrift server tests). The test server puts it on
# its class path; the version is the bundled Hive's.
spark_jars=$("$py" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')
hive=$(find "$spark_jars" -name 'hive-exec-*-core.jar' -printf '%f\n' | sed -n 's/^hive-exec-\(.*\)-core\.jar$/\1/p' | head -1)
if [ -n "$hive" ] && [ -z "$(find "$spark_jars" -name 'hive-llap-common-*.jar')" ]; then
  fetch hive "org.apache.hive:hive-llap-common:$hive"
else
  fetch hive
fi
echo "fetch_jars: Spark $spark_version, Delta ${delta:-none}, Iceberg ${iceberg:-none}, Hive llap-common ${hive:-none} in ${VULCAN_JARS_DIR:-.vulcan/jars}/"
