"""scripts/check_macro_calls.py: the calls between the package's macro folders (private macros
used across folders, folders calling each other, macros nothing calls), each finding shown on
a small tree, and the package's own counts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "check_macro_calls.py"
_spec = importlib.util.spec_from_file_location("check_macro_calls", SCRIPT)
assert _spec and _spec.loader
calls = importlib.util.module_from_spec(_spec)
sys.modules["check_macro_calls"] = calls  # its dataclasses look themselves up there
_spec.loader.exec_module(calls)

INCLUDE = Path("/pkg")


def analyse(files: dict[str, str], **texts: list[str]) -> calls.Report:
    templates = calls.parse({INCLUDE / name: text for name, text in files.items()})
    return calls.analyse(templates, INCLUDE, **texts)


def macro(name: str, body: str = "") -> str:
    return f"{{% macro {name}() %}}{body}{{% endmacro %}}\n"


def test_a_private_macro_used_from_another_folder_is_named() -> None:
    report = analyse(
        {
            "macros/a/a.sql": macro("_helper") + macro("vulcan_a", "{{ dbt_vulcan._helper() }}"),
            "macros/b/b.sql": macro("vulcan_b", "{{ dbt_vulcan._helper() }}"),
        },
        public_texts=["vulcan_a vulcan_b"],
    )
    crossings = [
        (r.caller.name, r.caller.folder, c.name, c.folder) for r, c in report.private_crossings
    ]
    assert crossings == [("vulcan_b", "macros/b", "_helper", "macros/a")]
    assert report.cycles == [] and report.unreferenced == [] and report.test_only == []


def test_folders_that_call_each_other_are_a_cycle() -> None:
    report = analyse(
        {
            "macros/a/a.sql": macro("vulcan_a", "{{ dbt_vulcan.vulcan_b() }}"),
            "macros/b/b.sql": macro("vulcan_b", "{% do dbt_vulcan.vulcan_c() %}"),
            "macros/c/c.sql": macro(
                "vulcan_c", "{{ adapter.dispatch('vulcan_d', 'dbt_vulcan')() }}"
            ),
            "macros/a/d.sql": macro("default__vulcan_d"),
            "macros/e/e.sql": macro("vulcan_e", "{{ dbt_vulcan.vulcan_a }}"),
        },
        public_texts=["vulcan_e"],
    )
    # a -> b -> c -> a (through the dispatch to default__vulcan_d); e only calls into it
    assert report.cycles == [["macros/a", "macros/b", "macros/c"]]
    assert report.private_crossings == []


def test_macros_nothing_calls_and_those_only_tests_call() -> None:
    report = analyse(
        {
            "macros/a/a.sql": (
                macro("vulcan_dead")
                + macro("vulcan_tested")
                + macro("vulcan_documented")
                + macro("vulcan_used_by_python")
                + macro("vulcan_time_range_delta")  # a kind's strategy, looked up by name
                + macro("spark__something")  # a dispatched variant
                + macro("is_incremental")  # overrides dbt's own
                + "{% materialization my_kind, adapter='spark' %}{% endmaterialization %}\n"
            ),
        },
        public_texts=["see `vulcan_documented`"],
        python_texts=['execute_macro("vulcan_used_by_python")'],
        test_texts=['h.call("vulcan_tested")'],
        overrides={"is_incremental"},
    )
    assert [m.name for m in report.unreferenced] == ["vulcan_dead"]
    assert [m.name for m in report.test_only] == ["vulcan_tested"]


def test_the_package_follows_the_rule() -> None:
    # issue #51: no private macro called from another folder, no cycle among the folders, no
    # macro without a caller outside the tests (`make lint` runs the script with --strict)
    report, _ = calls.package_report()
    assert report.private_crossings == []
    assert report.cycles == []
    assert report.unreferenced == []
    assert report.test_only == []
    assert report.count == 0
