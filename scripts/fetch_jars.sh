#!/usr/bin/env bash
# Fetch the Delta Lake and Apache Iceberg Spark runtime jars that match the installed pyspark
# from Maven Central into .vulcan/jars/<format>/ (git-ignored). Idempotent.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-"$root/.venv/bin/python"}
spark_version=$("$py" -c 'import pyspark; print(pyspark.__version__)')
spark_minor=${spark_version%.*}
case "$spark_minor" in
  4.0) delta=4.0.1; iceberg_spark=4.0; iceberg=1.10.1 ;;
  *) echo "fetch_jars: no known Delta/Iceberg versions for Spark $spark_version" >&2; exit 1 ;;
esac
fetch() {  # fetch <format> <groupId:artifactId:version>...
  local dir="$root/.vulcan/jars/$1"; shift
  mkdir -p "$dir"
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
fetch delta "io.delta:delta-spark_2.13:$delta" "io.delta:delta-storage:$delta"
fetch iceberg "org.apache.iceberg:iceberg-spark-runtime-${iceberg_spark}_2.13:$iceberg"
echo "fetch_jars: Spark $spark_version, Delta $delta, Iceberg $iceberg in .vulcan/jars/"
