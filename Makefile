# The two entry points of README.md. Each does the whole set-up it needs on a fresh machine.
PY := .venv/bin/python
PYTEST := $(PY) -m pytest
# how many of the slowest tests each functional lane lists (`make test DURATIONS=0`: all)
DURATIONS ?= 10

.PHONY: setup example test lint docs environments unit functional functional-parquet functional-delta \
	functional-iceberg functional-package functional-package-parquet functional-package-iceberg integration integration-parquet integration-package integration-delta thrift databricks databricks-full test-lane-1 \
	test-lane-2 compat compat-oldest bench bench-quick bench-thrift bench-thrift-quick bench-warm bench-warm-quick \
	fuzz fuzz-environments

setup:
	bash scripts/bootstrap.sh

# The example project end to end on embedded Spark (parquet): seed, build, test.
example: setup
	bash integration_project/run.sh

lint: setup
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy dbt/adapters/vulcan tests/oracle
	.venv/bin/python scripts/check_v2_rules.py
	.venv/bin/python scripts/check_imports.py
	.venv/bin/python scripts/check_macro_calls.py --strict
	.venv/bin/python scripts/version.py check
	.venv/bin/python scripts/check_docs_words.py
	$(MAKE) --no-print-directory docs

# The docs site (mkdocs.yml, docs/) built into site/; --strict: a broken link, anchor or nav
# entry fails (part of `make lint`, so of CI).
docs: setup
	NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet

# the unit tests and the oracle's own (tests/oracle: the Python reference the macros are
# checked against, never shipped)
unit: setup
	$(PYTEST) tests/unit tests/oracle -q -n 2

# The loss paths one step off the example path (#47: a text time format, a day column under an
# hourly cron, a session not in UTC, a batch written but not recorded, an accumulating
# when_matched): on every format in adapter mode, and in package mode on parquet. Not on the
# Thrift server: a session setting made by the test's connection is not dbt's there.
OFF_PATH_TESTS = tests/functional/reliability/test_off_path.py

# What does not depend on the table format (config refusals before anything is created,
# planning alone, dbt's grants statement): run on parquet (both modes), left out of the Delta and Iceberg lanes, which
# keep every test that writes.
FORMAT_FREE = \
	--deselect $(KINDS)/test_table_configs.py::TestGrantsAreApplied \
	--deselect $(KINDS)/test_tracked.py::TestTrackedBuiltFromNothing \
	--deselect $(KINDS)/test_tracked.py::TestTrackedRuns::test_bad_input_is_refused_before_anything_is_written \
	--deselect $(KINDS)/test_tracked.py::TestTrackedRuns::test_config_checked_against_the_query \
	--deselect $(KINDS)/test_partition.py::TestPartitionConfigErrors \
	--deselect $(KINDS)/test_partition.py::TestPartition::test_changed_partitioning_is_refused \
	--deselect $(KINDS)/test_unique_key.py::TestUpsert::test_invalid_when_matched_refused_before_any_write \
	--deselect $(KINDS)/test_time_range.py::TestTimeRange::test_weekly_runs_only_complete_weeks \
	--deselect $(KINDS)/test_time_range.py::TestTimeRange::test_batch_size_splits \
	--deselect $(KINDS)/test_scd2.py::TestEdgeCases::test_config_errors_name_every_problem \
	--deselect $(OFF_PATH_TESTS)::TestDayColumnUnderHourlyCron \
	--deselect $(OFF_PATH_TESTS)::TestStageOutlivingItsTable \
	--deselect $(OFF_PATH_TESTS)::TestReplayedStageOfAMovedKey \
	--deselect $(OFF_PATH_TESTS)::TestWrittenNotRecorded::test_accumulating_when_matched_refuses_lookback \
	--deselect $(OFF_PATH_TESTS)::TestWrittenNotRecorded::test_accumulating_when_matched_refuses_an_explicit_range_over_processed_days

# Environments (the virtual layer): views over version tables, dev / CI / prod targets, the
# deploy and the rollback, adoption, the janitor. The 25-model job (test_layered_project.py,
# about 3 minutes a column) is left out of CI's lanes for their time; `make environments`
# runs the whole folder in every column.
ENVIRONMENTS_TEST = tests/functional/environments/test_environments.py
# dbt's commands with the virtual layer (--defer, --empty, dbt retry, --full-refresh, dbt show),
# a rebuild swapped in when complete: the same Jinja in both modes; CI runs it in package mode,
# and the rebuild on Iceberg and type: databricks too (their replace, not parquet's drop and
# create)
ENVIRONMENTS_DBT_TEST = tests/functional/environments/test_environments_dbt.py
environments: setup
	$(PYTEST) tests/functional/environments -q --durations=$(DURATIONS) --profile parquet
	$(PYTEST) tests/functional/environments -q --durations=$(DURATIONS) --profile parquet --mode package
	$(PYTEST) tests/functional/environments -q --durations=$(DURATIONS) --profile delta
	$(PYTEST) tests/functional/environments -q --durations=$(DURATIONS) --profile iceberg

