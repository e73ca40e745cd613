"""What a reader of the product's text should not meet: words about how the project was made
(its issue tracker, its work sessions, who decided what, when something was tried, a machine's
folders). Scanned: README.md, CONTRIBUTING.md, CHANGELOG.md, every page under docs/, and the
text the product ships: the macros (dbt/include/vulcan: their comments and messages) and the
adapter's Python (dbt/adapters/vulcan: docstrings, comments and messages). The history of the
benchmarks' attempts stays in benchmarks/FINDINGS*.md, which is not scanned.

An external project's reference (`delta-io/delta#4671`) is not an issue number of this project.

Usage: `python scripts/check_docs_words.py [ROOT]`: one line per finding, `path:line: word`,
and exit 1 when there is any (`make lint`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# (name, pattern); case-insensitive. Every file gets WORDS; the prose files (README.md,
# CONTRIBUTING.md, CHANGELOG.md, docs/) PROSE too, whose words the code uses in their own
# sense (the owner of a CTE, what a run decided).
WORDS: tuple[tuple[str, str], ...] = (
    ("issue number", r"\bissue\s*#?\d+|\bissues\s+#\d+"),
    ("issue reference", r"(?<![\w/.-])#\d+\b"),
    ("session number", r"\bsessions?\s+\d+"),
    ("owner's decision", r"\bowner'?s?\s+(decision|choice|call)"),
    ("date of a try", r"\btried\s+(on\s+)?\d{4}"),
    ("stop number", r"\bstop\s+\d+\b"),
    ("uncommitted work", r"\buncommitted changes\b"),
    ("machine path", r"(?<![\w.])/(tmp|work|home|root)/"),
)
PROSE: tuple[tuple[str, str], ...] = (
    ("the tracker", r"\b(an|the|this|that|its|open|next|last) issue\b"),
    ("owner", r"\bowner'?s?\b"),
    ("decision", r"\bdecisions?\b|\bdecided\b"),
)


def _compiled(words: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?P<w{i}>{p})" for i, (_, p) in enumerate(words)), re.IGNORECASE)


CODE_PATTERN = _compiled(WORDS)
PROSE_PATTERN = _compiled(WORDS + PROSE)


def scanned(root: Path) -> Iterator[Path]:
    """The files the check reads, under `root`."""
    for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md"):
        if (root / name).exists():
            yield root / name
    yield from sorted((root / "docs").rglob("*.md"))
    yield from sorted((root / "dbt" / "include" / "vulcan").rglob("*.sql"))
    yield from sorted((root / "dbt" / "adapters" / "vulcan").rglob("*.py"))


def findings(text: str, prose: bool) -> Iterator[tuple[int, str, str]]:
    """(line, the word's name, the text found) for each finding of `text` (`prose`: a page,
    not code)."""
    pattern, words = (PROSE_PATTERN, WORDS + PROSE) if prose else (CODE_PATTERN, WORDS)
    for number, line in enumerate(text.splitlines(), 1):
        for match in pattern.finditer(line):
            index = int(next(k for k, v in match.groupdict().items() if v is not None)[1:])
            yield number, words[index][0], match.group(0)


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else ROOT
    count = 0
    for path in scanned(root):
        prose = path.suffix == ".md"
        relative = path.relative_to(root).as_posix()
        for line, name, found in findings(path.read_text(errors="replace"), prose):
            print(f"{relative}:{line}: {name}: {found!r}")
            count += 1
    if count:
        print(
            f"check_docs_words: {count} finding(s): say what the product does, not how it was made"
        )
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
