"""Environments, the virtual layer (`vulcan_virtual: true`), on a real SparkSession, in both
modes: versions in physical tables shared by every target, views in each target's schema, a
dev run that reuses prod's versions and builds only what changed (within its dev window), a
deploy and a rollback that are view swaps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from dbt.tests.util import run_dbt, run_dbt_and_capture, write_file

from tests.support.functional import (
    STATE,
    EnvironmentsProject,
    environment_profiles,
    environment_vars,
    model_statements,
    rows,
    run,
    views_in,
)

EXEC = {"vulcan_execution_time": "2025-01-11 01:00:00"}

EVENTS = "event_id,customer_id,event_date,amount\n" + "".join(
    f"{d * 2 + i},{(d + i) % 3},2025-01-{d:02d},{d + i}\n" for d in range(1, 11) for i in range(2)
)

CUSTOMERS = """{{ config(materialized='incremental_by_unique_key', unique_key='customer_id') }}
select customer_id, count(*) as events from {{ ref('raw_events') }} group by customer_id
"""

DAILY = """{{ config(materialized='incremental_by_time_range',
          meta={'time_column': 'event_date', 'start': '2025-01-01', 'cron': '@daily'}) }}
select cast(event_date as date) as event_date, sum(amount) * FACTOR as revenue
from {{ ref('raw_events') }}
where cast(event_date as date) between @start_ds and @end_ds
group by 1
"""

ROLLUP = """{{ config(materialized='incremental_by_time_range',
          meta={'time_column': 'event_date', 'start': '2025-01-01', 'cron': '@daily'}) }}
select event_date, revenue, revenue > 20 as big
from {{ ref('daily') }}
where event_date between @start_ds and @end_ds
"""

DATA_STATEMENTS = ("insert", "merge", "delete", "create table", "create or replace table")


def op(
    capsys: Any,
    target: str,
    name: str,
    expect_pass: bool = True,
    vars: dict[str, Any] | None = None,
    **args: Any,
) -> str:
    """What run-operation `name` printed in `target` (its log, when it fails)."""
    capsys.readouterr()
    cmd = ["run-operation", name, "--target", target, "--args", json.dumps(args)]
    if vars:
        cmd += ["--vars", json.dumps(vars)]
    if not expect_pass:
        _, log = run_dbt_and_capture(cmd, expect_pass=False)
        return str(log)
    run_dbt(cmd)
    return str(capsys.readouterr().out)


def differences(out: str, other: str = "prod") -> list[str]:
    """The lines under the heading of vulcan_plan's differences from environment `other`."""
    head = out[out.index(f"Differences from the `{other}` environment") :]
    return head[: head.index("\n\n")].splitlines()[1:]


def rollup(project: Any, schema: str) -> list[tuple[Any, ...]]:
    return rows(project, f"select event_date, revenue, big from {schema}.daily_rollup order by 1")


def daily(factor: int) -> str:
    return DAILY.replace("FACTOR", str(factor))


def data_statements(logs_dir: str, name: str) -> list[str]:
    """The statements of model `name` in the last invocation that write a table (the state
    log's appends left out)."""
    return [
        s
        for s in model_statements(logs_dir, name)
        if s.lower().startswith(DATA_STATEMENTS) and "vulcan_intervals" not in s
    ]


class EventsEnvironmentsProject(EnvironmentsProject):
    """EnvironmentsProject with the events seed (EVENTS)."""

    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_events.csv": EVENTS}


