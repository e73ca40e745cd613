"""The calls between the package's macro folders, read from their Jinja syntax trees (dbt's own
Jinja environment parses them, as scripts/check_v2_rules.py does):

- a private macro (`_`-prefixed) referenced from a folder other than its own;
- cycles among the folders (folder A references a macro of B and B one of A, directly or
  through others): each strongly connected group of two or more folders;
- macros nothing references: no `dbt_vulcan.<name>` in another macro, no dispatch to them, no
  mention by the `vulcan` adapter's Python, and not an entry point (a materialization, an
  implementation of a dispatched macro, a kind's write strategy `vulcan_<kind>_<format>`
  looked up by name, or a name README, the docs or the example project give users); those the tests
  alone name are listed apart.

A folder is a macro file's directory under dbt/include/vulcan (`macros/engine`,
`macros/kinds/unique_key`, `adapter_macros`). A reference is `dbt_vulcan.<name>` (a call, or the
macro passed as a value) or `adapter.dispatch('<name>', ...)` (its `<adapter>__<name>`
variants).

Usage: `python scripts/check_macro_calls.py [--strict]` prints the findings and their counts;
with --strict (`make lint`), exit 1 when there is any.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import nodes

ROOT = Path(__file__).resolve().parents[1]
INCLUDE = ROOT / "dbt" / "include" / "vulcan"
MACRO_DIRS = (INCLUDE / "macros", INCLUDE / "adapter_macros")
PYTHON = ROOT / "dbt" / "adapters" / "vulcan"
PUBLIC_DOCS = (
    ROOT / "README.md",
    ROOT / "docs",
    ROOT / "integration_project",
    ROOT / "dbt_project.yml",
)
TESTS = ROOT / "tests"
DISPATCH_PREFIXES = ("default__", "spark__", "databricks__", "vulcan__")
STRATEGY = re.compile(r"^vulcan_[a-z0-9_]+_(parquet|delta|iceberg)$")
MATERIALIZATION = "materialization_"


@dataclass(frozen=True)
class Macro:
    name: str
    folder: str  # the file's directory, relative to dbt/include/vulcan
    path: Path
    line: int


@dataclass(frozen=True)
class Reference:
    caller: Macro
    callee: str
    line: int


@dataclass
class Report:
    private_crossings: list[tuple[Reference, Macro]] = field(default_factory=list)
    cycles: list[list[str]] = field(default_factory=list)
    unreferenced: list[Macro] = field(default_factory=list)
    test_only: list[Macro] = field(default_factory=list)

    @property
    def count(self) -> int:
        return (
            len(self.private_crossings)
            + len(self.cycles)
            + len(self.unreferenced)
            + len(self.test_only)
        )


def _walk(node: nodes.Node) -> Iterator[nodes.Node]:
    yield node
    for child in node.iter_child_nodes():
        yield from _walk(child)


def _macro_name(node: nodes.Macro) -> str:
    """A macro's name as dbt names it (dbt's parser prefixes `dbt_macro__`)."""
    for prefix in ("dbt_macro__",):
        if node.name.startswith(prefix):
            return node.name[len(prefix) :]
    return node.name


def parse(sources: dict[Path, str]) -> dict[Path, nodes.Template]:
    from dbt_common.clients.jinja import get_environment

    env = get_environment()
    return {path: env.parse(text, filename=str(path)) for path, text in sources.items()}


def folder_of(path: Path, include: Path = INCLUDE) -> str:
    return path.parent.relative_to(include).as_posix()


def definitions(templates: dict[Path, nodes.Template], include: Path = INCLUDE) -> dict[str, Macro]:
    found: dict[str, Macro] = {}
    for path, template in templates.items():
        for node in template.find_all(nodes.Macro):
            name = _macro_name(node)
            found[name] = Macro(name, folder_of(path, include), path, node.lineno)
    return found


def _references_in(node: nodes.Node) -> Iterator[tuple[str, int]]:
    for child in _walk(node):
        if (
            isinstance(child, nodes.Getattr)
            and isinstance(child.node, nodes.Name)
            and child.node.name == "dbt_vulcan"
        ):
            yield child.attr, child.lineno
        elif (
            isinstance(child, nodes.Call)
            and isinstance(child.node, nodes.Getattr)
            and child.node.attr == "dispatch"
            and isinstance(child.node.node, nodes.Name)
            and child.node.node.name == "adapter"
            and child.args
            and isinstance(child.args[0], nodes.Const)
        ):
            for prefix in DISPATCH_PREFIXES:
                yield prefix + str(child.args[0].value), child.lineno


def references(templates: dict[Path, nodes.Template], defined: dict[str, Macro]) -> list[Reference]:
    out = []
    for template in templates.values():
        for node in template.find_all(nodes.Macro):
            caller = defined[_macro_name(node)]
            for callee, line in _references_in(node):
                if callee in defined and callee != caller.name:
                    out.append(Reference(caller, callee, line))
    return out


def cycles(edges: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected groups of two or more folders (Tarjan's algorithm)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(groups)


def _mentioned(names: Iterable[str], texts: Iterable[str]) -> set[str]:
    """The names that appear as whole words in any of the texts."""
    blob = "\n".join(texts)
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", blob))
    return {n for n in names if n in words}


def _texts(paths: Iterable[Path], suffixes: tuple[str, ...]) -> Iterator[str]:
    for path in paths:
        if path.is_dir():
            for p in sorted(path.rglob("*")):
                if p.is_file() and p.suffix in suffixes:
                    yield p.read_text(errors="replace")
        elif path.is_file():
            yield path.read_text(errors="replace")


def dbt_macro_names() -> set[str]:
    """The macros of dbt-core's global project and dbt-spark: a package macro of the same name
    overrides one dbt calls itself (`is_incremental`, `py_script_comment`)."""
    import dbt.include.global_project
    import dbt.include.spark

    names: set[str] = set()
    for package in (dbt.include.global_project, dbt.include.spark):
        for folder in package.__path__:
            for text in _texts([Path(folder)], (".sql",)):
                names.update(re.findall(r"\{%-?\s*macro\s+([A-Za-z_][A-Za-z0-9_]*)", text))
    return names


def entry_point(macro: Macro, overrides: Collection[str] = ()) -> bool:
    """Called by dbt, not by another macro: a materialization, a dispatched variant, a kind's
    write strategy (looked up by name, engine/strategy.sql), an override of dbt's own."""
    name = macro.name
    return (
        name.startswith(MATERIALIZATION)
        or name.startswith(DISPATCH_PREFIXES)
        or bool(STRATEGY.match(name))
        or name in overrides
    )


