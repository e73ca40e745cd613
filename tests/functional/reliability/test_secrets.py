"""Credentials never leak: with a profile whose `password` and `token` are set, neither
appears in dbt's output, dbt.log, the target/ artifacts or the interval state table, whether
the run succeeds or a model fails (`--debug`, so every SQL statement is logged). On thrift the
password really travels (PLAIN SASL) and dbt runs as a subprocess; on the embedded session
the keys are accepted but unused, and dbt runs in-process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture

from tests.support.functional import STATE, rows
from tests.support.reliability import run_dbt_process

PASSWORD = "pw-Vulcan-7f3a9c"
TOKEN = "dapi-Vulcan-token-51e8"

GOOD = """
{{ config(materialized='incremental_by_time_range', time_column='d', start='2025-01-01',
          batch_size=2) }}
select d, 1 as n from (select explode(sequence(date'2025-01-01', date'2025-01-09')) as d)
where d between @start_ds and @end_ds
"""

FAILING = """
{{ config(materialized='incremental_by_time_range', time_column='d', start='2025-01-01') }}
select d, cast(raise_error('boom') as int) as n
from (select explode(sequence(date'2025-01-01', date'2025-01-09')) as d)
where d between @start_ds and @end_ds
"""


class TestNoCredentialsInLogsOrState:
    @pytest.fixture(scope="class")
    def profiles_config_update(
        self, dbt_profile_target: dict[str, Any], unique_schema: str
    ) -> dict[str, Any]:
        # the server authenticates nobody (hive.server2.authentication=NONE); PLAIN SASL still
        # sends the password, so the client really uses it
        target = {**dbt_profile_target, "schema": unique_schema, "password": PASSWORD}
        target["token"] = TOKEN
        if target["method"] == "thrift":
            target["auth"] = "CUSTOM"
        return {"test": {"outputs": {"default": target}, "target": "default"}}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"good.sql": GOOD, "failing.sql": FAILING}

    def test_password_and_token_appear_nowhere(
        self, project: Any, logs_dir: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("DBT_WRITE_JSON", "true")  # every artifact, checked below
        profiles = Path(project.profiles_dir) / "profiles.yml"
        assert PASSWORD in profiles.read_text() and TOKEN in profiles.read_text()
        exec_vars = '{"vulcan_execution_time": "2025-01-07"}'
        if project.adapter.config.credentials.method == "thrift":
            outputs = [
                run_dbt_process(project, "debug"),
                run_dbt_process(
                    project, "--debug", "run", vars={"vulcan_execution_time": "2025-01-07"}
                ),
                run_dbt_process(project, "run-operation", "vulcan_status"),
            ]
            assert outputs[0].returncode == 0, outputs[0].stdout[-2000:]
            assert outputs[1].returncode == 1  # `failing` fails, `good` runs
            printed = [o.stdout + o.stderr for o in outputs]
            run_output = printed[1]
        else:
            run_output = run_dbt_and_capture(
                ["--debug", "run", "--vars", exec_vars], expect_pass=False
            )[1]
            printed = [run_output, run_dbt_and_capture(["run-operation", "vulcan_status"])[1]]
        # `good` passes, and the package's on-run-start hook
        assert "boom" in run_output and "PASS=2 WARN=0 ERROR=1" in run_output
        texts = {f"output {i}": text for i, text in enumerate(printed)}
        files = [*Path(project.project_root).rglob("*"), *Path(logs_dir).rglob("*")]
        for path in files:
            if path.is_file() and path.suffix in (".log", ".json", ".txt", ".sql", ".msgpack"):
                texts[str(path)] = path.read_bytes().decode("utf-8", "replace")
        assert any("dbt.log" in name for name in texts)
        for name, text in texts.items():
            for secret in (PASSWORD, TOKEN):
                assert secret not in text, f"{secret} found in {name}"

        state = rows(project, f"select * from {STATE}")
        assert any(project.test_schema.lower() in str(r) for r in state)
        for row in state:
            for secret in (PASSWORD, TOKEN):
                assert secret not in "|".join(str(v) for v in row)
