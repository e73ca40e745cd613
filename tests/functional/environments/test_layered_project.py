"""Environments on a team's daily job: 25 models in four layers (tests/support/
layered_project.py), eight threads. One staging model changes in a dev target with a 7-day
window: only it and the models below it are written, 7 days each, every other view points at
prod's version; vulcan_plan there lists the differences and what needs backfill; a CI target
builds the change in full; prod's run of the merged code is view swaps only and equals a clean
build of the new code; the rollback is view swaps only."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from dbt.tests.util import write_file

from tests.functional.environments.test_environments import data_statements, op
from tests.support import layered_project as job
from tests.support.functional import STATE, environment_profiles, environment_vars, rows, run

START = "2025-01-01"
EXEC = {"vulcan_execution_time": "2025-01-15 01:00:00"}  # 14 days due
CHANGED = "stg_0_0"
THREADS = ("--threads", "8")


class TestLayeredProjectEnvironments:
    @pytest.fixture(scope="class")
    def profiles_config_update(
        self, dbt_profile_target: dict[str, Any], unique_schema: str
    ) -> dict[str, Any]:
        return environment_profiles(dbt_profile_target, unique_schema, "dev", "ci", "clean")

    @pytest.fixture(scope="class")
    def project_config_update(self, unique_schema: str) -> dict[str, Any]:
        return environment_vars(unique_schema)

    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return job.seeds(date(2025, 1, 1), 14)

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return job.models(START)

    @pytest.fixture(scope="class", autouse=True)
    def _other_schemas(self, project: Any) -> Any:
        yield
        for suffix in ("_dev", "_ci", "_clean", "_physical"):
            project.run_sql(f"drop schema if exists {project.test_schema}{suffix} cascade")

    def checksums(self, project: Any, schema: str) -> dict[str, tuple[Any, ...]]:
        names = [name[:-4] for name in job.models(START)]
        union = " union all ".join(
            f"select '{name}' as m, * from ({job.checksum_sql(schema, name)})" for name in names
        )
        return {str(r[0]): tuple(r[1:]) for r in rows(project, union)}

    def test_dev_ci_deploy_rollback(self, project: Any, logs_dir: str, capsys: Any) -> None:
        prod, dev = project.test_schema, project.test_schema + "_dev"
        names = [name[:-4] for name in job.models(START)]
        changed = [CHANGED, *job.below(CHANGED)]
        for target in ("prod", "dev", "ci", "clean"):
            run("seed", "--target", target)
        run("run", "--target", "prod", *THREADS, vars=EXEC)
        first = self.checksums(project, prod)
        assert all(count > 0 for count, _ in first.values())

        # the change, planned in dev with its window: the differences and the backfill
        write_file(
            job.staging_sql(0, 0, START, factor=2), project.project_root, "models", f"{CHANGED}.sql"
        )
        window = {**EXEC, "vulcan_dev_start": "7 days"}
        out = op(
            capsys, "dev", "vulcan_plan", vars=window, execution_time=EXEC["vulcan_execution_time"]
        )
        differences = out[out.index("Differences from the `prod` environment") :]
        differences = differences[: differences.index("\n\n")]
        assert "├── Directly Modified:\n│   └── stg_0_0" in differences, differences
        indirect = differences[differences.index("Indirectly Modified:") :].splitlines()[1:]
        assert [line.split("── ")[1] for line in indirect] == sorted(job.below(CHANGED))
        backfill = out[out.index("Models needing backfill (missing dates):") :]
        backfill = backfill[: backfill.index("\n\n")].splitlines()[1:]
        assert backfill == [
            f"{'└──' if k == len(changed) - 1 else '├──'} {name}: 2025-01-08 - 2025-01-14"
            for k, name in enumerate(sorted(changed, key=lambda n: (n[0] != "s", n[0] != "m", n)))
        ], backfill

        # dev: only the changed models are written, 7 days each; the rest are prod's
        run("run", "--target", "dev", *THREADS, vars=window)
        for name in names:
            writes = data_statements(logs_dir, name)
            assert bool(writes) == (name in changed), (name, writes)
        for name in changed:
            processed = rows(
                project,
                f"select interval_start, interval_end from {STATE} where row_type = 'processed' "
                f"and relation like '{prod}_physical.{name}\\_\\_%' "
                "and interval_start >= '2025-01-08'",
            )
            assert [(str(a)[:10], str(b)[:10]) for a, b in processed] == [
                ("2025-01-08", "2025-01-15")
            ], (name, processed)
        in_dev = self.checksums(project, dev)
        for name in names:
            if name not in changed:
                assert in_dev[name] == first[name], name

        # CI builds the change in full, then prod deploys it: view swaps only
        run("run", "--target", "ci", *THREADS, vars=EXEC)
        run("run", "--target", "prod", *THREADS, vars=EXEC)
        for name in names:
            assert data_statements(logs_dir, name) == [], name
        deployed = self.checksums(project, prod)
        # equal to a clean build of the new code without the virtual layer
        run("run", "--target", "clean", *THREADS, vars={**EXEC, "vulcan_virtual": False})
        assert deployed == self.checksums(project, project.test_schema + "_clean")
        assert all(deployed[n] == first[n] for n in names if n not in changed)
        assert deployed[CHANGED] != first[CHANGED]

        # the rollback: the old code, prod's views back on the first versions
        write_file(job.staging_sql(0, 0, START), project.project_root, "models", f"{CHANGED}.sql")
        run("run", "--target", "prod", *THREADS, vars=EXEC)
        for name in names:
            assert data_statements(logs_dir, name) == [], name
        assert self.checksums(project, prod) == first