def analyse(
    templates: dict[Path, nodes.Template],
    include: Path = INCLUDE,
    public_texts: Iterable[str] = (),
    python_texts: Iterable[str] = (),
    test_texts: Iterable[str] = (),
    overrides: Collection[str] = (),
) -> Report:
    defined = definitions(templates, include)
    refs = references(templates, defined)
    report = Report()
    for ref in refs:
        callee = defined[ref.callee]
        if ref.callee.startswith("_") and callee.folder != ref.caller.folder:
            report.private_crossings.append((ref, callee))
    report.cycles = cycles(
        (ref.caller.folder, defined[ref.callee].folder)
        for ref in refs
        if ref.caller.folder != defined[ref.callee].folder
    )
    referenced = {ref.callee for ref in refs}
    public = _mentioned(defined, public_texts) | _mentioned(defined, python_texts)
    tested = _mentioned(defined, test_texts)
    for macro in sorted(defined.values(), key=lambda m: (m.folder, m.name)):
        if macro.name in referenced or macro.name in public or entry_point(macro, overrides):
            continue
        (report.test_only if macro.name in tested else report.unreferenced).append(macro)
    return report


def package_report() -> tuple[Report, int]:
    """The findings over the package's macro files, and how many files."""
    paths = sorted(p for d in MACRO_DIRS for p in d.rglob("*.sql"))
    report = analyse(
        parse({p: p.read_text() for p in paths}),
        public_texts=_texts(PUBLIC_DOCS, (".md", ".sql", ".yml", ".yaml")),
        python_texts=_texts([PYTHON], (".py",)),
        test_texts=_texts([TESTS], (".py",)),
        overrides=dbt_macro_names(),
    )
    return report, len(paths)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    strict = "--strict" in args
    report, files = package_report()
    for ref, callee in report.private_crossings:
        where = f"{ref.caller.path.relative_to(ROOT)}:{ref.line}"
        print(
            f"{where}: {ref.caller.name} ({ref.caller.folder}) -> {callee.name} ({callee.folder})"
        )
    for group in report.cycles:
        print("folders calling each other: " + " <-> ".join(group))
    for macro in report.unreferenced:
        print(f"{macro.path.relative_to(ROOT)}:{macro.line}: {macro.name}: no caller")
    for macro in report.test_only:
        print(f"{macro.path.relative_to(ROOT)}:{macro.line}: {macro.name}: called only by tests")
    print(
        f"check_macro_calls: {len(report.private_crossings)} private macro reference(s) across "
        f"folders, {len(report.cycles)} folder cycle(s), {len(report.unreferenced)} macro(s) "
        f"with no caller, {len(report.test_only)} called only by tests ({files} files)",
        file=sys.stderr,
    )
    return 1 if strict and report.count else 0


if __name__ == "__main__":
    sys.exit(main())