# One pytest process (one SparkSession) per table format. The reliability tests run on
# parquet here and on Delta in `make thrift` (kill -9, concurrent processes), not three times.
functional: functional-parquet functional-delta functional-iceberg

# PARQUET_DESELECT: what CI's lane leaves out here (test-lane-1)
PARQUET_DESELECT ?=
functional-parquet: setup
	$(PYTEST) tests/functional -q --durations=$(DURATIONS) --profile parquet $(PARQUET_DESELECT)

# Delta in adapter mode (the fold's own suite runs on parquet and Iceberg; on Delta the repartitioning
# of a state table from before; eight threads folding at once: THREADS_TEST, thrift, databricks):
# dbt's own suites that need Delta on the adapter (of the snapshot suites the timestamp
# strategy; `$(PYTEST) tests/functional/adapter --profile delta` runs check-columns and the
# basic suites too), every kind (REPLACE WHERE, MERGE, a reordered SELECT: `make databricks`;
# partitions, SCD type 2), converted and reordered tables, the SQLMesh oracles and contracts
# with Delta constraints, liquid clustering and OPTIMIZE (the format-independent suites run on
# parquet).
DELTA_TESTS = tests/functional/adapter/test_delta_suites.py $(KINDS)/test_time_range.py $(KINDS)/test_unique_key.py \
	$(KINDS)/test_partition.py $(KINDS)/test_unmanaged.py $(KINDS)/test_scd2.py $(KINDS)/test_tracked.py \
	$(KINDS)/test_existing_tables.py $(KINDS)/test_sqlmesh_oracle.py tests/functional/test_contracts.py \
	tests/functional/test_state_fold.py::TestStateTableFromBeforeThePartitioning $(OFF_PATH_TESTS) \
	$(KINDS)/test_clustering.py $(ENVIRONMENTS_TEST) $(GUIDES_ON_DELTA)
# the migration guides whose "before" needs Delta (dbt-spark's merge and snapshots); the other
# guides' tests run on parquet (functional-parquet runs every test under tests/functional)
GUIDES_ON_DELTA = tests/functional/guides/test_migrate_merge.py tests/functional/guides/test_migrate_snapshots.py
# DELTA_DESELECT / ICEBERG_DESELECT: what CI's lanes leave out there (test-lane-1, test-lane-2)
DELTA_DESELECT ?=
ICEBERG_DESELECT ?=
functional-delta: setup
	$(PYTEST) $(DELTA_TESTS) -q --durations=$(DURATIONS) --profile delta $(FORMAT_FREE) $(DELTA_DESELECT) \
		--deselect tests/functional/adapter/test_delta_suites.py::TestSnapshotCheckColsVulcan \
		--deselect $(KINDS)/test_existing_tables.py::TestReorderedSelect

# Package mode: stock `type: spark` with only the dbt package installed (no Python of ours in
# the run). Every kind, the operations, the state log, the audits, the bad-input catalogue,
# and dbt killed with its Spark at random points of a backfill; tests that need the adapter
# (safety analysis, Python models) skip themselves (adapter_only). The SQLMesh oracles and
# plan == run run in adapter mode only: the kinds' SQL and the planner they check are the same
# Jinja in both modes (the adapter replaces only the state append, the stage listing and the
# checks of its own Python; `make compat` runs plan == run in package mode on every dbt-core
# and Spark), and the kinds' own tests run here.
PACKAGE_TESTS = tests/functional/reliability/test_safety_analysis.py tests/functional/reliability/test_settings_once.py $(KINDS)/test_time_range.py $(KINDS)/test_partition.py $(KINDS)/test_unmanaged.py \
	$(KINDS)/test_unique_key.py $(KINDS)/test_scd2.py $(KINDS)/test_tracked.py $(KINDS)/test_upstream.py \
	tests/functional/test_operations.py tests/functional/test_state_log.py tests/functional/test_audits.py \
	tests/functional/reliability/test_bad_input.py tests/functional/test_dbt_native.py \
	tests/functional/test_contracts.py tests/functional/test_extension_points.py $(KINDS)/test_existing_tables.py $(THREADS_TEST) \
	tests/functional/reliability/test_crash.py::TestKilledEmbeddedBackfill $(OFF_PATH_TESTS) $(KINDS)/test_table_configs.py \
	$(KINDS)/test_clustering.py $(CONVERTED_PROJECT) $(ENVIRONMENTS_TEST) $(ENVIRONMENTS_DBT_TEST)

