"""One fact, one place: the supported versions are stated once, in docs/reference/versions.md,
and must equal what the code declares: pyproject.toml's dependencies, the package's
`require-dbt-version` (both dbt_project.yml files), the compatibility runs' rows
(docs/compat.md) and the dbt-databricks pin of scripts/bootstrap.sh."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import tomllib
import yaml
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[3]
VERSIONS = ROOT / "docs" / "reference" / "versions.md"
COMPAT = ROOT / "docs" / "compat.md"
MINOR = re.compile(r"\b(\d+)\.(\d+)\b")


def _row(name: str) -> list[str]:
    """The cells of the versions table's row named `name`."""
    for line in VERSIONS.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == name:
            return cells
    raise AssertionError(f"{VERSIONS.name}: no row {name!r}")


def _minors(cell: str) -> list[tuple[int, int]]:
    """The X.Y versions a cell lists, outside parentheses."""
    return [(int(a), int(b)) for a, b in MINOR.findall(re.sub(r"\([^)]*\)", "", cell))]


def _requirement(name: str) -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for text in project["dependencies"]:
        req = Requirement(text)
        if req.name == name:
            return req
    raise AssertionError(f"pyproject.toml: no dependency {name}")


def _bounds(req: Requirement) -> tuple[tuple[int, int], tuple[int, int]]:
    """(lowest allowed X.Y, first X.Y not allowed) of a `>=a,<b` requirement."""
    low = high = None
    for spec in req.specifier:
        v = Version(spec.version)
        if spec.operator == ">=":
            low = (v.major, v.minor)
        elif spec.operator == "<":
            high = (v.major, v.minor)
    assert low and high, f"{req}: expected >=X.Y,<X.Y"
    return low, high


def _check_range(name: str, listed: list[tuple[int, int]]) -> None:
    low, high = _bounds(_requirement(name))
    assert listed == sorted(listed), (name, listed)
    assert listed[0] == low, f"{name}: the docs start at {listed[0]}, pyproject at {low}"
    last = listed[-1]
    assert (last[0], last[1] + 1) == high, f"{name}: the docs end at {last}, pyproject below {high}"
    for a, b in itertools.pairwise(listed):
        # the next minor, or a new major's first minor
        assert b == (a[0], a[1] + 1) or (b[0] == a[0] + 1 and b[1] == 0), (name, a, b)


def _compat_cells() -> list[tuple[str, str]]:
    cells = []
    for line in COMPAT.read_text().splitlines():
        parts = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(parts) > 2 and MINOR.fullmatch(parts[0]) and MINOR.fullmatch(parts[1]):
            cells.append((parts[0], parts[1]))
    return cells


def test_dbt_core_range_equals_pyproject_and_the_compat_runs() -> None:
    listed = _minors(_row("dbt-core")[1])
    _check_range("dbt-core", listed)
    assert _minors(_row("dbt-core")[3]) == listed
    assert sorted({_minors(c)[0] for c, _ in _compat_cells()}) == listed


def test_dbt_spark_range_equals_pyproject() -> None:
    listed = _minors(_row("dbt-spark")[1])
    _check_range("dbt-spark", listed)
    assert _minors(_row("dbt-spark")[3]) == listed


def test_spark_range_equals_pyproject_and_the_compat_runs() -> None:
    listed = _minors(_row("Apache Spark (pyspark)")[1])
    _check_range("pyspark", listed)
    assert _minors(_row("Apache Spark (pyspark)")[3]) == listed
    assert sorted({_minors(s)[0] for _, s in _compat_cells()}) == listed


def test_require_dbt_version_is_the_package_s() -> None:
    text = VERSIONS.read_text()
    for path in (
        ROOT / "dbt_project.yml",
        ROOT / "dbt" / "include" / "vulcan" / "package" / "dbt_project.yml",
    ):
        if not path.exists():
            continue
        declared = yaml.safe_load(path.read_text())["require-dbt-version"]
        assert f"require-dbt-version: {str(declared).replace(chr(39), chr(34))}" in text, path
        low = Version(declared[0].lstrip(">="))
        assert (low.major, low.minor) == _minors(_row("dbt-core")[1])[0]


def test_the_databricks_lane_s_pins_are_the_bootstrap_s() -> None:
    bootstrap = (ROOT / "scripts" / "bootstrap.sh").read_text()
    cell = _row("dbt-databricks")[2]
    for name in ("dbt-databricks", "databricks-sql-connector"):
        pinned = re.search(rf'"{name}==([\d.]+)"', bootstrap)
        assert pinned, name
        assert re.search(rf"(^|[\s,]){re.escape(pinned.group(1))}\b", cell), (
            f"{name}: bootstrap pins {pinned.group(1)}, the versions page says {cell!r}"
        )


def test_no_other_page_restates_a_supported_range() -> None:
    """The ranges are stated on the versions page only; other pages link to it."""
    stated = re.compile(
        r"dbt-core 1\.10\s*[-\u2013]\s*1\.12|Spark 3\.5\s*[-\u2013]\s*4\.\d|pyspark\s*`?[<>]"
    )
    pages = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").rglob("*.md")]
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in pages
        if p != VERSIONS and p.exists()
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if stated.search(line)
    ]
    assert not found, f"a supported range restated (link docs/reference/versions.md): {found}"
