"""Every error message the product raises is in the troubleshooting page
(docs/guides/troubleshooting.md), by its text, with its fix. The messages are read from the
code: each `exceptions.raise_compiler_error(...)` of the macros (dbt/include/vulcan/macros and
adapter_macros) and each `raise` of the adapter's Python (dbt/adapters/vulcan). A message is
built from pieces, so each is matched on its longest literal piece, a stable fragment of its
text; a call that passes a message built elsewhere (`raise_compiler_error(result.message)`) has
none and is covered where that message is built."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "guides" / "troubleshooting.md"
MACROS = (
    ROOT / "dbt" / "include" / "vulcan" / "macros",
    ROOT / "dbt" / "include" / "vulcan" / "adapter_macros",
)
ADAPTER = ROOT / "dbt" / "adapters" / "vulcan"
CALL = "exceptions.raise_compiler_error("
LITERAL = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")
# a fragment shorter than this says too little to be looked up
SHORTEST = 12


def _call_text(text: str, start: int) -> str:
    """The argument text of the call whose '(' ends at `start`, up to its closing ')'."""
    depth, i, quote = 1, start, ""
    while depth and i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        i += 1
    return text[start : i - 1]


def _fragment(pieces: list[str]) -> str | None:
    """The longest literal piece, without the spaces and punctuation it is joined by."""
    cleaned = [p.strip(" \t\n:;,.()[]'\"-") for p in pieces]
    best = max(cleaned, key=len, default="")
    return best if len(best) >= SHORTEST else None


def macro_messages() -> list[tuple[str, str]]:
    """(where, fragment) of each raise_compiler_error call of the macros with a literal."""
    found = []
    for folder in MACROS:
        for path in sorted(folder.rglob("*.sql")):
            text = path.read_text()
            for match in re.finditer(re.escape(CALL), text):
                args = _call_text(text, match.end())
                pieces = [
                    (a or b).replace("\\'", "'").replace('\\"', '"').replace("\\n", "\n")
                    for a, b in LITERAL.findall(args)
                ]
                fragment = _fragment(pieces)
                if fragment:
                    line = text.count("\n", 0, match.start()) + 1
                    found.append((f"{path.relative_to(ROOT)}:{line}", fragment))
    return found


def _strings(node: ast.AST) -> list[str]:
    out = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            out.append(sub.value)
    return out


def adapter_messages() -> list[tuple[str, str]]:
    """(where, fragment) of each `raise` of the adapter with a literal: in its call's
    arguments, or in what a helper of the same module that builds the exception returns."""
    found = []
    for path in sorted(ADAPTER.rglob("*.py")):
        tree = ast.parse(path.read_text())
        helpers = {
            f.name: f
            for f in ast.walk(tree)
            if isinstance(f, ast.FunctionDef) and f.name.startswith("_")
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Raise) or not isinstance(node.exc, ast.Call):
                continue
            pieces = [s for arg in node.exc.args for s in _strings(arg)]
            func = node.exc.func
            if not pieces and isinstance(func, ast.Name) and func.id in helpers:
                pieces = [
                    s
                    for ret in ast.walk(helpers[func.id])
                    if isinstance(ret, ast.Return) and ret.value is not None
                    for s in _strings(ret.value)
                ]
            fragment = _fragment(pieces)
            if fragment:
                found.append((f"{path.relative_to(ROOT)}:{node.lineno}", fragment))
    return found


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_extraction_finds_the_messages() -> None:
    macros, adapter = macro_messages(), adapter_messages()
    assert len(macros) >= 40 and len(adapter) >= 5, (len(macros), len(adapter))
    fragments = {f for _, f in macros}
    assert "is not a whole number" in " ".join(fragments)


def test_every_message_is_in_the_troubleshooting_page() -> None:
    page = _flat(PAGE.read_text())
    missing = [
        f"{where}: {fragment!r}"
        for where, fragment in macro_messages() + adapter_messages()
        if _flat(fragment) not in page
    ]
    assert not missing, "not in docs/guides/troubleshooting.md:\n" + "\n".join(missing)
