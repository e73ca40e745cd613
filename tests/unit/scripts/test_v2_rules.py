"""scripts/check_v2_rules.py: dbt v2's rules for packages, over the macros (`make lint` runs it
on the package; here each rule is shown to catch what it names)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "check_v2_rules.py"
_spec = importlib.util.spec_from_file_location("check_v2_rules", SCRIPT)
assert _spec and _spec.loader
rules = importlib.util.module_from_spec(_spec)
sys.modules["check_v2_rules"] = rules  # its dataclass looks itself up there
_spec.loader.exec_module(rules)

PACKAGE = ROOT / "dbt" / "include" / "vulcan" / "macros" / "x" / "case.sql"
ADAPTER_OWN = ROOT / "dbt" / "include" / "vulcan" / "adapter_macros" / "case.sql"
# a macro the package defines, so a qualified call to it is fine
DEFINED = "{% macro vulcan_helper() %}{{ return(1) }}{% endmacro %}\n"


def problems(source: str, path: Path = PACKAGE) -> list[str]:
    templates = rules.parse_sources({path: DEFINED + source})
    return [p.message for p in rules.check(templates)]


def test_the_package_follows_the_rules() -> None:
    assert [str(p) for p in rules.check(rules.parse(rules.macro_files()))] == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "{% macro m() %}{{ modules.itertools.chain }}{% endmacro %}",
            "m: modules.itertools",
        ),
        (
            "{% macro m() %}{% set t = run_query('select 1') %}{{ t.where(x) }}{% endmacro %}",
            "m: agate .where",
        ),
        (
            "{% macro m() %}{{ run_query('select 1').order_by('a') }}{% endmacro %}",
            "m: agate .order_by",
        ),
        (
            "{% macro m() %}{{ load_result('main').table.to_csv('f') }}{% endmacro %}",
            "m: agate .to_csv",
        ),
        (
            "{% macro m() %}{% set r = load_result('main') %}{{ r.status }}{% endmacro %}",
            "m: load_result(...).status",
        ),
        (
            "{% macro m() %}{{ dbt_vulcan.no_such_macro() }}{% endmacro %}",
            "m: dbt_vulcan.no_such_macro",
        ),
        (
            "{% macro m() %}{{ vulcan_helper() }}{% endmacro %}",
            "m: vulcan_helper() unqualified: dbt_vulcan.vulcan_helper()",
        ),
        (
            "{% macro m() %}{{ adapter.no_such_method() }}{% endmacro %}",
            "m: adapter.no_such_method",
        ),
        (
            "{% macro default__m() %}{{ adapter.vulcan_python_release(model) }}{% endmacro %}",
            "default__m: adapter.vulcan_python_release is the `vulcan` adapter's only: "
            "call it from a vulcan__ dispatch variant",
        ),
        ("{{ return(1) }}", "return() outside a macro"),
        (
            "{% macro m() %}{{ config.get('time_column') }}{% endmacro %}",
            "m: config.get('time_column'): a dbt-vulcan key (read it with "
            "dbt_vulcan.vulcan_node_config)",
        ),
        (
            "{% macro m() %}{% if execute %}select 1{% endif %}{% endmacro %}",
            "m: tests `execute`: what does it render when parsing? (review it, then list it in "
            "EXECUTE_REVIEWED)",
        ),
    ],
)
def test_each_rule_catches_what_it_names(source: str, expected: str) -> None:
    assert problems(source) == [expected]


@pytest.mark.parametrize(
    "source",
    [
        "{% macro m() %}{{ modules.datetime.datetime.now() }}{{ modules.re.match('a', 'b') }}"
        "{{ modules.pytz.utc }}{% endmacro %}",
        "{% macro m() %}{% set t = run_query('select 1') %}{{ t.rows }}{{ t.columns }}"
        "{{ t.column_names }}{{ t.select(['a']) }}{{ t.distinct('a') }}{% endmacro %}",
        "{% macro m() %}{{ load_result('main').table.rows }}{{ load_result('main').response }}"
        "{% endmacro %}",
        "{% macro m() %}{{ dbt_vulcan.vulcan_helper() }}{{ adapter.dispatch('m', 'dbt_vulcan') }}"
        "{{ adapter.get_relation(a, b, c) }}{% endmacro %}",
        "{% macro vulcan__m() %}{{ adapter.vulcan_python_release(model) }}{% endmacro %}",
        # the validator's own `config` (a parameter): not dbt's
        "{% macro m(config) %}{{ config.get('time_column') }}{% endmacro %}",
        "{% macro m() %}{{ config.get('file_format') }}{% endmacro %}",
    ],
)
def test_what_the_rules_allow(source: str) -> None:
    assert problems(source) == []


def test_the_adapters_own_macros_may_call_its_methods() -> None:
    source = "{% macro py_script_comment() %}{{ adapter.vulcan_python_check(model) }}{% endmacro %}"
    assert problems(source, ADAPTER_OWN) == []
