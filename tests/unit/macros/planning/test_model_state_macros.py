"""The key the validated settings are recorded and found under (planning/model_state.sql): the
same for the same node, kind, adapter type and release; different when any of them changes; a
date (YAML's, which JSON cannot hold) does not break it. The settings survive the
YAML round trip of the state log unchanged, so a run that reads them back plans as the run that
validated them."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
import yaml

import tests.oracle.test_config as unit_cases
from dbt.adapters.vulcan.__version__ import version
from tests.support.macro_harness import shared_harness

TR = "incremental_by_time_range"


def node(config: dict[str, Any]) -> dict[str, Any]:
    return {"name": "m", "config": config, "unrendered_config": config, "config_call_dict": {}}


def key(config: dict[str, Any], kind: str = TR, adapter: str = "vulcan") -> Any:
    return shared_harness(adapter).call("vulcan_settings_key", node(config), kind)


GOOD = dict(unit_cases.GOOD)


def test_release_is_the_package_version() -> None:
    assert shared_harness().call("vulcan_release") == version


def test_same_inputs_same_key() -> None:
    assert key(dict(GOOD)) == key(dict(GOOD))
    assert len(key(GOOD)) == 16


@pytest.mark.parametrize(
    "change",
    [
        {"lookback": 3},
        {"cron": "@hourly"},
        {"meta": {"lookback": 2}},
        {"file_format": "delta"},
    ],
)
def test_any_config_change_changes_the_key(change: dict[str, Any]) -> None:
    assert key({**GOOD, **change}) != key(GOOD)


def test_kind_and_adapter_are_in_the_key() -> None:
    assert key(GOOD, kind="incremental_by_unique_key") != key(GOOD)
    assert key(GOOD, adapter="databricks") != key(GOOD, adapter="spark")


def test_keys_set_to_none_are_left_out_at_every_depth() -> None:
    """The running model's node omits keys set to none; the same node in `graph` (a child's view
    of its parent, planning/upstream.sql) holds them: both give the same key, so a child finds
    its parent's recorded settings and does not validate it again on every run."""
    running = {**GOOD, "docs": {"show": True}, "grants": {}}
    in_graph = {"alias": None, **GOOD, "docs": {"show": True, "node_color": None}, "grants": {}}
    in_graph["audits"] = None
    assert key(in_graph) == key(running)
    # an empty value still counts, and so does a none inside a list
    assert key({**running, "tags": []}) != key(running)
    assert key({**running, "tags": [None]}) != key({**running, "tags": []})


def test_a_date_is_part_of_the_key() -> None:
    assert key({**GOOD, "start": date(2025, 1, 1)}) != key({**GOOD, "start": date(2025, 1, 2)})


def test_settings_survive_the_yaml_round_trip() -> None:
    """As dbt's toyaml / fromyaml write and read them (yaml.safe_dump / safe_load), a date of
    YAML in an audit's arguments included (JSON cannot write it)."""
    audit = {"name": "accepted_range", "column": "d", "min": date(2025, 1, 1)}
    config = {**GOOD, "audits": [audit]}
    settings = shared_harness("vulcan").call("vulcan_settings", node(config), TR)
    assert settings["audits"] == [audit]
    assert yaml.safe_load(yaml.safe_dump(settings, sort_keys=False)) == settings
