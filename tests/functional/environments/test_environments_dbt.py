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