# (a converted table: the same Jinja as adapter mode, which runs it on every format)
# the write strategies of Iceberg in package mode: a reordered SELECT moves no value (on Delta:
# `make databricks`, the package's Delta path; adapter mode runs the same Jinja on Delta); eight
# threads append to an Iceberg state table (to a Delta one: `make databricks`)
THREADS_TEST = tests/functional/reliability/test_concurrency.py::TestEightThreadsSeveralRuns
# a team's project of jaffle-shop's shape converted in place, eight threads (CI: type: databricks)
CONVERTED_PROJECT = tests/functional/package/test_converted_project.py
PACKAGE_FORMAT_TESTS = $(KINDS)/test_existing_tables.py::TestReorderedSelect $(KINDS)/test_tracked.py::TestTrackedHistories $(THREADS_TEST)
# PACKAGE_DESELECT: what CI's lane leaves out here (test-lane-2)
PACKAGE_DESELECT ?=
functional-package: functional-package-parquet functional-package-iceberg
functional-package-parquet: setup
	$(PYTEST) $(PACKAGE_TESTS) -q --durations=$(DURATIONS) --profile parquet --mode package \
		--deselect $(KINDS)/test_existing_tables.py::TestConvertedFromTable $(PACKAGE_DESELECT)
functional-package-iceberg: setup
	$(PYTEST) $(PACKAGE_FORMAT_TESTS) -q --durations=$(DURATIONS) --profile iceberg --mode package

# Iceberg in adapter mode: what depends on the table format (every kind's write strategy,
# converted and reordered tables, contracts, the state log and its fold in Iceberg, an audit's
# stage, MERGE over the connection); the format-independent suites (planner, operations,
# audits, dbt native, Python models) run on parquet, the SQLMesh oracles on parquet and Delta.
ICEBERG_TESTS = $(KINDS)/test_time_range.py $(KINDS)/test_unique_key.py $(KINDS)/test_partition.py $(KINDS)/test_unmanaged.py \
	$(KINDS)/test_scd2.py $(KINDS)/test_tracked.py::TestTrackedHistories $(KINDS)/test_existing_tables.py \
	tests/functional/test_contracts.py tests/functional/test_state_log.py tests/functional/test_state_fold.py \
	tests/functional/test_connection.py \
	tests/functional/test_audits.py::TestAuditsTimeRange $(OFF_PATH_TESTS) $(KINDS)/test_table_configs.py \
	$(ENVIRONMENTS_TEST)::TestEnvironments $(ENVIRONMENTS_DBT_TEST)::TestARebuildIsSwappedInWhenComplete
functional-iceberg: setup
	$(PYTEST) $(ICEBERG_TESTS) -q --durations=$(DURATIONS) --profile iceberg $(FORMAT_FREE) $(ICEBERG_DESELECT)

# method: thrift against a real Spark cluster: scripts/spark_server.sh starts a standalone
# master and worker plus a Spark Thrift Server (Delta) on 127.0.0.1, runs the declared subset
# below and stops them, also on failure. The subset covers every kind (time range, unique key,
# partition, unmanaged), the state log, the connection and the
# reliability tests that need a server (kill -9 of dbt, two dbt processes of 4 threads at once
# on one state table, credentials, an interrupted swap, a target's column types read over the
# protocol; an exception in a batch runs on every embedded target and type: databricks); the rest of the functional suite runs on the embedded
# targets.
KINDS := tests/functional/kinds
THRIFT_TESTS := \
	$(KINDS)/test_time_range.py::TestTimeRangeLifecycle::test_incremental_run_issues_one_write_and_one_state_append \
	$(KINDS)/test_unique_key.py::TestBatched::test_batches_upsert_in_order_and_are_recorded \
	$(KINDS)/test_partition.py::TestPartition::test_replaces_present_keys_keeps_absent_inserts_new \
	$(KINDS)/test_unmanaged.py::TestUnmanaged::test_appends_on_every_run_without_dedupe \
	tests/functional/test_state_log.py::TestStateLog::test_new_invocation_reads_back_what_was_recorded \
	tests/functional/test_connection.py tests/functional/reliability \
	--deselect tests/functional/reliability/test_crash.py::TestExceptionInBatch --deselect $(OFF_PATH_TESTS)

# package mode (stock type: spark + the package) on the same server: a query's column types
# come back as type codes over thrift, which the kinds' own schema read must not trip on; the
# two dbt processes at once, as in adapter mode (every kind in package mode on a server:
# `make databricks`; the package's kill -9 trials: functional-package, with dbt's own Spark)
THRIFT_PACKAGE_TESTS := \
	$(KINDS)/test_time_range.py::TestTimeRangeLifecycle::test_incremental_run_issues_one_write_and_one_state_append \
	tests/functional/reliability/test_concurrency.py::TestTwoProcessesFourThreads

