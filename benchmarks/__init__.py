"""Reproducible performance comparisons of dbt-vulcan against dbt-spark's own strategies and
raw Spark SQL: `.venv/bin/python benchmarks/run.py [--suite cold|warm] [--quick]` (see
docs/benchmarks.md and docs/benchmarks-warm.md)."""
