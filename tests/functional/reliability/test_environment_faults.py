"""The virtual layer's faults, against the Spark Thrift Server (only dbt dies; the server lives
on, as a client crash): a prod run killed (SIGKILL) between building a new version and swapping
its view leaves every environment's view on a complete version, and the next run finishes the
swap; two environments building one version at once share its table without a lost or doubled
day."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from dbt.tests.util import write_file

from tests.functional.environments.test_environments import (
    EXEC,
    EventsEnvironmentsProject,
    daily,
    data_statements,
)
from tests.support.functional import STATE, rows, run
from tests.support.reliability import dbt_command, merged, run_and_kill, run_at_once

SEED = 7707
WHOLE = ["2025-01-01..2025-01-11"]
# daily in batches of 3 days: 4 batches over the 10 days, each recorded as it is written
BATCHED = daily(1).replace("'cron': '@daily'", "'cron': '@daily', 'batch_size': 3")


def batched(factor: int) -> str:
    return BATCHED.replace("* 1 as revenue", f"* {factor} as revenue")


def revenue(project: Any, schema: str) -> dict[str, int]:
    found = rows(project, f"select event_date, revenue from {schema}.daily")
    return {str(d)[:10]: int(r) for d, r in found}


def physical_days(project: Any, schema: str) -> dict[str, list[str]]:
    """The days each physical table of daily's versions records, merged."""
    found = rows(
        project,
        f"select relation, interval_start, interval_end from {STATE} "
        f"where row_type = 'processed' and relation like '{schema}_physical.daily__%'",
    )
    ranges: dict[str, list[tuple[str, str]]] = {}
    for relation, start, end in found:
        ranges.setdefault(str(relation), []).append((str(start)[:10], str(end)[:10]))
    return {k: [f"{a}..{b}" for a, b in merged(v)] for k, v in ranges.items()}


