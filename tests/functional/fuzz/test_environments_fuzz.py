"""The stateful fuzzer of environments (the virtual layer, `vulcan_virtual: true`): Hypothesis
drives a two-model project (a daily model and its child) through random sequences of real
`dbt` commands in three targets (prod, dev, ci), and after every step compares every
environment's views with the expected world.

What it does
    Each example has its own models (`e<N>_daily`, `e<N>_top`) over a source table it writes
    (day, amount). A model's code has variants (daily: the day's total times 1 or 2, or times 1
    with a column added, a non-breaking change of the first; top: daily's value plus 0 or 10),
    so a version is (daily's variant) for daily and (daily's lineage, top's variant) for top:
    daily's lineage is its variant, but the third's is the first's when it was first recorded
    (a view moved to it) while prod showed the first. Steps:

    - `run`: `dbt run` in prod, dev or ci with a drawn variant of each model (a change, or the
      old code again: a rollback), in dev and ci with or without a 3-day window
      (`vulcan_dev_start`); both models, or the child alone once the target has a view of its
      parent (which may show another version than the parent's code: then prod refuses and
      another target builds the child into a table of its own from what the view shows, its
      days waiting for the parent's);
      A run may be a `--full-refresh`: a version's table some view shows is rebuilt in its
      second table, and the views of the run's target swapped to it (the other targets' views
      stay on the old one until they run); a table no view shows is rebuilt where it is;
    - `add_rows`: rows added to the source: a version built later sees them, one built
      before keeps what it computed (a table is never recomputed by a view swap);
    - `janitor`: `vulcan_janitor` with a TTL of 0 at a far execution time: every version no
      environment points at is dropped (a later run of it builds it again from the source);
    - `drop_environment`: dev or ci dropped: its views and pointers gone.

    The expected world: a table per version (two once rebuilt beside it, the one with the
    newer log written by the next run) with the days it processed and their values; a run
    in prod builds or completes the version of its code; another environment on prod's version
    writes nothing and points at it; on another version it builds or completes it (from the
    window's start with a window); each environment's views point at the versions of its last
    run. After each step every environment's views hold their version's expected rows, and the
    physical tables are exactly the expected versions'.

Budget: ENV_FUZZ_EXAMPLES (default 2) examples of up to ENV_FUZZ_STEPS (default 6) steps, seed
ENV_FUZZ_SEED (default 77; `random` for a new one, printed). `make fuzz-environments`.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

from dbt.tests.util import run_dbt, write_file
from hypothesis import HealthCheck, Phase, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from tests.support.functional import EnvironmentsProject, rows, views_in

EXAMPLES = int(os.environ.get("ENV_FUZZ_EXAMPLES", "2"))
STEP_COUNT = int(os.environ.get("ENV_FUZZ_STEPS", "6"))
SEED_TEXT = os.environ.get("ENV_FUZZ_SEED", "77")
DAYS = 8  # the source's days: 2025-01-01 .. 2025-01-08
EXEC = "2025-01-09 01:00:00"  # every day due
WINDOW = 3  # a window's days: the last three
ENVS = ("prod", "dev", "ci")

DAILY = """{{{{ config(materialized='incremental_by_time_range',
          meta={{'time_column': 'day', 'start': '2025-01-01', 'cron': '@daily'}}) }}}}
select day, sum(amount) * {f} as v{extra} from {src}
where day between @start_ds and @end_ds group by day
"""
TOP = """{{{{ config(materialized='incremental_by_time_range',
          meta={{'time_column': 'day', 'start': '2025-01-01', 'cron': '@daily'}}) }}}}
