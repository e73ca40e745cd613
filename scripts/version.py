"""dbt-vulcan's release number: one source, the places dbt needs it derived from it.

The source is `dbt/adapters/vulcan/__version__.py` (the wheel's version: hatch reads it). dbt
itself needs the number in three more places no Python can reach at run time: the package's
`dbt_project.yml` at the repository root (what `packages.yml` installs), the same file shipped
in the wheel (`dbt/include/vulcan/package/`), and `vulcan_release()`, the macro that puts the
release into each model's settings key (package mode cannot import Python). This script writes
them; `make lint` runs `check`, so a release is one command and the copies cannot drift:

    python scripts/version.py set 0.2.0    # writes all four
    python scripts/version.py check        # exit 1 naming every copy that differs
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = Path("dbt/adapters/vulcan/__version__.py")
# a release as PEP 440 and dbt's semver both accept it: 1.2.3, 1.2.3a1, 1.2.3rc2
RELEASE = re.compile(r"^\d+\.\d+\.\d+((a|b|rc)\d+)?$")


@dataclass(frozen=True)
class Copy:
    """One file holding the release; `pattern` has one group, the number."""

    path: Path
    pattern: re.Pattern[str]

    def read(self, root: Path) -> str | None:
        found = self.pattern.search((root / self.path).read_text())
        return found.group(1) if found else None

    def write(self, root: Path, release: str) -> None:
        path = root / self.path
        text = path.read_text()
        found = self.pattern.search(text)
        assert found is not None, self.path  # set_release checks every copy first
        path.write_text(text[: found.start(1)] + release + text[found.end(1) :])


COPIES = (
    Copy(SOURCE, re.compile(r'^version = "([^"]+)"$', re.M)),
    Copy(Path("dbt_project.yml"), re.compile(r'^version: "([^"]+)"$', re.M)),
    Copy(
        Path("dbt/include/vulcan/package/dbt_project.yml"),
        re.compile(r'^version: "([^"]+)"$', re.M),
    ),
    Copy(
        Path("dbt/include/vulcan/macros/planning/model_state.sql"),
        re.compile(
            r"\{% macro vulcan_release\(\) %\}\{\{ return\('([^']+)'\) \}\}\{% endmacro %\}"
        ),
    ),
)


def drift(root: Path = ROOT) -> list[str]:
    """Every copy whose number is not the source's, as a message naming file and both numbers."""
    source = COPIES[0].read(root)
    if source is None:
        return [f'{SOURCE}: no `version = "..."` line']
    problems = []
    for copy in COPIES[1:]:
        found = copy.read(root)
        if found != source:
            problems.append(
                f"{copy.path}: release {found!r}, but {SOURCE} says {source!r}"
                " (run `python scripts/version.py set <release>`)"
            )
    return problems


def set_release(release: str, root: Path = ROOT) -> None:
    if not RELEASE.match(release):
        raise SystemExit(
            f"release {release!r}: expected MAJOR.MINOR.PATCH, optionally followed by a1, b1 or rc1"
        )
    # every copy found before any is written: a failed set leaves no file changed
    missing = [str(c.path) for c in COPIES if c.read(root) is None]
    if missing:
        raise SystemExit(f"no release number found in {', '.join(missing)}: nothing written")
    for copy in COPIES:
        copy.write(root, release)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("check", help="exit 1 when a copy differs from the source")
    setter = sub.add_parser("set", help="write the release into the source and every copy")
    setter.add_argument("release")
    args = parser.parse_args(argv)
    if args.command == "set":
        set_release(args.release)
    problems = drift()
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
