"""Write the option tables of docs/reference/config.md from the one declaration of the keys
(dbt/include/vulcan/macros/config/config_keys.sql). Each table sits between
`<!-- config-table: SECTION -->` and `<!-- /config-table -->`;
tests/unit/macros/config/test_config_keys.py fails when the page is out of step.
The declaration's meanings link to other pages as `(#anchor)`; ANCHORS says where each is
in the docs site (an anchor missing from it is an error).
Usage: `.venv/bin/python scripts/reference_config_tables.py`."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from dbt.adapters.vulcan.config_keys import option_table

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "config.md"
BLOCK = re.compile(r"(<!-- config-table: (\S+) -->\n).*?(<!-- /config-table -->)", re.DOTALL)
LINK = re.compile(r"\]\(#([a-z0-9_-]+)\)")
# the declaration's in-page anchors -> their page in the docs site, relative to PAGE
ANCHORS = {
    "audits": "../concepts/audits.md",
    "tracked": "../concepts/kinds.md#tracked",
    "upstream-aware-planning": "../concepts/upstream.md",
    "safety-analysis": "../concepts/safety.md",
}


def _linked(table: str) -> str:
    def target(m: re.Match[str]) -> str:
        anchor = m.group(1)
        if anchor not in ANCHORS:
            raise SystemExit(f"config_keys.sql links to #{anchor}: add it to ANCHORS in {__file__}")
        return f"]({ANCHORS[anchor]})"

    return LINK.sub(target, table)


def rendered(text: str) -> str:
    """The page's text with every config table regenerated."""
    return BLOCK.sub(
        lambda m: f"{m.group(1)}{_linked(option_table(m.group(2)))}\n{m.group(3)}", text
    )


def main() -> int:
    text = PAGE.read_text()
    new = rendered(text)
    if new != text:
        PAGE.write_text(new)
        print("docs/reference/config.md: config tables updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
