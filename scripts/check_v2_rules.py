"""dbt v2 (the Rust engine behind dbt Fusion) readiness of the package's macros, checked on
their Jinja syntax tree (dbt's own Jinja environment parses them). dbt v2 cannot be installed
here; these are its documented rules for packages (README, "Versions"):

- `modules` holds only `datetime`, `re` and `pytz`;
- `run_query` / `load_result` tables support only part of agate: `columns`, `column_names`,
  `column_types`, `rows`, `select`, `rename`, `group_by`, `distinct`, `print_table`;
- parsing fails on a macro that is not defined and on an adapter method the adapter lacks:
  every `dbt_vulcan.<name>` is a macro of the package, no package macro is called unqualified
  (in package mode it would not resolve), and `adapter.<method>` is a dbt-spark method, or a
  `vulcan` adapter method called only from a `vulcan__` dispatch variant or the adapter's own
  macros (adapter_macros/, which only the `vulcan` adapter loads);
- `return()` only inside a macro or materialization;
- custom config keys are not returned by `config.get`: the kinds' own keys are read from the
  node through `vulcan_node_config` (which also finds them under `meta`, with
  `config.meta_get` where dbt has it), so `config.get` / `config.require` name only dbt's keys;
- no SQL built only when `execute` is true and rendered empty otherwise: each macro that tests
  `execute` is listed below with what it renders when parsing, and a new one fails until it is
  reviewed and listed.

Usage: `python scripts/check_v2_rules.py` (exit 1 and one line per problem). `make lint` runs it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from jinja2 import nodes

ROOT = Path(__file__).resolve().parents[1]
MACRO_DIRS = (
    ROOT / "dbt" / "include" / "vulcan" / "macros",
    ROOT / "dbt" / "include" / "vulcan" / "adapter_macros",
)
MODULES = {"datetime", "re", "pytz"}
AGATE = {
    "columns",
    "column_names",
    "column_types",
    "rows",
    "select",
    "rename",
    "group_by",
    "distinct",
    "print_table",
}
# load_result(name) is a mapping: its table, its response and its data
LOAD_RESULT = {"table", "response", "data"}
# (file name, macro): what it renders when `execute` is false (parsing)
EXECUTE_REVIEWED = {
    ("tokens.sql", "vulcan_token"): "the token's placeholder `@name`",
    ("native_sql.sql", "vulcan_native_sql"): "the model's SQL unchanged",
    ("on_run_start.sql", "vulcan_on_run_start"): "nothing: a hook with no SQL",
    ("create_state_table.sql", "vulcan_create_state_table"): "nothing: no SQL",
    ("is_incremental.sql", "is_incremental"): "False, as dbt's own is_incremental()",
}


@dataclass(frozen=True)
class Problem:
    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}: {self.message}"


def _environment():  # type: ignore[no-untyped-def]
    from dbt_common.clients.jinja import get_environment

    return get_environment()


def _macro_name(node: nodes.Macro) -> str:
    name = node.name
    for prefix in ("dbt_macro__materialization_", "dbt_macro__"):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def _walk(node: nodes.Node) -> Iterator[nodes.Node]:
    yield node
    for child in node.iter_child_nodes():
        yield from _walk(child)


def _is_call_to(node: nodes.Node, name: str) -> bool:
    if not isinstance(node, nodes.Call):
        return False
    return isinstance(node.node, nodes.Name) and node.node.name == name


def _spark_adapter_methods() -> set[str]:
    """What `adapter` has in a dbt-spark project: dbt's wrapper (dispatch, ...) and the adapter."""
    from dbt.adapters.spark.impl import SparkAdapter
    from dbt.context.providers import RuntimeDatabaseWrapper

    return {
        name
        for cls in (SparkAdapter, RuntimeDatabaseWrapper)
        for name in dir(cls)
        if not name.startswith("_")
    }


def _vulcan_adapter_methods() -> set[str]:
    from dbt.adapters.vulcan.impl import VulcanAdapter

    return {name for name in dir(VulcanAdapter) if not name.startswith("_")}


def _config_keys() -> tuple[set[str], set[str]]:
    """dbt's own keys, and dbt-vulcan's (with aliases)."""
    from dbt.adapters.vulcan import config_keys

    own: set[str] = set()
    dbts: set[str] = set()
    for key in config_keys.config_keys():
        (dbts if key.dbt else own).update(key.names)
    return dbts, own - dbts


def parse_sources(sources: dict[Path, str]) -> dict[Path, nodes.Template]:
    env = _environment()
    return {path: env.parse(source, filename=str(path)) for path, source in sources.items()}


def parse(paths: list[Path]) -> dict[Path, nodes.Template]:
    return parse_sources({path: path.read_text() for path in paths})