# THRIFT_CRASH_TRIALS: how many random kill -9 points against the server (the test's default:
# 6; CI's lane: 3, beside the package's kill trials and the fuzzer's crashes)
THRIFT_CRASH_TRIALS ?=
thrift: setup
	bash scripts/spark_server.sh run -- sh -c '$(if $(THRIFT_CRASH_TRIALS),VULCAN_CRASH_TRIALS=$(THRIFT_CRASH_TRIALS) )$(PYTEST) $(THRIFT_TESTS) -q --durations=$(DURATIONS) --profile thrift \
		&& $(PYTEST) $(THRIFT_PACKAGE_TESTS) -q --durations=$(DURATIONS) --profile thrift --mode package'

# type: databricks for real: stock dbt-databricks with the package (.venv-databricks) against
# the Databricks-protocol test server (scripts/spark_server.sh with VULCAN_THRIFT_TRANSPORT=http:
# the Spark Thrift Server over HTTP, Delta, its tasks in its own JVM; the connector's test-only
# shim tests/databricks_shim). The example project built with eight threads (every kind, a new
# Delta state table appended to at once, the unit tests, the equality tests against the
# expected seeds; a second build runs every model incrementally), then what the example does
# not show, on the adapter's default format (Delta): lookback, a failed batch and its rerun, one
# REPLACE WHERE per run, when_matched / merge_filter, partition replacement, Delta constraints
# of a contract, `vulcan_render`, a signal naming a source() and a ref() (three-part names), and
# a liquid-clustered table created, altered on a change and kept through a rebuild, and every
# kind's relation and column comments through every rebuild (test_comments.py).
# A test over HTTP costs about three times its embedded run (measured 2026-11-29, alone: the
# example project 4.2 minutes, these tests about 8); what runs in package mode on stock
# type: spark or in adapter mode on Delta with the same Jinja stays there: the waits across
# jobs, `dbt show`, `vulcan_plan` (232 s here), eight threads of TestEightThreadsSeveralRuns
# (221 s; package mode on Iceberg), a reordered SELECT and the tracked kind's random histories
# (adapter mode on Delta and Iceberg); `make databricks-full` runs all of package mode here.
# the Delta writes type: databricks runs (the package's Jinja, the adapter's too): CI's Delta
# lane leaves them to it
DATABRICKS_ON_DELTA := \
	$(KINDS)/test_time_range.py::TestTimeRange::test_lookback_picks_up_late_rows \
	$(KINDS)/test_time_range.py::TestTimeRange::test_failure_in_batch_keeps_earlier_batches_and_rerun_finishes \
	$(KINDS)/test_unique_key.py::TestUpsert::test_multiple_when_matched_clauses \
	$(KINDS)/test_unique_key.py::TestUpsert::test_merge_filter_and_its_caveat \
	$(KINDS)/test_partition.py::TestPartition::test_replaces_present_keys_keeps_absent_inserts_new \
	tests/functional/test_contracts.py::TestContractConstraints
DATABRICKS_TESTS := \
	$(KINDS)/test_time_range.py::TestTimeRangeLifecycle::test_incremental_run_issues_one_write_and_one_state_append \
	$(DATABRICKS_ON_DELTA) \
	$(KINDS)/test_upstream.py::TestSignalOnALateSource \
	tests/functional/test_operations.py::TestOperations::test_render_prints_each_batch_sql \
	$(KINDS)/test_clustering.py::TestClusteredTimeRange $(KINDS)/test_clustering.py::TestConvertedDatabricksModel \
	$(KINDS)/test_table_configs.py::TestTagsNeedUnityCatalog $(KINDS)/test_table_configs.py::TestQueryTagsAndComment \
	$(KINDS)/test_comments.py $(CONVERTED_PROJECT) $(ENVIRONMENTS_TEST)::TestEnvironments \
	$(ENVIRONMENTS_DBT_TEST)::TestARebuildIsSwappedInWhenComplete
DATABRICKS_PY := .venv-databricks/bin/python
# the example project's builds on type: databricks (CI: two, the second incremental and with
# the virtual layer from DATABRICKS_VIRTUAL_FROM: every table adopted, every model a view)
DATABRICKS_BUILDS ?= 2
DATABRICKS_THREADS ?= 8
# the example's build from which the virtual layer is on (its tables adopted, its models views
# over their versions' tables; 0: never)
DATABRICKS_VIRTUAL_FROM ?= 2
databricks: setup
	VULCAN_THRIFT_TRANSPORT=http VULCAN_THRIFT_MASTER=local bash scripts/spark_server.sh run -- sh -c 'VULCAN_THREADS=$(DATABRICKS_THREADS) VULCAN_VIRTUAL_FROM=$(DATABRICKS_VIRTUAL_FROM) bash integration_project/run.sh databricks $(DATABRICKS_BUILDS) package \
		&& PYTHONPATH=tests/databricks_shim $(DATABRICKS_PY) -m pytest $(DATABRICKS_TESTS) -q --durations=$(DURATIONS) \
		--profile databricks --mode package'

