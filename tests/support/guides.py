"""The migration guides' examples, read from the pages themselves (docs/guides/migrate-*.md):
a guide's code block titled `before: <path>` / `after: <path>` is the model the functional test
builds (tests/functional/guides), so the page and the test cannot drift apart."""

from __future__ import annotations

import re
from pathlib import Path

GUIDES = Path(__file__).resolve().parents[2] / "docs" / "guides"
BLOCK = re.compile(r'^```\w+ title="([^"]+)"\n(.*?)^```\n', re.DOTALL | re.MULTILINE)


def guide_blocks(page: str) -> dict[str, str]:
    """A guide's titled code blocks, by title (`before: models/daily_sales.sql`)."""
    text = (GUIDES / page).read_text()
    return {title: body for title, body in BLOCK.findall(text)}


def guide_block(page: str, title: str) -> str:
    blocks = guide_blocks(page)
    assert title in blocks, f"{page}: no code block titled {title!r}; found {sorted(blocks)}"
    return blocks[title]
