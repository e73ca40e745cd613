# The two entry points of README.md. Each does the whole set-up it needs on a fresh machine.
PY := .venv/bin/python
PYTEST := $(PY) -m pytest

.PHONY: setup example test lint unit functional integration bench bench-quick

setup:
	bash scripts/bootstrap.sh

# The example project end to end on embedded Spark (parquet): seed, build, test.
example: setup
	bash integration_project/run.sh

lint: setup
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy dbt/adapters/vulcan

unit: setup
	$(PYTEST) tests/unit -q

# One pytest process (one SparkSession) per table format.
functional: setup
	$(PYTEST) tests/functional -q --profile parquet
	$(PYTEST) tests/functional -q --profile delta
	$(PYTEST) tests/functional -q --profile iceberg --ignore tests/functional/adapter

# The example project from a clean warehouse: every seed, model and equality test.
integration: setup
	bash integration_project/run.sh parquet

test: lint unit functional integration

# Benchmarks (not part of `make test`): side-by-side ratios against dbt-spark's strategies and
# raw Spark, written to docs/benchmarks.md; the quick mode is a small smoke run.
bench: setup
	$(PY) benchmarks/run.py

bench-quick: setup
	$(PY) benchmarks/run.py --quick
