# Sourced by scripts/bootstrap.sh and scripts/compat.sh: uv_install <venv> <requirement>...
# creates the venv when missing and installs into it with uv (from PyPI, like pip; much
# faster), given scripts/uv-overrides.txt: dbt-core 1.12's dbt-core-experimental-parser cannot
# be built where only the package registries are reachable, and dbt-core runs it only for
# `--use-v2-parser`.
uv_install() {
  local venv=$1; shift
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  [ -x "$venv/bin/uv" ] || "$venv/bin/python" -m pip install -q --upgrade pip uv
  "$venv/bin/uv" pip install -q --upgrade --python "$venv/bin/python" \
    --override "$(dirname "${BASH_SOURCE[0]}")/uv-overrides.txt" "$@"
}
