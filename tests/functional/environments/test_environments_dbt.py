"""dbt's own commands with the virtual layer (`vulcan_virtual: true`), on a real SparkSession, in
both modes: `--defer` to prod's artifacts, `--empty`, `dbt retry` after a failed model,
`--full-refresh` in a non-prod environment (never touching prod's tables) and in prod,
`dbt show` of an environment's view, eight threads."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from dbt.tests.util import run_dbt, write_file

from tests.functional.environments.test_environments import (
    EXEC,
    ROLLUP,
    EventsEnvironmentsProject,
    daily,
    data_statements,
    differences,
    op,
    rollup,
)
from tests.support.functional import STATE, rows, run

THREADS = ("--threads", "8")


class TestDbtCommandsInEnvironments(EventsEnvironmentsProject):
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"daily.sql": daily(1), "daily_rollup.sql": ROLLUP}

    def physical(self, project: Any) -> set[str]:
        listed = rows(project, f"show tables in {project.test_schema}_physical")
        return {str(r[1]) for r in listed if not r[2]}

    def processed(self, project: Any, table: str) -> list[tuple[str, str]]:
        found = rows(
            project,
            f"select interval_start, interval_end from {STATE} where row_type = 'processed' "
            f"and relation = '{project.test_schema}_physical.{table}' order by 1",
        )
        return [(str(a)[:10], str(b)[:10]) for a, b in found]

    def test_defer_empty_retry_full_refresh_show(
        self, project: Any, logs_dir: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # --defer and dbt retry read dbt's artifacts (the suite writes none by default)
        monkeypatch.setenv("DBT_WRITE_JSON", "true")
        prod, dev, ci = (project.test_schema + s for s in ("", "_dev", "_ci"))
        root = Path(project.project_root)
        for target in ("prod", "dev", "ci"):
            run("seed", "--target", target)
        run("run", "--target", "prod", *THREADS, vars=EXEC)
        before = rollup(project, prod)
        assert len(before) == 10
        prod_tables = self.physical(project)
        state_dir = root / "prod_state"
        state_dir.mkdir()
        shutil.copy(root / "target" / "manifest.json", state_dir / "manifest.json")

        # --defer: dev runs only the rollup of a changed daily, whose dev view does not exist;
        # dbt reads prod's daily (the old code) for it. Those rows are not the rollup's new
        # version's (a child of the new daily): they go to a table of dev only, which CI and
        # prod never take
        write_file(daily(2), root, "models", "daily.sql")
        run(
            "run", "--target", "dev", "-s", "daily_rollup", "--defer", "--state", str(state_dir),
            vars=EXEC,
        )  # fmt: skip
        assert rollup(project, dev) == before  # dbt's --defer: prod's daily read
        deferred = self.physical(project) - prod_tables
        assert len(deferred) == 1 and next(iter(deferred)).endswith("__dev"), deferred

        # CI builds the change in full (the rollup's shared version from the new daily), and
        # prod's deploy of it is view swaps only
        run("run", "--target", "ci", *THREADS, vars=EXEC)
        doubled = [(d, 2 * r, r * 2 > 20) for d, r, _ in before]
        assert rollup(project, ci) == doubled
        run("run", "--target", "prod", *THREADS, vars=EXEC)
        assert data_statements(logs_dir, "daily") == []
        assert data_statements(logs_dir, "daily_rollup") == []
        assert rollup(project, prod) == doubled

        # --empty in dev of a new change: the versions' tables made with no rows and no
        # interval recorded; the next run computes every interval
        write_file(daily(3), root, "models", "daily.sql")
        run("run", "--target", "dev", "--empty", vars=EXEC)
        new = {t for t in self.physical(project) - prod_tables - deferred if not t.endswith("dev")}
        new -= {t for t in self.physical(project) if self.processed(project, t)}
        assert {t.split("__")[0] for t in new} == {"daily", "daily_rollup"}, new
        for table in new:
            assert rows(project, f"select count(*) from {prod}_physical.{table}") == [(0,)]
        run("run", "--target", "dev", vars=EXEC)
        tripled = [(d, 3 * r, r * 3 > 20) for d, r, _ in before]
        assert rollup(project, dev) == tripled
        (daily3,) = (t for t in new if t.startswith("daily__"))
        assert self.processed(project, daily3) == [("2025-01-01", "2025-01-11")]

        # dbt retry: the rollup fails in dev, is mended, and `dbt retry` runs it alone
        broken = ROLLUP.replace("revenue > 20", "no_such_column > 20")
        write_file(broken, root, "models", "daily_rollup.sql")
        write_file(daily(4), root, "models", "daily.sql")
        run("run", "--target", "dev", vars=EXEC, expect_pass=False)
        write_file(ROLLUP, root, "models", "daily_rollup.sql")
        results = run_dbt(["retry"])
        assert [r.node.name for r in results if r.node.resource_type == "model"] == ["daily_rollup"]
        assert rollup(project, dev) == [(d, 4 * r, r * 4 > 20) for d, r, _ in before]

        # --full-refresh in dev on the code prod runs: prod's versions are read only there
        write_file(daily(2), root, "models", "daily.sql")
        prod_daily = rows(project, f"select * from {prod}.daily order by 1")
        run("run", "--target", "dev", "--full-refresh", vars=EXEC)
        assert data_statements(logs_dir, "daily") == []
        assert data_statements(logs_dir, "daily_rollup") == []
        assert rollup(project, dev) == doubled
        assert rows(project, f"select * from {prod}.daily order by 1") == prod_daily

        # --full-refresh in prod rebuilds its versions, equal to what they held
        run("run", "--target", "prod", "--full-refresh", *THREADS, vars=EXEC)
        assert data_statements(logs_dir, "daily")
        assert rollup(project, prod) == doubled

        # dbt show of a ref in dev: dev's view, over the version dev runs
        inline = "select event_date, revenue, big from {{ ref('daily_rollup') }}"
        shown = run_dbt(["show", "--target", "dev", "--inline", inline, "--limit", "20"])
        assert sorted(tuple(r) for r in shown.results[0].agate_table.rows) == doubled


class TestAModelRunWithoutItsChangedParent(EventsEnvironmentsProject):
    """A model selected alone after its parent's code changed reads the parent's view of its
    target, which still shows the old version: its rows never fill the shared table of its new
    version (which prod would take at the deploy). Dev builds a table of its own; prod refuses,
    naming the fix; the deploy of the whole change then builds the new version from the new
    parent."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"daily.sql": daily(1), "daily_rollup.sql": ROLLUP}

    def test_the_new_version_is_never_built_from_the_old_parent(self, project: Any) -> None:
        prod, dev, ci = (project.test_schema + s for s in ("", "_dev", "_ci"))
        root = Path(project.project_root)
        for target in ("prod", "dev", "ci"):
            run("seed", "--target", target)
        run("run", "--target", "prod", vars=EXEC)
        run("run", "--target", "dev", vars=EXEC)
        before = rollup(project, prod)
        assert len(before) == 10 and rollup(project, dev) == before
        # the parent changes; CI builds only its new version
        write_file(daily(2), root, "models", "daily.sql")
        run("run", "--target", "ci", "-s", "daily", vars=EXEC)
        # dev runs the rollup alone: its daily view still shows the old daily
        run("run", "--target", "dev", "-s", "daily_rollup", vars=EXEC)
        assert rollup(project, dev) == before
        # prod refuses the rollup alone, before anything is written
        results = run("run", "--target", "prod", "-s", "daily_rollup", vars=EXEC, expect_pass=False)
        message = next(str(r.message) for r in results if r.node.name == "daily_rollup")
        assert "prod's views of its parents show" in message and "-s +daily_rollup" in message
        assert rollup(project, prod) == before
        # the deploy of the whole change: the rollup's new version from the new daily
        doubled = [(d, 2 * r, r * 2 > 20) for d, r, _ in before]
        run("run", "--target", "prod", vars=EXEC)
        assert rollup(project, prod) == doubled
        run("run", "--target", "ci", vars=EXEC)
        assert rollup(project, ci) == doubled
        run("run", "--target", "dev", vars=EXEC)
        assert rollup(project, dev) == doubled