# package mode's whole functional suite on type: databricks (about 50 min; by hand, before a
# change to the databricks__ macros or the shim lands)
databricks-full: setup
	VULCAN_THRIFT_TRANSPORT=http VULCAN_THRIFT_MASTER=local bash scripts/spark_server.sh run -- sh -c 'PYTHONPATH=tests/databricks_shim \
		$(DATABRICKS_PY) -m pytest $(PACKAGE_TESTS) -q --durations=$(DURATIONS) --profile databricks --mode package'

# The example project from a clean warehouse: every seed, model and equality test; on parquet
# built twice in a row (the second build runs every model incrementally), once on Delta.
integration: integration-parquet integration-delta

# CI builds it once (its second, incremental build: `make integration-parquet`; the package's in
# `make databricks`)
PARQUET_BUILDS ?= 2
integration-parquet: setup
	bash integration_project/run.sh parquet $(PARQUET_BUILDS)

integration-delta: setup
	bash integration_project/run.sh delta 1

# the example project on stock `type: spark` with the package alone, twice (its models of the
# kinds the package runs; the same expected seeds; the second build runs every model
# incrementally); CI builds it twice here and once on type: databricks
PACKAGE_BUILDS ?= 2
integration-package: setup
	bash integration_project/run.sh parquet $(PACKAGE_BUILDS) package