select day, v + {g} as w from {{{{ ref('{daily}') }}}} where day between @start_ds and @end_ds
"""
EXTRA = ", count(*) as n"  # daily's third variant: the first with a column added


def day_text(d: int) -> str:
    return f"2025-01-{d + 1:02d}"


class EnvironmentsMachine(RuleBasedStateMachine):
    project: Any = None
    names = iter(range(1, 10**9))

    def __init__(self) -> None:
        super().__init__()
        self.n = 0
        self.source: list[tuple[int, int]] = []  # (day, amount)
        # (version key, which of its two tables) -> {'days': processed days, 'rows': {day:
        # value}, 'at': the step of its newest log row, 0 without one}
        self.tables: dict[tuple[Any, ...], dict[str, Any]] = {}
        # env -> model -> (version key, table)
        self.pointers: dict[str, dict[str, tuple[Any, ...]]] = {env: {} for env in ENVS}
        self.clock = 0
        # daily's variant -> its lineage, as its pointer rows first recorded it
        self.recorded: dict[int, int] = {}

    def _lineage(self, f: int) -> int:
        """Daily's lineage for variant `f`: the recorded one, else the first's for the third
        (non-breaking from it) while prod shows the first, else its own."""
        if f in self.recorded:
            return self.recorded[f]
        prods = self.pointers["prod"].get("daily")
        if f == 3 and prods is not None and prods[0] == ("daily", 1):
            return self.recorded.get(1, 1)
        return f

    def _current(self, key: tuple[Any, ...]) -> int:
        """Which of a version's two tables a run writes: the one with the newer log."""
        at = [self.tables[(key, t)]["at"] if (key, t) in self.tables else 0 for t in (0, 1)]
        return 1 if at[1] > at[0] else 0

    # ---------------------------------------------------------------- set-up

    @initialize(
        source=st.lists(st.tuples(st.integers(0, DAYS - 1), st.integers(1, 50)), max_size=10)
    )
    def setup(self, source: list[tuple[int, int]]) -> None:
        self.n = next(self.names)
        self.source = list(source)
        self.project.run_sql(f"create table {self.src} (day date, amount int) using parquet")
        self._insert(self.source)

    @property
    def src(self) -> str:
        return f"{self.project.test_schema}.e{self.n}_src"

    def _insert(self, items: list[tuple[int, int]]) -> None:
        if items:
            values = ", ".join(f"(date'{day_text(d)}', {a})" for d, a in items)
            self.project.run_sql(f"insert into {self.src} values {values}")

    def _write(self, f: int, g: int) -> None:
        root = self.project.project_root
        daily = f"e{self.n}_daily"
        code = DAILY.format(f=1 if f == 3 else f, src=self.src, extra=EXTRA if f == 3 else "")
        write_file(code, root, "models", f"{daily}.sql")
        write_file(TOP.format(g=g, daily=daily), root, "models", f"e{self.n}_top.sql")

    # ---------------------------------------------------------------- steps

    @rule(
        env=st.sampled_from(ENVS),
        f=st.sampled_from([1, 2, 3]),
        g=st.sampled_from([0, 10]),
        windowed=st.booleans(),
        alone=st.booleans(),
        full_refresh=st.sampled_from([False, False, True]),
    )
    def run(
        self, env: str, f: int, g: int, windowed: bool, alone: bool, full_refresh: bool
    ) -> None:
        self.clock += 1
        windowed = windowed and env != "prod"
        shown = self.pointers[env].get("daily")
        # the child alone reads its parent's view of this target: once there is one
        alone = alone and shown is not None
        # ... which may show a version of another lineage than the parent's code
        lineage = self._lineage(f)
        stale = alone and shown is not None and self.recorded[shown[0][1]] != lineage
        self._write(f, g)
        vars: dict[str, Any] = {"vulcan_execution_time": EXEC}
        if windowed:
            vars["vulcan_dev_start"] = f"{WINDOW} days"
        selected = [f"e{self.n}_top"] if alone else [f"e{self.n}_daily", f"e{self.n}_top"]
        command = ["run", "--target", env, "-s", *selected, "--vars", json.dumps(vars)]
        if full_refresh:
            command.append("--full-refresh")
        if stale and env == "prod":
            # prod never builds a version from an old parent: refused, nothing written
            results = run_dbt(command, expect_pass=False)
            (message,) = [str(r.message) for r in results if r.node.name == f"e{self.n}_top"]
            assert "prod's views of its parents show" in message, message
            return
        run_dbt(command)
        start = DAYS - WINDOW if windowed else 0
        steps = [("daily", ("daily", f)), ("top", ("top", lineage, g))]
        for model, key in steps[1:] if alone else steps:
            prods = self.pointers["prod"].get(model)
            if env != "prod" and prods is not None and prods[0] == key:
                self.pointers[env][model] = prods  # prod's version: read only
                if model == "daily":
                    self.recorded.setdefault(f, lineage)
                continue
            if model == "top" and stale:
                key = ("top", f, g, env)  # rows of an old parent: a table of this target's own
            slot = self._current(key)
            if full_refresh and (key, slot) in self.tables:
                # a rebuild: beside the table when a view shows it, swapped in at the end
                if any(p.get(model) == (key, slot) for p in self.pointers.values()):
                    slot = 1 - slot
                old = self.tables.get((key, slot))
                reset = self.clock if old is not None and old["at"] else 0
                self.tables[(key, slot)] = {"days": set(), "rows": {}, "at": reset}
            table = self.tables.setdefault((key, slot), {"days": set(), "rows": {}, "at": 0})
            parent = self.tables[self.pointers[env]["daily"]] if model == "top" else None
            for d in range(start, DAYS):
                if d in table["days"] or (parent is not None and d not in parent["days"]):
                    continue  # processed, or waiting for its parent's day
                table["days"].add(d)
                table["at"] = self.clock
                if parent is None:
                    amounts = [a for day, a in self.source if day == d]
                    if amounts:
                        table["rows"][d] = sum(amounts) * (1 if f == 3 else f)
                elif d in parent["rows"]:
                    table["rows"][d] = parent["rows"][d] + g
            self.pointers[env][model] = (key, slot)
            if model == "daily":
                self.recorded.setdefault(f, lineage)

    @rule(
        items=st.lists(
            st.tuples(st.integers(0, DAYS - 1), st.integers(1, 50)), min_size=1, max_size=3
        )
    )
    def add_rows(self, items: list[tuple[int, int]]) -> None:
        self.source.extend(items)
        self._insert(items)

    @rule()
    def janitor(self) -> None:
        run_dbt(
            [
                "run-operation",
                "vulcan_janitor",
                "--target",
                "prod",
                "--args",
                json.dumps({"ttl": 0, "execution_time": "2099-01-01"}),
            ]
        )
        used = {key for pointers in self.pointers.values() for key in pointers.values()}
        for key in list(self.tables):
            if key not in used:
                del self.tables[key]

    @rule(env=st.sampled_from(["dev", "ci"]))
    def drop_environment(self, env: str) -> None:
        run_dbt(
            [
                "run-operation",
                "vulcan_drop_environment",
                "--target",
                "prod",
                "--args",
                json.dumps({"environment": env}),
            ]
        )
        self.pointers[env] = {}

    # ---------------------------------------------------------------- checks

    def teardown(self) -> None:
        root = self.project.project_root
        for model in ("daily", "top"):
            path = os.path.join(str(root), "models", f"e{self.n}_{model}.sql")
            if os.path.exists(path):
                os.remove(path)

    @invariant()
    def check(self) -> None:
        schema = self.project.test_schema
        for env, suffix in zip(ENVS, ("", "_dev", "_ci"), strict=True):
            for model, column in (("daily", "v"), ("top", "w")):
                name = f"{schema}{suffix}.e{self.n}_{model}"
                key = self.pointers[env].get(model)
                views = views_in(self.project, schema + suffix)
                if key is None:
                    assert f"e{self.n}_{model}" not in views, (env, model)
                    continue
                got = {
                    str(r[0]): int(r[1])
                    for r in rows(self.project, f"select day, {column} from {name}")
                }
                want = {day_text(d): v for d, v in self.tables[key]["rows"].items()}
                assert got == want, (env, model, key)
        listed = (
            rows(self.project, f"show tables in {schema}_physical")
            if rows(self.project, f"show schemas like '{schema}_physical'")
            else []
        )
        physical = {str(r[1]) for r in listed if str(r[1]).startswith(f"e{self.n}_") and not r[2]}
        assert len(physical) == len(self.tables), (physical, sorted(self.tables))


class TestEnvironmentsFuzz(EnvironmentsProject):
    def test_environments_match_the_expected_world(self, project: Any) -> None:
        for suffix in ("_dev", "_ci"):
            project.run_sql(f"create schema if not exists {project.test_schema}{suffix}")
        seed = (
            random.SystemRandom().randrange(2**32)
            if SEED_TEXT.strip() in ("", "random")
            else int(SEED_TEXT)
        )
        print(f"environments fuzzer: ENV_FUZZ_SEED={seed}")
        EnvironmentsMachine.project = project
        machine = hypothesis_seed(seed)(type("EnvironmentsRun", (EnvironmentsMachine,), {}))
        run_state_machine_as_test(
            machine,
            settings=settings(
                max_examples=EXAMPLES,
                stateful_step_count=STEP_COUNT,
                deadline=None,
                database=None,
                print_blob=True,
                suppress_health_check=list(HealthCheck),
                phases=[Phase.explicit, Phase.generate, Phase.shrink],
            ),
        )