# the daily model a day at a time, failing on the day the var `fail_on` names
BATCHED_DAILY = """{{ config(materialized='incremental_by_time_range',
          meta={'time_column': 'event_date', 'start': '2025-01-01', 'cron': '@daily',
                'batch_size': 1}) }}
select cast(event_date as date) as event_date, sum(amount) as revenue
from {{ ref('raw_events') }}
where cast(event_date as date) between @start_ds and @end_ds
  and (cast(event_date as date) != date'{{ var("fail_on", "1900-01-01") }}'
       or raise_error('failed on purpose') is null)
group by 1
"""


class TestARebuildIsSwappedInWhenComplete(EventsEnvironmentsProject):
    """A `--full-refresh` in prod of a table views show: rebuilt in the version's other table,
    the views swapped to it once it is complete; a rebuild stopped half-way leaves every view on
    the old rows, whole, and the next run finishes it; the next rebuild goes back to the first
    table; the janitor drops the one no view shows."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"daily.sql": BATCHED_DAILY}

    def test_rebuild_beside_then_swap(self, project: Any, logs_dir: str) -> None:
        prod, dev = project.test_schema, project.test_schema + "_dev"
        physical = f"{prod}_physical"

        def daily_rows(schema: str) -> list[tuple[Any, ...]]:
            return rows(project, f"select event_date, revenue from {schema}.daily order by 1")

        def tables() -> set[str]:
            return {str(r[1]) for r in rows(project, f"show tables in {physical}") if not r[2]}

        def processed(table: str) -> list[str]:
            found = rows(
                project,
                f"select interval_start from {STATE} where row_type = 'processed' "
                f"and relation = '{physical}.{table}' order by 1",
            )
            return [str(a)[:10] for (a,) in found]

        def janitor() -> None:
            args = '{"ttl": 0, "execution_time": "2099-01-01"}'
            run_dbt(["run-operation", "vulcan_janitor", "--target", "prod", "--args", args])

        run("seed", "--target", "prod")
        run("seed", "--target", "dev")
        run("run", "--target", "prod", vars=EXEC)
        run("run", "--target", "dev", vars=EXEC)
        before = daily_rows(prod)
        assert len(before) == 10 and daily_rows(dev) == before
        (first,) = tables()
        aside = first + "_b"

        # the source changes in prod (the seed's file, and so the version, unchanged): a day
        # gone, another day's amounts a hundredfold
        day = "cast(event_date as date)"
        project.run_sql(
            f"create table {prod}.raw_changed as select event_id, customer_id, event_date, "
            f"case when {day} = date'2025-01-01' then amount * 100 else amount end as amount "
            f"from {prod}.raw_events where {day} != date'2025-01-05'"
        )
        project.run_sql(
            f"insert overwrite table {prod}.raw_events select * from {prod}.raw_changed"
        )
        project.run_sql(f"drop table {prod}.raw_changed")

        # the rebuild fails on its 7th day: the views read the old rows, whole; the other table
        # holds the first 6 days
        run("run", "--target", "prod", "--full-refresh", vars={**EXEC, "fail_on": "2025-01-07"},
            expect_pass=False)  # fmt: skip
        assert daily_rows(prod) == before and daily_rows(dev) == before
        assert tables() == {first, aside}
        assert processed(aside) == [f"2025-01-0{d}" for d in range(1, 7)]
        assert len(processed(first)) == 10

        # the next run, without --full-refresh, finishes the rebuild there and swaps the views
        run("run", "--target", "prod", vars=EXEC)
        after = daily_rows(prod)
        assert [str(d) for d, _ in after] == [f"2025-01-{d:02d}" for d in range(1, 11) if d != 5]
        assert after[0][1] != before[0][1] and after[1:] == [
            r for r in before[1:] if str(r[0]) != "2025-01-05"
        ]
        assert len(processed(aside)) == 10
        # dev's view still shows the old table until dev runs: then prod's, with nothing written
        assert daily_rows(dev) == before
        run("run", "--target", "dev", vars=EXEC)
        assert data_statements(logs_dir, "daily") == []
        assert daily_rows(dev) == after

        # the next rebuild goes back to the first table; the janitor keeps both while a view
        # shows each, then drops the one no view shows
        run("run", "--target", "prod", "--full-refresh", vars=EXEC)
        # (the first table's log: its first build's 10 days, then the rebuild's 10)
        assert len(processed(first)) == 20 and len(processed(aside)) == 10
        assert daily_rows(prod) == after and len(set(processed(first))) == 10
        janitor()
        assert tables() == {first, aside}
        run("run", "--target", "dev", vars=EXEC)
        janitor()
        assert tables() == {first}
        assert daily_rows(prod) == after and daily_rows(dev) == after


class TestAChildWaitsForWhatItsParentsViewShows(EventsEnvironmentsProject):
    """Another target rebuilt the parent's version beside the table this target's view shows:
    the child, run alone here, reads that view, so it waits for that table's days, never
    records days it read nothing for."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"daily.sql": daily(1), "daily_rollup.sql": ROLLUP}

    def test_waits_follow_the_view(self, project: Any) -> None:
        dev = project.test_schema + "_dev"
        for target in ("dev", "ci"):
            run("seed", "--target", target)
        # dev builds both versions for a 3-day window
        run("run", "--target", "dev", vars={**EXEC, "vulcan_dev_start": "3 days"})
        assert len(rollup(project, dev)) == 3
        # CI rebuilds daily's version whole: beside the table dev's view shows
        run("run", "--target", "ci", "-s", "daily", "--full-refresh", vars=EXEC)
        # dev runs the rollup alone, without a window: its daily view shows 3 days
        run("run", "--target", "dev", "-s", "daily_rollup", vars=EXEC)
        assert len(rollup(project, dev)) == 3
        # dev runs both: its daily view moves to the complete table, the rollup fills 7 days
        run("run", "--target", "dev", vars=EXEC)
        expected = rows(
            project,
            f"select event_date, revenue, revenue > 20 from {dev}.daily order by 1",
        )
        assert len(expected) == 10 and rollup(project, dev) == expected