# Everything CI runs, in two lanes at once, each printing when it starts and ends: lint, the
# unit tests, adapter mode on parquet (with the stateful fuzzer's fixed budget, 4 examples
# there and 3 on Delta at the lane's end: about 2 minutes, its Delta Lake's own paths, where a
# shifted TIMESTAMP partition value once hid) and on Iceberg,
# the Thrift server (both modes) and the example project on type: vulcan and on the package
# (stock type: spark), beside Delta, package mode's functional lane (eight threads on Iceberg
# too) and type: databricks (the example project, its functional subset and a converted
# project). A rehearsal on 2026-12-03 (before the fuzzer's Delta budget) ended lane 1 at 49.5
# and lane 2 at 51 minutes (52 with set-up). The test JVMs on the serial collector, a rehearsal on 2026-12-02 ended lane 1 at
# 50.3 and lane 2 at 54.5 minutes (CI: 61 with set-up); the package's example then moved to
# lane 1 (about 2 minutes) to make room for the converted project on type: databricks (about
# 1.5). CI on 2026-12-01 took 61 minutes (lane
# 2 the longer: Delta 15.5, package 20.5, type: databricks 11.5, the example twice 5): the
# clustering's lifecycle on Delta went to type: databricks, the package's example is built
# once in CI; a rehearsal after it on a slower day gave lane 1 about 71 and lane 2 about 64
# minutes (each suite about 1.3x its time the day before), with eight threads on Iceberg in
# lane 1: they went back to lane 2. Lean, no mode dropped. A fresh clone on 2026-11-29 took 92 and 98 minutes a
# lane (over CI's 90); after this cut (the unit tests' macro harness compiling each template
# once, through the adapter's cache of compiled Jinja: 248 -> 121 s alone; the tests below moved
# to the one lane or mode that runs their code) a fresh clone took 78 minutes in lane 1 (lint
# and unit 6, parquet 36, Iceberg 18, Thrift 13.5, the example 4.5) and about 78 in lane 2
# (Delta 20.5, package 30 + 3.5, type: databricks 15.5, the package's example twice): still
# over the 60 the project aims at. Each test left out runs in another lane or mode:
# - adapter mode on parquet leaves the kinds' own suites and the loss paths off the example
#   path (test_off_path.py) to package mode on parquet (the same Jinja writes; the adapter
#   replaces only the state append, the stage listing and its own checks, which every other
#   suite of the lane runs); adapter mode runs the kinds and the loss paths on Delta and
#   Iceberg, and its example project builds every kind on parquet; eight threads run in package
#   mode on Iceberg and in the example project on type: databricks; plan == run in
#   `make compat`; of the SQLMesh oracles the documented SCD type 2 examples and one time range
#   history; the bad-config catalogue in package mode (the same Jinja validator); the package
#   parsing on stock type: spark in package mode (every test there), on stock type: databricks
#   in its lane (the example project and its tests parse and build there); non-blocking audits
#   on the time range kind (the audit and its stage are the kinds' shared engine), blocking
#   ones on four kinds (time range, unique key, unmanaged, tracked: a batch, a MERGE, an
#   append, a whole-table replace); a contract's table on three kinds (the same CREATE);
# - package mode leaves the tables' properties and comments on every kind to Iceberg, and the
#   operations, the state log, audits, contracts, the extension points
#   and the waits across jobs (test_upstream.py; its signal test on type: databricks) to adapter
#   mode (the same Jinja), and to Iceberg (package mode: eight threads appending to an Iceberg
#   state table) and adapter mode on Delta and Iceberg the reordered SELECT and the tracked
#   kind's random histories; it runs every kind, the reliability suites and dbt's own commands;
# - Delta and Iceberg leave out what does not depend on the format (FORMAT_FREE) and what writes
#   with a statement a kept test writes with (CI_FORMAT_LEAN); Delta the SQLMesh oracles
#   (parquet), SCD type 2 by time (the example project on type: databricks builds it on Delta),
#   its edge cases and historical source, the converted table, dbt's unique-key, snapshot and
#   merge_exclude_columns and incremental predicates suites (dbt-spark's own incremental macros,
#   which the adapter does not change; `make functional-delta` runs them), the tracked kind's
#   random histories (Iceberg), a session not in UTC (Delta's own test of TIMESTAMP partitions
#   there writes an unpartitioned table in New York too), the clustering's lifecycle (type: databricks: the package on
#   Delta; adapter mode keeps every kind clustered), `location_root` on every kind and tags
#   without Unity Catalog (package mode on parquet, whose rebuild into a folder is the format's
#   own path), the tables' properties and comments on every kind (in the
#   Iceberg lane, which has column comments too; adapter mode on parquet leaves it there too);
#   Iceberg the same SCD type 2 edge cases and by time, the converted table, lookback (a
#   rerun's write: the explicit range) and NULL keys (the MERGE of the composite key);
# - the Thrift server runs the kinds' writes once each (SCD type 2 by column on Delta: the Delta
#   lane and the example project on type: databricks); dbt killed with its embedded Spark in
#   adapter mode is left out: CI kills dbt in adapter mode against the Thrift server and with
#   its Spark in package mode (functional-package): each of the two state appends is killed;
# - the example project is built once in each column (`make integration-package` builds it
#   twice: its second, incremental build; the kinds' incremental runs are in every functional
#   lane);
# - the oldest dbt-core / Spark pair is breadth: `make compat` (every pair) and
#   `make compat-oldest`, run before an issue that could affect it is resolved.
CI_PARQUET_DESELECT = --deselect tests/functional/reliability/test_crash.py::TestKilledEmbeddedBackfill \
	--ignore=tests/functional/environments/test_layered_project.py --ignore=$(ENVIRONMENTS_DBT_TEST) \
	--ignore=$(KINDS)/test_time_range.py --ignore=$(KINDS)/test_unique_key.py \
	--ignore=$(KINDS)/test_partition.py --ignore=$(KINDS)/test_unmanaged.py \
	--ignore=$(KINDS)/test_scd2.py --ignore=$(KINDS)/test_tracked.py --ignore=$(KINDS)/test_table_configs.py \
	--deselect $(KINDS)/test_existing_tables.py::TestReorderedSelect --ignore=$(OFF_PATH_TESTS) --ignore=$(CONVERTED_PROJECT) \
	--ignore=tests/functional/test_plan_equals_run.py --deselect $(THREADS_TEST) \
	$(foreach c,scd2_time-1 scd2_time-2 scd2_column-1 scd2_column-2,--deselect "$(KINDS)/test_sqlmesh_oracle.py::TestScd2MatchesSqlmesh::test_every_step[$(c)]") \
	--deselect "$(KINDS)/test_sqlmesh_oracle.py::TestTimeRangeMatchesSqlmesh::test_every_step[time_range-2]" \
	--deselect tests/functional/reliability/test_bad_input.py::TestBadConfigCatalogue \
	--deselect "tests/functional/package/test_package_parse.py::test_parses_on_a_stock_adapter_with_the_package[spark]" \
	--deselect "tests/functional/package/test_package_parse.py::test_the_example_project_parses_with_no_deprecation[spark]" \
	--deselect "tests/functional/package/test_package_parse.py::test_parses_on_a_stock_adapter_with_the_package[databricks]" \
	$(foreach k,UniqueKey Partition Unmanaged Scd2ByTime Tracked,--deselect tests/functional/test_audits.py::TestAudits$(k)::test_non_blocking_audits_warn_and_write) \
	$(foreach k,Partition Scd2ByTime,--deselect tests/functional/test_audits.py::TestAudits$(k)::test_blocking_audits_fail_before_the_write) \
	$(foreach k,partition unmanaged scd2_column tracked,--deselect "tests/functional/test_contracts.py::TestContracts::test_matching_contract_builds_the_contract_s_table[$(k)]")
