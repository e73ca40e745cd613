# Sourced by scripts/bootstrap.sh and scripts/compat.sh: uv_install <venv> <requirement>...
# creates the venv when missing and installs into it with uv (from PyPI, like pip; much
# faster), given scripts/uv-overrides.txt: dbt-core 1.12's dbt-core-experimental-parser cannot
# be built where only the package registries are reachable, and dbt-core runs it only for
# `--use-v2-parser`. No `--upgrade`: in uv it implies `--refresh`, which rebuilt pyspark's
# source package (about 1.7 GB in uv's cache) at every set-up until the disk was full; a new
# venv gets the newest versions the requirements allow without it. `--compile-bytecode`:
# where PYTHONDONTWRITEBYTECODE is set (this workplace's CI), Python compiles every module it
# imports again in each process (dbt, pyspark, agate: 2 s of a fresh `dbt` process's 4.4 s
# start); compiled once here, they are read.
uv_install() {
  local venv=$1; shift
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  [ -x "$venv/bin/uv" ] || "$venv/bin/python" -m pip install -q --upgrade pip uv
  "$venv/bin/uv" pip install -q --compile-bytecode --python "$venv/bin/python" \
    --override "$(dirname "${BASH_SOURCE[0]}")/uv-overrides.txt" "$@"
}

# uv_prune <venv>: drops what uv's cache holds beyond what it can reuse (old builds of a source
# package: uv builds pyspark again when its download's HTTP cache entry expires, 1.7 GB each).
# Called once the set-up's installs are done (never beside a running install).
uv_prune() {
  "$1/bin/uv" cache prune -q || true
}