class TestANonBreakingChangeKeepsTheChildren(EventsEnvironmentsProject):
    """A change that only adds a column to a model's outermost SELECT is non-breaking: the model
    gets a new version, built (in dev, for its window), and the models below keep their
    versions and tables: dev's rollup reads prod's, the deploy rebuilds the model only, the
    rollback is a view swap. A breaking change moves the children again."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"daily.sql": daily(1), "daily_rollup.sql": ROLLUP}

    def test_children_keep_their_versions(self, project: Any, logs_dir: str, capsys: Any) -> None:
        prod, dev = project.test_schema, project.test_schema + "_dev"
        physical = f"{prod}_physical"
        root = Path(project.project_root)

        def tables() -> set[str]:
            return {str(r[1]) for r in rows(project, f"show tables in {physical}") if not r[2]}

        for target in ("prod", "dev"):
            run("seed", "--target", target)
        run("run", "--target", "prod", vars=EXEC)
        before, first = rollup(project, prod), tables()
        assert len(before) == 10 and len(first) == 2

        # dev adds a column to daily: the plan marks it non-breaking, the rollup is not listed
        wide = daily(1).replace(" as revenue\n", " as revenue, count(*) as events\n")
        assert wide != daily(1)
        write_file(wide, root, "models", "daily.sql")
        out = op(capsys, "dev", "vulcan_plan", execution_time="2025-01-11 01:00:00")
        assert differences(out) == [
            "Models:",
            "└── Directly Modified:",
            "    └── daily (non-breaking)",
        ], out
        # dev builds daily's new version for its window; the rollup reads prod's table
        run("run", "--target", "dev", vars={**EXEC, "vulcan_dev_start": "3 days"})
        assert data_statements(logs_dir, "daily")
        assert data_statements(logs_dir, "daily_rollup") == []
        assert len(tables() - first) == 1
        assert rollup(project, dev) == before
        events = rows(project, f"select event_date, events from {dev}.daily order by 1")
        assert [(str(d), n) for d, n in events] == [
            ("2025-01-08", 2),
            ("2025-01-09", 2),
            ("2025-01-10", 2),
        ]

        # prod may run the rollup alone: daily's view there shows the version of its lineage
        run("run", "--target", "prod", "-s", "daily_rollup", vars=EXEC)
        assert data_statements(logs_dir, "daily_rollup") == []

        # the deploy completes daily's new version; the rollup issues no data statement
        run("run", "--target", "prod", vars=EXEC)
        assert data_statements(logs_dir, "daily")
        assert data_statements(logs_dir, "daily_rollup") == []
        assert rows(project, f"select count(*), sum(events) from {prod}.daily") == [(10, 20)]
        assert rollup(project, prod) == before and len(tables() - first) == 1

        # the rollback: two view swaps, no data statement
        write_file(daily(1), root, "models", "daily.sql")
        run("run", "--target", "prod", vars=EXEC)
        assert data_statements(logs_dir, "daily") == []
        assert data_statements(logs_dir, "daily_rollup") == []
        columns = [str(r[0]) for r in rows(project, f"describe {prod}.daily")]
        assert "events" not in columns and rollup(project, prod) == before

        # a breaking change (a column's values) moves the rollup too
        write_file(daily(2), root, "models", "daily.sql")
        out = op(capsys, "dev", "vulcan_plan", execution_time="2025-01-11 01:00:00")
        assert differences(out) == [
            "Models:",
            "├── Directly Modified:",
            "│   └── daily",
            "└── Indirectly Modified:",
            "    └── daily_rollup",
        ], out
        write_file(daily(1), root, "models", "daily.sql")
