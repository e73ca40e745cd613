"""The run path's templates compiled once before dbt's threads start
(engine/warm_templates.sql; engine/on_run_start.sql's vulcan_on_run_start decides when)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.macro_harness import Harness

MACROS = Path(__file__).resolve().parents[4] / "dbt" / "include" / "vulcan" / "macros"


def _defined() -> set[str]:
    names: set[str] = set()
    for path in MACROS.rglob("*.sql"):
        names |= set(re.findall(r"{%-?\s*macro\s+(\w+)\s*\(", path.read_text()))
    return names


class _Compiled:
    """A package macro as dbt-core hands it over: its template compiles on `get_template`."""

    def __init__(self, name: str, compiled: list[str]) -> None:
        self.name, self.compiled = name, compiled

    def get_template(self) -> None:
        self.compiled.append(self.name)


def test_every_name_on_the_run_path_is_a_macro_of_the_package() -> None:
    names = Harness().call("vulcan_run_path_macros")
    assert len(names) == len(set(names)) > 50
    assert set(names) <= _defined(), set(names) - _defined()
    # the shared path: the engine, the planner, the state log, the settings
    assert {"vulcan_materialize", "vulcan_model_plan", "vulcan_run_batches"} <= set(names)
    # not the validator, the rare branches, or one kind's own strategy
    assert not {"vulcan_settings", "_vulcan_adopt_unlogged", "vulcan_time_range_parquet"} & set(
        names
    )


def test_every_name_on_the_rebuild_path_is_a_macro_of_the_package_not_on_the_run_path() -> None:
    harness = Harness()
    names = harness.call("vulcan_rebuild_path_macros")
    assert len(names) == len(set(names)) > 5
    assert set(names) <= _defined(), set(names) - _defined()
    assert not set(names) & set(harness.call("vulcan_run_path_macros"))
    assert {"vulcan_create_empty_table", "vulcan_query_columns"} <= set(names)


@pytest.mark.parametrize("rebuild", [False, True])
def test_warm_templates_compiles_every_listed_macro_once(rebuild: bool) -> None:
    harness = Harness()
    names = harness.call("vulcan_run_path_macros")
    if rebuild:
        names += harness.call("vulcan_rebuild_path_macros")
    compiled: list[str] = []
    harness.context.update(
        {name: _Compiled(name, compiled) for name in harness.call("vulcan_rebuild_path_macros")}
    )
    harness.context.update(
        {name: _Compiled(name, compiled) for name in harness.call("vulcan_run_path_macros")}
    )
    harness.call("vulcan_warm_templates", rebuild=rebuild)
    assert compiled == names


def test_warm_templates_skips_macros_without_a_template_as_on_dbt_v2() -> None:
    # the harness's macros are plain callables, as a dbt v2 macro has no get_template
    harness = Harness()
    harness.call("vulcan_warm_templates")
    assert harness.statements == []


def _node(kind: str) -> dict[str, Any]:
    return {"resource_type": "model", "config": {"materialized": kind}}


@pytest.mark.parametrize(
    ("threads", "vulcan_models", "full_refresh", "calls"),
    [
        (8, 2, False, ["create", "warm"]),
        (8, 5, True, ["create", "warm rebuild"]),
        (1, 5, False, ["create", "warm"]),
        # one model: its compile counted in the process's wall, not in the model's time
        (8, 1, True, ["create", "warm rebuild"]),
        (None, 3, False, ["create", "warm"]),
        (8, 0, True, []),
    ],
)
def test_on_run_start_creates_the_state_table_and_warms_when_a_model_is_of_the_kinds(
    threads: int | None, vulcan_models: int, full_refresh: bool, calls: list[str]
) -> None:
    harness = Harness()
    done: list[str] = []
    nodes = {f"model.p.v{i}": _node("incremental_by_unique_key") for i in range(vulcan_models)}
    nodes |= {"model.p.plain": _node("table"), "seed.p.s": {"resource_type": "seed"}}
    harness.context.update(
        {
            "execute": True,
            "flags": type(
                "Flags", (), {"WHICH": "run", "EMPTY": False, "FULL_REFRESH": full_refresh}
            )(),
            "selected_resources": ["model.p.plain", "seed.p.s", *sorted(nodes)],
            "graph": {"nodes": nodes},
            "target": {**harness.context["target"], "threads": threads},
            "vulcan_create_state_table": lambda: done.append("create") or "",
            "vulcan_warm_templates": lambda rebuild: (
                done.append("warm rebuild" if rebuild else "warm") or ""
            ),
        }
    )
    assert harness.call("vulcan_on_run_start") == ""
    assert done == calls