CI_PACKAGE_DESELECT = --deselect $(CONVERTED_PROJECT) --deselect tests/functional/test_operations.py --deselect tests/functional/test_state_log.py \
	--deselect tests/functional/test_audits.py --deselect tests/functional/test_contracts.py \
	--deselect tests/functional/test_extension_points.py --deselect $(THREADS_TEST) \
	--deselect $(KINDS)/test_existing_tables.py::TestReorderedSelect --deselect $(KINDS)/test_tracked.py::TestTrackedHistories \
	--deselect $(KINDS)/test_upstream.py --deselect $(KINDS)/test_table_configs.py::TestTableConfigsOnEveryKind
# On both: what writes with the same statement as a test kept there (a time column's type or
# format and the output filter change the filter's SQL, not the write; a composite or
# expression key the MERGE's ON; a contract's types the same CREATE on every kind but the two
# kept; dbt's --event-time-* window the explicit range's write, read by the same Jinja)
CI_FORMAT_LEAN = --deselect $(KINDS)/test_time_range.py::TestTimeRange::test_timestamp_and_string_time_columns \
	--deselect $(KINDS)/test_time_range.py::TestTimeRange::test_output_filter_drops_leaked_rows \
	--deselect $(KINDS)/test_time_range.py::TestTimeRange::test_dbt_event_time_flags_recompute_their_window \
	--deselect $(KINDS)/test_unique_key.py::TestUpsert::test_key_expression \
	--deselect $(KINDS)/test_unique_key.py::TestUpsert::test_composite_key \
	--deselect $(KINDS)/test_partition.py::TestPartition::test_composite_keys \
	--deselect $(KINDS)/test_partition.py::TestPartition::test_model_reading_its_own_table \
	$(foreach k,partition unmanaged scd2_time scd2_column tracked,--deselect "tests/functional/test_contracts.py::TestContracts::test_matching_contract_builds_the_contract_s_table[$(k)]")
CI_DELTA_DESELECT = $(CI_FORMAT_LEAN) --deselect $(KINDS)/test_sqlmesh_oracle.py --deselect $(KINDS)/test_scd2.py::TestMenuByTime \
	--deselect $(KINDS)/test_scd2.py::TestHistoricalSource --deselect $(KINDS)/test_scd2.py::TestEdgeCases \
	--deselect $(KINDS)/test_existing_tables.py::TestConvertedFromTable \
	--deselect tests/functional/adapter/test_delta_suites.py::TestIncrementalUniqueKeyVulcan \
	--deselect tests/functional/adapter/test_delta_suites.py::TestSnapshotTimestampVulcan \
	--deselect tests/functional/adapter/test_delta_suites.py::TestMergeExcludeColumnsVulcan \
	--deselect $(KINDS)/test_tracked.py::TestTrackedHistories \
	--deselect tests/functional/adapter/test_delta_suites.py::TestIncrementalPredicatesVulcan \
	--deselect $(KINDS)/test_clustering.py::TestClusteredTimeRange \
	--deselect $(OFF_PATH_TESTS)::TestSessionNotInUtc --deselect $(ENVIRONMENTS_TEST) \
	$(foreach t,$(DATABRICKS_ON_DELTA),--deselect $(t))
CI_ICEBERG_DESELECT = $(CI_FORMAT_LEAN) --deselect $(KINDS)/test_scd2.py::TestHistoricalSource --deselect $(KINDS)/test_scd2.py::TestEdgeCases \
	--deselect $(KINDS)/test_existing_tables.py::TestConvertedFromTable --deselect $(KINDS)/test_scd2.py::TestMenuByTime \
	--deselect $(KINDS)/test_time_range.py::TestTimeRange::test_lookback_picks_up_late_rows \
	--deselect $(KINDS)/test_unique_key.py::TestUpsert::test_null_keys_never_match \
	--deselect $(KINDS)/test_table_configs.py::TestLocationRootOnEveryKind \
	--deselect $(KINDS)/test_table_configs.py::TestTagsNeedUnityCatalog
test: setup
	$(MAKE) --no-print-directory -j2 -Oline test-lane-1 test-lane-2
