"""scripts/version.py: the release written once, its copies derived and checked."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("release_version", ROOT / "scripts" / "version.py")
assert _spec and _spec.loader
release_version = importlib.util.module_from_spec(_spec)
sys.modules["release_version"] = release_version  # its dataclasses look themselves up there
_spec.loader.exec_module(release_version)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the four files that hold the release."""
    for copy in release_version.COPIES:
        target = tmp_path / copy.path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / copy.path, target)
    return tmp_path


def test_the_repository_has_no_drift() -> None:
    assert release_version.drift() == []


def test_set_writes_every_copy_and_nothing_else(tree: Path) -> None:
    before = {c.path: (tree / c.path).read_text() for c in release_version.COPIES}
    release_version.set_release("2.3.4rc1", tree)
    assert release_version.drift(tree) == []
    assert yaml.safe_load((tree / "dbt_project.yml").read_text())["version"] == "2.3.4rc1"
    assert "return('2.3.4rc1')" in (tree / release_version.COPIES[3].path).read_text()
    for copy in release_version.COPIES:
        old, new = before[copy.path].splitlines(), (tree / copy.path).read_text().splitlines()
        assert len(new) == len(old)
        changed = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
        # one line per file, and in it only the number
        assert len(changed) == 1, copy.path
        (a, b), release = changed[0], copy.read(ROOT)
        assert release and a.replace(release, "2.3.4rc1") == b


def test_a_copy_that_differs_is_named(tree: Path) -> None:
    path = tree / "dbt/include/vulcan/package/dbt_project.yml"
    text = path.read_text()
    path.write_text(
        text.replace(f'version: "{release_version.COPIES[0].read(tree)}"', 'version: "9.9.9"')
    )
    (problem,) = release_version.drift(tree)
    assert problem.startswith("dbt/include/vulcan/package/dbt_project.yml: release '9.9.9', but")
    assert "dbt/adapters/vulcan/__version__.py says" in problem
    assert "scripts/version.py set" in problem


def test_a_malformed_release_is_refused(tree: Path) -> None:
    with pytest.raises(SystemExit, match=r"release 'v1.0': expected MAJOR.MINOR.PATCH"):
        release_version.set_release("v1.0", tree)
    assert release_version.drift(tree) == []


def test_a_copy_without_its_number_stops_set_before_any_write(tree: Path) -> None:
    macro = tree / release_version.COPIES[3].path
    macro.write_text(macro.read_text().replace("macro vulcan_release()", "macro vulcan_rel()"))
    before = (tree / "dbt_project.yml").read_text()
    with pytest.raises(SystemExit, match=r"no release number found in .*model_state.sql"):
        release_version.set_release("2.0.0", tree)
    assert (tree / "dbt_project.yml").read_text() == before
