"""The validated settings once per definition, through real dbt runs in both modes
(planning/model_state.sql): the run that validates records its settings on its first processed
row (as YAML text), with its cron parsed; the next run of the
same config takes them from there (a debug line says so) and they are in effect; a changed
config is validated again: a bad one is refused before anything is written or recorded, a good
one records its settings anew.

Runs on the embedded session (parquet): what is checked is the state log and the plan."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from dbt.tests.util import run_dbt_and_capture, write_file

from tests.support.functional import STATE, models_state_rows, rows

SOURCE = (
    "select * from values (1, date'2025-01-01'), (2, date'2025-01-02'), (3, date'2025-01-03'),"
    " (4, date'2025-01-04'), (5, date'2025-01-05') as t(id, event_date)"
)
# an audit whose argument is a date of YAML
PROPERTIES = """
version: 2
models:
  - name: daily
    config:
      audits:
        - {name: accepted_range, column: event_date, min: 2025-01-01}
"""
REUSED = "Model 'daily': settings as recorded for this definition (not validated again)"


def model_sql(lookback: Any) -> str:
    return (
        "{{ config(materialized='incremental_by_time_range', time_column='event_date',"
        f" start='2025-01-01', lookback={lookback!r}) }}}}\n"
        f"select id, event_date from ({SOURCE}) as s\n"
        "where event_date between @start_ds and @end_ds\n"
    )


def details(project: Any) -> list[dict[str, Any]]:
    """The details of the model's processed rows, in recording order."""
    found = rows(
        project,
        f"select details from {STATE} where relation = '{project.test_schema}.daily'"
        " and row_type = 'processed' order by recorded_at, seq",
    )
    return [json.loads(str(r[0])) for r in found]


def run_day(day: str, expect_pass: bool = True) -> tuple[Any, str]:
    return run_dbt_and_capture(
        ["--debug", "run", "-s", "daily", "--vars", json.dumps({"vulcan_execution_time": day})],
        expect_pass=expect_pass,
    )


@pytest.mark.profile_only("parquet")
class TestSettingsOncePerDefinition:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"daily.sql": model_sql(1), "daily.yml": PROPERTIES}

    def test_recorded_reused_and_validated_again(self, project: Any) -> None:
        _, log = run_day("2025-01-03")
        assert REUSED not in log
        (first,) = details(project)
        settings = yaml.safe_load(first["settings"])
        assert settings["lookback"] == 1 and settings["model"] == "daily"
        assert settings["start"] == "2025-01-01 00:00:00"
        # dbt hands the YAML date over as text (a date object: the unit test of the key)
        assert str(settings["audits"][0]["min"]) == "2025-01-01"
        assert first["cron"]["normalized"] == "0 0 * * *" and first["cron"]["hours"] == [0]
        key = first["settings_key"]

        # same definition: the settings come from the log, and are the ones in effect
        # (lookback 1: the day before the new one is recomputed)
        _, log = run_day("2025-01-04")
        assert REUSED in log
        later = details(project)[-1]
        assert later["settings_key"] == key and "settings" not in later and "cron" not in later
        day = models_state_rows(project, ["daily"])["daily"][-1]
        assert day[:2] == ("2025-01-02 00:00:00", "2025-01-04 00:00:00"), day

        # a changed, bad config is validated again and refused; nothing is recorded
        before = models_state_rows(project, ["daily"])
        write_file(model_sql(-1), project.project_root, "models", "daily.sql")
        result, log = run_day("2025-01-05", expect_pass=False)
        assert REUSED not in log
        (refused,) = [r for r in result.results if r.node.name == "daily"]
        message = str(refused.message)
        assert "Invalid config for model 'daily'" in message and "lookback" in message, message
        assert models_state_rows(project, ["daily"]) == before

        # a changed, good config: validated, its settings recorded under a new key
        write_file(model_sql(0), project.project_root, "models", "daily.sql")
        _, log = run_day("2025-01-05")
        assert REUSED not in log
        newest = details(project)[-1]
        settings = yaml.safe_load(newest["settings"])
        assert settings["lookback"] == 0 and newest["settings_key"] != key
        day = models_state_rows(project, ["daily"])["daily"][-1]
        assert day[:2] == ("2025-01-04 00:00:00", "2025-01-05 00:00:00"), day
