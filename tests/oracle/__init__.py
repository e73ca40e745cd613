"""The oracle: the Python reference implementation the package's Jinja macros are checked
against. Never imported at run time and not shipped (the adapter's wheel holds
dbt/adapters/vulcan and dbt/include/vulcan only; scripts/check_imports.py fails when anything
under dbt/ imports this package).

Every run, in both modes, executes the macros of dbt/include/vulcan/macros/. Each module here
restates in plain Python what the macros of one macro folder decide, and the unit tests
(tests/unit/macros/, rendered with tests/support/macro_harness.py) compare the two on
fixed cases and on hypothesis-generated ones; the oracle's own tests sit beside it
(tests/oracle/test_<module>.py).

- planning.py: macros/planning/ (expected, missing and due intervals, lookback, batches,
  restatement ranges; one model run's batches and fingerprint)
- state.py: macros/state/ and the log's reading, replay and compaction (macros/operations/)
- operations.py: macros/operations/ (selection, plan / status / history reports, restate)
- engine.py: macros/engine/ (column checks, schema change, the SQL string literal)
- time_range.py, unique_key.py, scd2.py: macros/kinds/<kind>/
- audits.py: macros/audits/

What runs in Python at run time (config validation, the schedule, time tokens, the safety
analysis, Python models) is the adapter's own, in dbt/adapters/vulcan/; the oracle imports it
from there rather than keeping a copy.
"""
