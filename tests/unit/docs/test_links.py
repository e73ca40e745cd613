"""README.md and CONTRIBUTING.md are read outside the docs site (on the repository's page, on
PyPI), so `mkdocs build --strict` does not check their links: here, every relative link of
theirs names a file of the repository, and a `#anchor` into a docs page names one of its
headings (MkDocs' anchors: lower case, punctuation dropped, spaces as `-`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$", re.MULTILINE)


def _anchor(heading: str) -> str:
    text = re.sub(r"[^\w\s-]", "", heading.replace("`", "").lower())
    return re.sub(r"\s+", "-", text.strip())


@pytest.mark.parametrize("name", ["README.md", "CONTRIBUTING.md", "CHANGELOG.md"])
def test_relative_links_resolve(name: str) -> None:
    page = ROOT / name
    broken = []
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path, _, anchor = target.partition("#")
        file = ROOT / path
        if not file.exists():
            broken.append(target)
        elif anchor and file.suffix == ".md":
            anchors = {_anchor(h) for h in HEADING.findall(file.read_text())}
            if anchor not in anchors:
                broken.append(target)
    assert not broken, f"{name}: links to nothing: {broken}"