class TestEnvironments(EventsEnvironmentsProject):
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"customers.sql": CUSTOMERS, "daily.sql": daily(1), "daily_rollup.sql": ROLLUP}

    def physical_tables(self, project: Any) -> set[str]:
        found = rows(project, f"show tables in {project.test_schema}_physical")
        return {str(r[1]) for r in found if not r[2]}  # the session's temporary views left out

    def test_versions_views_dev_deploy_rollback(self, project: Any, logs_dir: str) -> None:
        prod, dev, ci = (project.test_schema + s for s in ("", "_dev", "_ci"))
        run("seed", "--target", "prod")
        run("seed", "--target", "dev")
        run("seed", "--target", "ci")

        # prod builds every version; its relations are views over the physical tables
        run("run", "--target", "prod", vars=EXEC)
        tables = self.physical_tables(project)
        assert len(tables) == 3 and all("__" in t for t in tables), tables
        kinds = {str(r[1]): str(r[2]) for r in rows(project, f"show tables in {prod}")}
        assert set(kinds) >= {"customers", "daily", "daily_rollup"}
        views = views_in(project, prod)
        assert {"customers", "daily", "daily_rollup"} <= views
        before = rollup(project, prod)
        assert len(before) == 10

        # an unchanged project in a new dev target: no data statement, a view each, prod's rows
        run("run", "--target", "dev", vars=EXEC)
        for name in ("customers", "daily", "daily_rollup"):
            assert data_statements(logs_dir, name) == [], name
        assert self.physical_tables(project) == tables
        assert rollup(project, dev) == before

        # a change in dev, with a 3-day window: the changed model and its child get new
        # versions, built for the window only; the unchanged one stays on prod's version
        write_file(daily(2), project.project_root, "models", "daily.sql")
        run("run", "--target", "dev", vars={**EXEC, "vulcan_dev_start": "3 days"})
        assert data_statements(logs_dir, "customers") == []
        assert data_statements(logs_dir, "daily") and data_statements(logs_dir, "daily_rollup")
        changed = self.physical_tables(project) - tables
        assert len(changed) == 2, changed
        dev_rows = rows(project, f"select event_date, revenue from {dev}.daily order by 1")
        assert [str(r[0]) for r in dev_rows] == ["2025-01-08", "2025-01-09", "2025-01-10"]
        prod_rows = dict(rows(project, f"select event_date, revenue from {prod}.daily"))
        assert all(r[1] == 2 * prod_rows[r[0]] for r in dev_rows)
        # prod still reads its own versions
        assert rollup(project, prod) == before

        # CI builds the change in full: it completes the versions dev began (nothing twice)
        run("run", "--target", "ci", vars=EXEC)
        assert len(rows(project, f"select * from {ci}.daily")) == 10
        assert self.physical_tables(project) - tables == changed
        assert data_statements(logs_dir, "daily")
        # the new version's intervals: the window from dev, the rest from CI, none twice
        (new_daily,) = (t for t in changed if t.startswith("daily__"))
        processed = rows(
            project,
            f"select interval_start, interval_end, invocation_id from {STATE} "
            f"where relation = '{project.test_schema}_physical.{new_daily}' "
            "and row_type = 'processed' order by interval_start",
        )
        assert [(str(r[0])[:10], str(r[1])[:10]) for r in processed] == [
            ("2025-01-01", "2025-01-08"),
            ("2025-01-08", "2025-01-11"),
        ]
        assert len({r[2] for r in processed}) == 2

        # the deploy: prod's run of the merged code swaps views, writes nothing
        run("run", "--target", "prod", vars=EXEC)
        assert data_statements(logs_dir, "daily") == []
        assert data_statements(logs_dir, "daily_rollup") == []
        deployed = rollup(project, prod)
        assert deployed == rollup(project, ci)
        assert [r[1] for r in deployed] == [2 * r[1] for r in before]

        # the rollback: the old SQL points prod's views back at the old versions
        write_file(daily(1), project.project_root, "models", "daily.sql")
        run("run", "--target", "prod", vars=EXEC)
        assert data_statements(logs_dir, "daily") == []
        assert data_statements(logs_dir, "daily_rollup") == []
        assert rollup(project, prod) == before

        # the pointers are in the state log: prod's view moved three times per model
        pointers = rows(
            project,
            f"select relation, details from {STATE} where row_type = 'pointer' "
            f"and relation like '{project.test_schema}_physical.daily'",
        )
        envs = sorted(str(r[1]).split('"environment": "')[1].split('"')[0] for r in pointers)
        assert envs == ["ci", "dev", "dev", "prod", "prod", "prod"], envs

    def test_plan_shows_the_differences_from_prod(self, project: Any, capsys: Any) -> None:
        # after the rollback prod is on the first versions; dev's code changes again, gains a
        # model and loses one
        write_file(daily(2), project.project_root, "models", "daily.sql")
        write_file(CUSTOMERS, project.project_root, "models", "extra.sql")
        customers = Path(project.project_root) / "models" / "customers.sql"
        customers.unlink()
        try:
            out = op(capsys, "dev", "vulcan_plan", execution_time="2025-01-11 01:00:00")
        finally:
            write_file(CUSTOMERS, project.project_root, "models", "customers.sql")
            (Path(project.project_root) / "models" / "extra.sql").unlink()
            write_file(daily(1), project.project_root, "models", "daily.sql")
        assert differences(out) == [
            "Models:",
            "├── Added:",
            "│   └── extra",
            "├── Directly Modified:",
            "│   └── daily",
            "├── Indirectly Modified:",
            "│   └── daily_rollup",
            "└── Removed:",
            "    └── customers",
        ], out
        # prod compared with itself shows no differences; dev (the first code again) against
        # CI (on the changed versions) with compare_to
        out = op(capsys, "prod", "vulcan_plan", execution_time="2025-01-11 01:00:00")
        assert "Differences from" not in out
        out = op(capsys, "dev", "vulcan_plan", execution_time="2025-01-11", compare_to="ci")
        assert differences(out, "ci") == [
            "Models:",
            "├── Directly Modified:",
            "│   └── daily",
            "└── Indirectly Modified:",
            "    └── daily_rollup",
        ]

    def test_status_shows_each_environments_version(self, project: Any, capsys: Any) -> None:
        out = op(capsys, "dev", "vulcan_status")
        versions = out[out.index("Versions (this environment: `dev`, prod: `prod`):") :]
        lines = versions.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("  daily:"))
        daily = lines[start : start + 2]
        version = daily[0].split(": ")[1].split(" ")[0]
        # dev's code is the first again: prod's version, read only
        assert daily[0] == (
            f"  daily: {version} in {project.test_schema}_physical.daily__{version} "
            "(prod's, read only)"
        ), daily
        views = dict(v.split(" -> ") for v in daily[1].split("views: ")[1].split(", "))
        assert views["prod"] == version and views["dev"] != version and views["ci"] != version

    def test_drop_environment_and_janitor(self, project: Any, capsys: Any) -> None:
        dev, physical = project.test_schema + "_dev", project.test_schema + "_physical"
        tables = self.physical_tables(project)
        assert len(tables) == 5  # the first versions, the changed ones, and customers
        # prod's tables are in use: nothing is dropped, however short the TTL
        out = op(capsys, "prod", "vulcan_janitor", ttl=0, execution_time="2099-01-01")
        assert "dropped 0 physical tables" in out, out
        # dropping dev and CI leaves the changed versions unused
        out = op(capsys, "prod", "vulcan_drop_environment", environment="dev")
        assert "3 views dropped" in out, out
        assert not views_in(project, dev)
        op(capsys, "ci", "vulcan_drop_environment")
        out = op(capsys, "prod", "vulcan_janitor", ttl="7 days", execution_time="2099-01-01")
        assert "dropped 2 physical tables" in out, out
        assert len(self.physical_tables(project)) == 3
        gone = tables - self.physical_tables(project)
        assert all(name.startswith(("daily__", "daily_rollup__")) for name in gone)
        left = rows(
            project,
            f"select count(*) from {STATE} where relation in "
            f"({', '.join(repr(f'{physical}.{t}') for t in gone)})",
        )
        assert left == [(0,)]
        # prod still reads its versions
        assert len(rollup(project, project.test_schema)) == 10
        # prod refuses to be dropped
        out = op(capsys, "prod", "vulcan_drop_environment", expect_pass=False)
        assert "is the prod environment" in out


