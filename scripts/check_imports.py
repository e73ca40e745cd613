"""The import rules of the shipped Python, checked on its syntax tree (Python's `ast`):

- nothing under dbt/ imports the tests: not `tests`, `tests.oracle` nor any module under
  tests/ (the oracle, tests/oracle/, is the reference the Jinja macros are checked against;
  it is neither run nor shipped). Every import counts, also one inside a function or under
  `if TYPE_CHECKING:`, and `importlib.import_module` / `__import__` of a literal name;
- nothing dead is shipped: every module of dbt/adapters/vulcan is imported at run time,
  directly or lazily (an import inside a function counts, one under `if TYPE_CHECKING:`
  does not), by the graph that starts at the adapter's package, dbt/adapters/vulcan/
  __init__.py (what dbt imports to load the adapter).

Usage: `python scripts/check_imports.py [ROOT]` (ROOT: the repository, by default this one;
exit 1 and one line per problem, `path:line: what`). `make lint` runs it.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = "dbt"  # every Python file under it is shipped code
ADAPTER = "dbt.adapters.vulcan"  # the package dbt imports; the run-time graph starts there
FORBIDDEN = "tests"  # the tests' package (tests/oracle/ and the rest)


@dataclass(frozen=True)
class Import:
    module: str  # the absolute name imported (for `from m import n`: m, and m.n if a module)
    line: int
    runtime: bool  # False under `if TYPE_CHECKING:` (never executed)


@dataclass(frozen=True)
class Problem:
    path: str  # relative to the root
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _literal_import(node: ast.Call) -> str | None:
    """The module of `importlib.import_module("m")` / `import_module("m")` / `__import__("m")`."""
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    if name not in ("import_module", "__import__") or not node.args:
        return None
    first = node.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None


def _resolve(package: str, module: str | None, level: int) -> str:
    if level == 0:
        return module or ""
    base = package.split(".")[: len(package.split(".")) - (level - 1)]
    return ".".join([*base, module] if module else base)


def imports(tree: ast.Module, name: str, is_package: bool, modules: set[str]) -> list[Import]:
    """Every import of the module `name` (its syntax tree `tree`); `modules`: the names of the
    modules that exist, to tell `from package import submodule` from a name of the package."""
    package = name if is_package else name.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, runtime: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            visit(node.test, runtime)
            for child in node.body:
                visit(child, False)
            for child in node.orelse:
                visit(child, runtime)
            return
        if isinstance(node, ast.Import):
            found.extend(Import(alias.name, node.lineno, runtime) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(package, node.module, node.level)
            found.append(Import(base, node.lineno, runtime))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in modules:
                    found.append(Import(full, node.lineno, runtime))
        elif isinstance(node, ast.Call):
            literal = _literal_import(node)
            if literal is not None:
                found.append(Import(literal, node.lineno, runtime))
        for child in ast.iter_child_nodes(node):
            visit(child, runtime)

    visit(tree, True)
    return found


def _parents(module: str) -> Iterator[str]:
    """`a.b.c` -> a, a.b, a.b.c: importing a module runs its packages' __init__ first."""
    parts = module.split(".")
    for i in range(1, len(parts) + 1):
        yield ".".join(parts[:i])


def check(root: Path = ROOT) -> list[Problem]:
    files = sorted((root / SHIPPED).rglob("*.py"))
    names = {module_name(root, path): path for path in files}
    graph: dict[str, list[Import]] = {}
    problems: list[Problem] = []
    for name, path in names.items():
        rel = path.relative_to(root).as_posix()
        try:
            tree = ast.parse(path.read_text(), filename=rel)
        except SyntaxError as exc:
            problems.append(Problem(rel, exc.lineno or 1, f"does not parse: {exc.msg}"))
            continue
        graph[name] = imports(tree, name, path.name == "__init__.py", set(names))
        for imp in graph[name]:
            if imp.module == FORBIDDEN or imp.module.startswith(FORBIDDEN + "."):
                problems.append(
                    Problem(
                        rel,
                        imp.line,
                        f"imports {imp.module}: shipped code never imports the tests "
                        "(tests/oracle is the reference the macros are checked against; "
                        "what runs belongs in dbt/adapters/vulcan)",
                    )
                )
    reached: set[str] = set()
    pending = [ADAPTER]
    while pending:
        current = pending.pop()
        for module in _parents(current):
            if module in names and module not in reached:
                reached.add(module)
                pending.extend(imp.module for imp in graph.get(module, []) if imp.runtime)
    adapter_dir = root / Path(*ADAPTER.split("."))
    for name, path in names.items():
        if path.is_relative_to(adapter_dir) and name not in reached:
            problems.append(
                Problem(
                    path.relative_to(root).as_posix(),
                    1,
                    f"{name} is not imported at run time (not reachable from {ADAPTER}, "
                    "directly or lazily): nothing dead is shipped; a test oracle belongs "
                    "in tests/oracle/",
                )
            )
    return sorted(problems, key=lambda p: (p.path, p.line, p.message))


def main(argv: list[str]) -> int:
    root = Path(argv[0]).resolve() if argv else ROOT
    problems = check(root)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