def check(templates: dict[Path, nodes.Template]) -> list[Problem]:
    defined = {
        _macro_name(macro)
        for template in templates.values()
        for macro in template.find_all(nodes.Macro)
    }
    spark_methods = _spark_adapter_methods()
    vulcan_methods = _vulcan_adapter_methods() - spark_methods
    _dbt_keys, own_keys = _config_keys()
    problems: list[Problem] = []

    for path, template in templates.items():
        macros = list(template.find_all(nodes.Macro))
        inside = {id(n) for macro in macros for n in _walk(macro)}
        for node in _walk(template):
            if _is_call_to(node, "return") and id(node) not in inside:
                problems.append(Problem(path, node.lineno, "return() outside a macro"))
        for macro in macros:
            problems += _check_macro(path, macro, defined, spark_methods, vulcan_methods, own_keys)
    return sorted(problems, key=lambda p: (str(p.path), p.line, p.message))


def _check_macro(
    path: Path,
    macro: nodes.Macro,
    defined: set[str],
    spark_methods: set[str],
    vulcan_methods: set[str],
    own_keys: set[str],
) -> list[Problem]:
    name = _macro_name(macro)
    problems: list[Problem] = []
    # names bound to a run_query() table or a load_result() mapping in this macro
    tables: set[str] = set()
    results: set[str] = set()
    # `config` as a parameter or a local of the macro (the validator's), not dbt's
    local_config = any(arg.name == "config" for arg in macro.args)
    for node in _walk(macro):
        if isinstance(node, nodes.Assign) and isinstance(node.target, nodes.Name):
            if _is_call_to(node.node, "run_query"):
                tables.add(node.target.name)
            elif _is_call_to(node.node, "load_result"):
                results.add(node.target.name)
            elif node.target.name == "config":
                local_config = True
    for node in _walk(macro):
        line = node.lineno
        if isinstance(node, nodes.Getattr):
            base = node.node
            if isinstance(base, nodes.Name) and base.name == "modules":
                if node.attr not in MODULES:
                    problems.append(Problem(path, line, f"{name}: modules.{node.attr}"))
            elif isinstance(base, nodes.Name) and base.name == "dbt_vulcan":
                if node.attr not in defined:
                    problems.append(Problem(path, line, f"{name}: dbt_vulcan.{node.attr}"))
            elif isinstance(base, nodes.Name) and base.name == "adapter":
                adapter_only = name.startswith("vulcan__") or "adapter_macros" in path.parts
                if node.attr in vulcan_methods and not adapter_only:
                    problems.append(
                        Problem(
                            path,
                            line,
                            f"{name}: adapter.{node.attr} is the `vulcan` adapter's only: "
                            "call it from a vulcan__ dispatch variant",
                        )
                    )
                elif node.attr not in spark_methods | vulcan_methods:
                    problems.append(Problem(path, line, f"{name}: adapter.{node.attr}"))
            elif (
                _is_call_to(base, "run_query")
                or (isinstance(base, nodes.Name) and base.name in tables)
                or (
                    isinstance(base, nodes.Getattr)
                    and base.attr == "table"
                    and (
                        _is_call_to(base.node, "load_result")
                        or (isinstance(base.node, nodes.Name) and base.node.name in results)
                    )
                )
            ):
                if node.attr not in AGATE:
                    problems.append(Problem(path, line, f"{name}: agate .{node.attr}"))
            elif (
                _is_call_to(base, "load_result")
                or (isinstance(base, nodes.Name) and base.name in results)
            ) and node.attr not in LOAD_RESULT:
                problems.append(Problem(path, line, f"{name}: load_result(...).{node.attr}"))
        elif isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name):
            called = node.node.name
            if called.startswith(("vulcan_", "_vulcan_")) and called in defined:
                problems.append(
                    Problem(path, line, f"{name}: {called}() unqualified: dbt_vulcan.{called}()")
                )
        elif (
            isinstance(node, nodes.Call)
            and isinstance(node.node, nodes.Getattr)
            and isinstance(node.node.node, nodes.Name)
            and node.node.node.name == "config"
            and node.node.attr in ("get", "require")
            and not local_config
            and node.args
            and isinstance(node.args[0], nodes.Const)
            and node.args[0].value in own_keys
        ):
            problems.append(
                Problem(
                    path,
                    line,
                    f"{name}: config.{node.node.attr}({node.args[0].value!r}): a dbt-vulcan key "
                    "(read it with dbt_vulcan.vulcan_node_config)",
                )
            )
        elif (
            isinstance(node, nodes.Name)
            and node.name == "execute"
            and node.ctx == "load"
            and (path.name, name) not in EXECUTE_REVIEWED
        ):
            problems.append(
                Problem(
                    path,
                    line,
                    f"{name}: tests `execute`: what does it render when parsing? "
                    "(review it, then list it in EXECUTE_REVIEWED)",
                )
            )
    return problems


def macro_files() -> list[Path]:
    return sorted(p for d in MACRO_DIRS for p in d.rglob("*.sql"))


def main() -> int:
    problems = check(parse(macro_files()))
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_v2_rules: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_v2_rules: {len(macro_files())} macro files follow dbt v2's rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
