"""Run the commands of the Getting started page (docs/getting-started/from-scratch.md) as
written, on a fresh clone, up to its passing `dbt build`.

The page's ```bash blocks are the commands, and each block with a title (```sql
title="models/daily_sales.sql"```) is a file written where the commands stand at that point;
both run in one bash script, in the page's order, with `set -euo pipefail`, in a new folder.
`<this repository's url>` is this repository (a clone of its HEAD: commit what the page needs
first). Where github.com cannot be reached, dbt-core 1.12 cannot be installed with pip (its
`dbt-core-experimental-parser` is built from a download there; docs/reference/versions.md), so
pip is given the constraint `dbt-core<1.12` through PIP_CONSTRAINT; the page's commands are
unchanged. Slow (a new venv with pyspark): run by hand, not part of `make test`.

Usage: `.venv/bin/python scripts/getting_started.py [--workdir DIR] [--print]`
(--print: write the generated script to stdout and run nothing).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "getting-started" / "from-scratch.md"
FENCE = re.compile(r'^```(\w+)(?: title="([^"]+)")?\n(.*?)^```\n', re.DOTALL | re.MULTILINE)
URL = "<this repository's url>"


def script(page: str, repository: str) -> str:
    """The bash script of the page: its commands and its files, in order."""
    lines = ["set -euo pipefail", "set -x"]
    for lang, title, body in FENCE.findall(page):
        if lang == "bash" and not title:
            lines.append(body.replace(URL, repository).rstrip("\n"))
        elif title:
            lines += [f"cat > '{title}' <<'VULCAN_PAGE_EOF'", body.rstrip("\n"), "VULCAN_PAGE_EOF"]
    return "\n".join(lines) + "\n"


def _github_reachable() -> bool:
    try:
        urllib.request.urlopen("https://github.com", timeout=5)
    except OSError:
        return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--print", action="store_true")
    args = parser.parse_args()
    text = script(PAGE.read_text(), str(ROOT))
    if args.print:
        sys.stdout.write(text)
        return 0
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="vulcan-getting-started-"))
    workdir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.pop("VIRTUAL_ENV", None)
    if "PIP_CONSTRAINT" not in env and not _github_reachable():
        constraint = workdir / "constraints.txt"
        constraint.write_text("dbt-core<1.12\n")
        env["PIP_CONSTRAINT"] = str(constraint)
    print(f"getting_started: running {PAGE.relative_to(ROOT)} in {workdir}", flush=True)
    done = subprocess.run(["bash", "-c", text], cwd=workdir, env=env, check=False)
    print(f"getting_started: exit {done.returncode} ({workdir})")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