test-lane-1: setup
	@echo "lane 1 started at $$(date +%T)"
	FUZZ_EXAMPLES=4 $(MAKE) --no-print-directory -j1 lint unit functional-parquet functional-iceberg functional-package-iceberg thrift integration-parquet \
		integration-package PARQUET_BUILDS=1 PACKAGE_BUILDS=1 PARQUET_DESELECT="$(CI_PARQUET_DESELECT)" \
		ICEBERG_DESELECT="$(CI_ICEBERG_DESELECT)" THRIFT_CRASH_TRIALS=3 PACKAGE_FORMAT_TESTS="$(THREADS_TEST)"
	$(MAKE) --no-print-directory fuzz FUZZ_PROFILE=delta FUZZ_EXAMPLES=2 FUZZ_STEPS=10 FUZZ_SEED=4444
	@echo "lane 1 ended at $$(date +%T)"
test-lane-2: setup
	@echo "lane 2 started at $$(date +%T)"
	$(MAKE) --no-print-directory -j1 functional-delta functional-package-parquet databricks \
		DATABRICKS_BUILDS=2 PACKAGE_DESELECT="$(CI_PACKAGE_DESELECT)" DELTA_DESELECT="$(CI_DELTA_DESELECT)"
	@echo "lane 2 ended at $$(date +%T)"

# The stateful fuzzer (tests/functional/fuzz): Hypothesis drives models through random
# sequences of real dbt commands (runs, late rows, explicit ranges, restatements, compaction,
# --full-refresh, reruns, a crash between a batch's write and its record, failing batches) and
# compares the table and the state log with the oracle after every step. CI runs its default
# budget (a fixed seed, 6 examples of up to 10 steps: about 5 minutes) in functional-parquet;
# this target runs longer with a new seed, printed at the start (FUZZ_SEED=<n> replays it);
# FUZZ_PENDING=<name>,... or `all` switches on parts of the space left out for known open bugs
# (tests/functional/fuzz/world.py, PENDING: none today).
FUZZ_EXAMPLES ?= 60
FUZZ_STEPS ?= 15
FUZZ_SEED ?= random
FUZZ_PROFILE ?= parquet
FUZZ_MODE ?= adapter
FUZZ_PENDING ?=
FUZZ_KINDS ?=
fuzz: setup
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) FUZZ_STEPS=$(FUZZ_STEPS) FUZZ_SEED=$(FUZZ_SEED) \
		FUZZ_PENDING=$(FUZZ_PENDING) FUZZ_KINDS=$(FUZZ_KINDS) $(PYTEST) tests/functional/fuzz/test_stateful.py -q --durations=$(DURATIONS) \
		--profile $(FUZZ_PROFILE) --mode $(FUZZ_MODE)

# The environments fuzzer (tests/functional/fuzz/test_environments_fuzz.py): runs in prod, dev
# and ci targets, changes and rollbacks, late rows, the janitor and dropped environments, against
# the expected world; CI runs its default budget (2 examples of up to 6 steps) in
# functional-parquet
ENV_FUZZ_EXAMPLES ?= 20
ENV_FUZZ_STEPS ?= 12
ENV_FUZZ_SEED ?= random
fuzz-environments: setup
	ENV_FUZZ_EXAMPLES=$(ENV_FUZZ_EXAMPLES) ENV_FUZZ_STEPS=$(ENV_FUZZ_STEPS) ENV_FUZZ_SEED=$(ENV_FUZZ_SEED) \
		$(PYTEST) tests/functional/fuzz/test_environments_fuzz.py -q --durations=$(DURATIONS) \
		--profile $(FUZZ_PROFILE) --mode $(FUZZ_MODE)

# Benchmarks (not part of `make test`): side-by-side ratios against dbt-spark's strategies and
# raw Spark. `bench`: a fresh dbt process per run (how schedulers run dbt), both modes →
# docs/benchmarks.md; `bench-thrift`: the same against one Spark Thrift Server →
# docs/benchmarks-thrift.md; `bench-warm`: every run inside one warm process →
# docs/benchmarks-warm.md; the quick variants are small smoke runs.
# Every supported dbt-core and Spark (scripts/compat.sh; about an hour): docs/compat.md.
compat: setup
	bash scripts/compat.sh

# CI's part of it: the oldest supported pair, dbt-core 1.10 on Spark 3.5 (without plan == run on
# parquet, which CI runs on the default pair in adapter mode: the same Jinja planner)
compat-oldest: setup
	COMPAT_CELLS="1.10:3.5" COMPAT_PLAN=0 COMPAT_REPORT=.vulcan/compat/ci.md bash scripts/compat.sh

bench: setup
	$(PY) benchmarks/run.py

bench-quick: setup
	$(PY) benchmarks/run.py --quick

bench-thrift: setup
	$(PY) benchmarks/run.py --target thrift

bench-thrift-quick: setup
	$(PY) benchmarks/run.py --target thrift --quick

bench-warm: setup
	$(PY) benchmarks/run.py --suite warm

bench-warm-quick: setup
	$(PY) benchmarks/run.py --suite warm --quick