# an append-only log of the events newer than the newest it holds: it reads itself
NEW_EVENTS = """{{ config(materialized='incremental_unmanaged') }}
select event_id, event_date from {{ ref('raw_events') }}
{% if is_incremental() %}
where event_id > (select coalesce(max(event_id), 0) from {{ this }})
{% endif %}
"""


class TestAdoption:
    """The first run with the virtual layer keeps every row and interval of a table built
    without it; the processed days are not recomputed."""

    @pytest.fixture(scope="class")
    def project_config_update(self, unique_schema: str) -> dict[str, Any]:
        # built without the virtual layer first (the runs turn it on); the one target is prod
        config = environment_vars(unique_schema, vulcan_prod_target="default")
        del config["vars"]["vulcan_virtual"]
        return config

    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_events.csv": EVENTS}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"customers.sql": CUSTOMERS, "daily.sql": daily(1), "new_events.sql": NEW_EVENTS}

    @pytest.fixture(scope="class", autouse=True)
    def _other_schemas(self, project: Any) -> Any:
        yield
        project.run_sql(f"drop schema if exists {project.test_schema}_physical cascade")

    def test_a_table_built_without_it_is_adopted(self, project: Any, logs_dir: str) -> None:
        schema = project.test_schema
        run("seed")
        # built without the virtual layer, then the source changes: a recompute would show it
        run("run", vars={"vulcan_execution_time": "2025-01-06 01:00:00"})
        before = rows(project, f"select event_date, revenue from {schema}.daily order by 1")
        assert len(before) == 5
        project.run_sql(f"insert into {schema}.raw_events values (99, 1, date'2025-01-02', 1000)")
        run("run", vars={**EXEC, "vulcan_virtual": True})
        # the old days kept as they were (not recomputed), the new ones run
        after = rows(project, f"select event_date, revenue from {schema}.daily order by 1")
        assert after[:5] == before and len(after) == 10
        writes = data_statements(logs_dir, "daily")
        assert any("2025-01-06" in s or "insert into" in s.lower() for s in writes)
        kinds = views_in(project, schema)
        assert {"daily", "customers", "new_events"} <= kinds
        listed = rows(project, f"show tables in {schema}_physical")
        physical = {str(r[1]) for r in listed if not r[2]}
        assert len(physical) == 3
        # the intervals were carried: the daily table's log under its physical table
        (daily_table,) = (t for t in physical if t.startswith("daily__"))
        processed = rows(
            project,
            f"select interval_start, interval_end from {STATE} where row_type = 'processed' "
            f"and relation = '{schema}_physical.{daily_table}' order by 1",
        )
        assert [(str(a)[:10], str(b)[:10]) for a, b in processed] == [
            ("2025-01-01", "2025-01-06"),
            ("2025-01-06", "2025-01-11"),
        ]
        # the next run with it is a run like any other: nothing due, nothing written
        run("run", vars={**EXEC, "vulcan_virtual": True})
        assert data_statements(logs_dir, "daily") == []
        # the log that reads itself read its view (its own table): nothing appended twice
        logged = rows(project, f"select event_id, count(*) from {schema}.new_events group by 1")
        assert len(logged) == 21 and all(n == 1 for _, n in logged)
        virtual_rows = rows(project, f"select event_date, revenue from {schema}.daily order by 1")
        customers = rows(project, f"select * from {schema}.customers order by 1")

        # turned off (vulcan_virtual: false): the tables come back with their rows and
        # intervals, and the next run computes nothing again
        run("run", vars={**EXEC, "vulcan_virtual": False})
        assert views_in(project, schema) == set()
        assert rows(project, f"select event_date, revenue from {schema}.daily order by 1") == (
            virtual_rows
        )
        assert rows(project, f"select * from {schema}.customers order by 1") == customers
        run("run", vars={**EXEC, "vulcan_virtual": False})
        assert data_statements(logs_dir, "daily") == []


