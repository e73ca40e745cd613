"""Write README.md's config option tables from the one declaration of the keys
(dbt/include/vulcan/macros/config/config_keys.sql). Each table sits between
`<!-- config-table: SECTION -->` and `<!-- /config-table -->`;
tests/unit/macros/config/test_config_keys.py fails when README is out of step.
Usage: `.venv/bin/python scripts/readme_config_tables.py`."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from dbt.adapters.vulcan.config_keys import readme_table

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"(<!-- config-table: (\S+) -->\n).*?(<!-- /config-table -->)", re.DOTALL)


def rendered(text: str) -> str:
    """README text with every config table regenerated."""
    return BLOCK.sub(lambda m: f"{m.group(1)}{readme_table(m.group(2))}\n{m.group(3)}", text)


def main() -> int:
    text = README.read_text()
    new = rendered(text)
    if new != text:
        README.write_text(new)
        print("README.md: config tables updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