@pytest.mark.profile_only("thrift")
class TestEnvironmentFaults(EventsEnvironmentsProject):
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"daily.sql": batched(1)}

    def test_a_kill_between_build_and_swap_then_the_next_run_swaps(
        self, project: Any, logs_dir: str
    ) -> None:
        prod, dev = project.test_schema, project.test_schema + "_dev"
        for target in ("prod", "dev"):
            run("seed", "--target", target)
        run("run", "--target", "prod", vars=EXEC)
        run("run", "--target", "dev", vars=EXEC)
        base = revenue(project, prod)
        assert len(base) == 10
        rng = random.Random(SEED)
        killed = swapped_after_kill = 0
        for factor in (2, 3):
            old = revenue(project, prod)
            write_file(batched(factor), project.project_root, "models", "daily.sql")
            # the last batch's line (written once its interval is recorded): then the grants,
            # the docs, the view swap; the kill lands among them
            last = re.compile(r"\[4/4\] \S+_physical\.daily__\w+ \[insert")
            cmd = dbt_command(project, "run", "--target", "prod", vars=EXEC)
            # at once (the view statement not yet sent, most often), then at a random delay
            delay = 0.0 if factor == 2 else rng.uniform(0, 0.3)
            out = run_and_kill(cmd, str(project.project_root), last.search, delay, timeout=300)
            killed += out.killed
            # every environment reads a complete version: prod the old or the new one, dev its
            # own (prod's first) untouched
            now = revenue(project, prod)
            assert now in (old, {d: factor * r for d, r in base.items()}), (factor, now)
            assert revenue(project, dev) == base
            recorded = physical_days(project, prod)
            if now != old:
                assert recorded[f"{prod}_physical.{self.pointed(project, prod)}"] == WHOLE
            # the next run finishes the swap: a version whose days were all recorded is not
            # computed again
            run("run", "--target", "prod", vars=EXEC)
            assert revenue(project, prod) == {d: factor * r for d, r in base.items()}
            new = f"{prod}_physical.{self.pointed(project, prod)}"
            if recorded.get(new) == WHOLE:
                assert data_statements(logs_dir, "daily") == [], factor
                swapped_after_kill += now == old
            print(f"factor {factor}: killed={out.killed} prod on the new version: {now != old}")
        assert killed >= 1, "no trial was killed mid-run"
        print(f"kills between the build and the swap: {swapped_after_kill}")
        versions = physical_days(project, prod)
        assert all(days == WHOLE for days in versions.values()), versions

    def pointed(self, project: Any, schema: str) -> str:
        """The physical table prod's view of daily reads (its text names it)."""
        text = " ".join(str(r) for r in rows(project, f"show create table {schema}.daily"))
        return re.search(r"daily__\w+", text).group(0)  # type: ignore[union-attr]

    def test_two_environments_build_one_version_at_once(self, project: Any) -> None:
        prod, dev, ci = (project.test_schema + s for s in ("", "_dev", "_ci"))
        run("seed", "--target", "ci")
        base = {d: r // 3 for d, r in revenue(project, prod).items()}  # factor 3 now
        write_file(batched(5), project.project_root, "models", "daily.sql")
        # one may fail loudly (LOUD: the table format's conflict of two writers of one table, or
        # a loaded server dropping a session), never with a wrong success
        run_at_once(project, {t: ["run", "--target", t] for t in ("dev", "ci")}, vars=EXEC)
        for target in ("dev", "ci"):
            run("run", "--target", target, vars=EXEC)
        want = {d: 5 * r for d, r in base.items()}
        assert revenue(project, dev) == want and revenue(project, ci) == want
        # one table for the version, each day in it once, its log covering every day
        assert self.pointed(project, dev) == self.pointed(project, ci)
        table = f"{prod}_physical.{self.pointed(project, dev)}"
        counts = rows(project, f"select event_date, count(*) from {table} group by 1")
        assert len(counts) == 10 and all(n == 1 for _, n in counts), counts
        assert physical_days(project, prod)[table] == WHOLE
        # prod still reads its own version
        assert revenue(project, prod) == {d: 3 * r for d, r in base.items()}

    def test_a_rebuild_killed_half_way_leaves_the_views_on_the_old_rows(self, project: Any) -> None:
        prod, dev = project.test_schema, project.test_schema + "_dev"
        write_file(batched(3), project.project_root, "models", "daily.sql")  # prod's code
        old, theirs = revenue(project, prod), revenue(project, dev)
        assert len(old) == 10
        # prod's source changes (its seed's file, and so the version, unchanged): ten times
        project.run_sql(
            f"create table {prod}.raw_tenfold as select event_id, customer_id, event_date, "
            f"amount * 10 as amount from {prod}.raw_events"
        )
        project.run_sql(
            f"insert overwrite table {prod}.raw_events select * from {prod}.raw_tenfold"
        )
        project.run_sql(f"drop table {prod}.raw_tenfold")
        # killed once the rebuild's second batch (of four) is recorded, beside prod's table
        second = re.compile(r"\[2/4\] \S+_physical\.daily__\w+_b \[insert")
        cmd = dbt_command(project, "run", "--target", "prod", "--full-refresh", vars=EXEC)
        delay = random.Random(SEED).uniform(0, 0.3)
        out = run_and_kill(cmd, str(project.project_root), second.search, delay, timeout=300)
        assert out.killed, "the rebuild ended before the kill"
        # the views read the old rows, whole; the table beside holds what was rebuilt
        assert revenue(project, prod) == old and revenue(project, dev) == theirs
        assert not self.pointed(project, prod).endswith("_b")
        # the next run, without --full-refresh, finishes the rebuild there and swaps
        run("run", "--target", "prod", vars=EXEC)
        assert revenue(project, prod) == {d: 10 * r for d, r in old.items()}
        assert self.pointed(project, prod).endswith("_b")
        assert (
            physical_days(project, prod)[f"{prod}_physical.{self.pointed(project, prod)}"] == WHOLE
        )
        assert revenue(project, dev) == theirs