DIM = """{{ config(materialized='incremental_by_unique_key', unique_key='customer_id',
          meta={'start': '2025-01-01'}) }}
select customer_id, max(event_date) as last_seen, count(*) as events EXTRA
from {{ ref('raw_events') }}
where event_date between @start_ds and @end_ds
group by customer_id
"""
LOG = """{{ config(materialized='incremental_unmanaged') }}
select count(*) as events, @execution_ds as logged_on from {{ ref('raw_events') }}
"""
FORWARD = """{{ config(materialized='incremental_by_time_range',
          meta={'time_column': 'event_date', 'start': '2025-01-01', 'cron': '@daily',
                'forward_only': true}) }}
select event_date, sum(amount) * FACTOR as revenue
from {{ ref('raw_events') }}
where event_date between @start_ds and @end_ds
group by 1
"""
DIM_TESTS = """
version: 2
models:
  - name: dim
    columns:
      - name: customer_id
        data_tests: [not_null, unique]
"""


class TestEnvironmentTablesOfTheirOwn:
    """What a dev build cannot hand to prod is built in a table of that environment only: a
    unique key built from the dev window, an unmanaged model's run history, a forward_only
    model's change previewed."""

    @pytest.fixture(scope="class")
    def profiles_config_update(
        self, dbt_profile_target: dict[str, Any], unique_schema: str
    ) -> dict[str, Any]:
        return environment_profiles(dbt_profile_target, unique_schema, "dev")

    @pytest.fixture(scope="class")
    def project_config_update(self, unique_schema: str) -> dict[str, Any]:
        return environment_vars(unique_schema)

    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_events.csv": EVENTS}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "dim.sql": DIM.replace("EXTRA", ""),
            "event_log.sql": LOG,
            "forward.sql": FORWARD.replace("FACTOR", "1"),
            "dim.yml": DIM_TESTS,
        }

    @pytest.fixture(scope="class", autouse=True)
    def _other_schemas(self, project: Any) -> Any:
        yield
        for suffix in ("_dev", "_physical"):
            project.run_sql(f"drop schema if exists {project.test_schema}{suffix} cascade")

    def physical(self, project: Any) -> set[str]:
        listed = rows(project, f"show tables in {project.test_schema}_physical")
        return {str(r[1]) for r in listed if not r[2]}

    def test_dev_builds_what_prod_cannot_take_in_its_own_tables(
        self, project: Any, logs_dir: str
    ) -> None:
        prod, dev = project.test_schema, project.test_schema + "_dev"
        window = {**EXEC, "vulcan_dev_start": "3 days"}
        run("seed", "--target", "prod")
        run("seed", "--target", "dev")
        run("build", "--target", "prod", vars=EXEC)
        shared = self.physical(project)
        assert len(shared) == 3 and not any(t.endswith("__dev") for t in shared)
        prod_log = rows(project, f"select * from {prod}.event_log")

        # unchanged: prod's versions, read only, even the unmanaged log
        run("build", "--target", "dev", vars=window)
        for name in ("dim", "event_log", "forward"):
            assert data_statements(logs_dir, name) == [], name
        assert rows(project, f"select * from {dev}.event_log") == prod_log

        # changed in dev with the window: the unique key built from the window, in dev's own
        # table; the forward_only change previewed in dev's own table; prod untouched
        write_file(DIM.replace("EXTRA", ", 1 as flag"), project.project_root, "models", "dim.sql")
        write_file(FORWARD.replace("FACTOR", "3"), project.project_root, "models", "forward.sql")
        run("build", "--target", "dev", vars=window)
        own = self.physical(project) - shared
        assert {t.split("__")[0] for t in own} == {"dim", "forward"}, own
        assert all(t.endswith("__dev") for t in own), own
        dim_dev = rows(project, f"select customer_id, last_seen, flag from {dev}.dim order by 1")
        assert dim_dev and all(str(r[1]) >= "2025-01-08" for r in dim_dev)
        assert rows(project, f"select count(*) from {prod}.dim") == [(3,)]
        preview = dict(rows(project, f"select event_date, revenue from {dev}.forward"))
        kept = dict(rows(project, f"select event_date, revenue from {prod}.forward"))
        assert preview and all(v == 3 * kept[d] for d, v in preview.items())
        # the dbt tests of `dbt build` ran against dev's view (and passed)
        assert rows(project, f"show tables in {dev} like 'dim'")
