"""scripts/check_imports.py: the shipped Python never imports the tests (the oracle) and ships
nothing dead (`make lint` runs it on the repository; here on small trees, each rule is shown to
catch what it names, with the file and line)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "check_imports.py"
_spec = importlib.util.spec_from_file_location("check_imports", SCRIPT)
assert _spec and _spec.loader
rules = importlib.util.module_from_spec(_spec)
sys.modules["check_imports"] = rules  # its dataclasses look themselves up there
_spec.loader.exec_module(rules)

ADAPTER = Path("dbt") / "adapters" / "vulcan"


def tree(tmp_path: Path, files: dict[str, str]) -> Path:
    """A repository holding `files` (paths relative to dbt/adapters/vulcan unless they start
    with dbt/), with an adapter package that imports impl."""
    files = {"__init__.py": "from dbt.adapters.vulcan.impl import Adapter\n", **files}
    for name, text in files.items():
        path = tmp_path / (name if name.startswith("dbt/") else ADAPTER / name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def problems(root: Path) -> list[str]:
    return [str(p) for p in rules.check(root)]


def test_the_repository_follows_the_rules() -> None:
    assert problems(ROOT) == []
    run = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False)
    assert (run.returncode, run.stdout) == (0, "")


def test_lazy_and_relative_imports_reach_their_modules(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "impl.py": (
                "from . import config\n"
                "class Adapter:\n"
                "    def check(self):\n"
                "        from dbt.adapters.vulcan import safety\n"
                "        return safety\n"
            ),
            "config.py": "from .timeutil import parse\n",
            "timeutil.py": "parse = 1\n",
            "safety.py": "import importlib\nimportlib.import_module('dbt.adapters.vulcan.late')\n",
            "late.py": "",
        },
    )
    assert problems(root) == []


def test_an_import_of_the_oracle_is_named_with_file_and_line(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "impl.py": (
                "class Adapter:\n"
                "    def plan(self):\n"
                "        from tests.oracle.planning import plan_model\n"
                "        return plan_model\n"
            ),
            "dbt/include/vulcan/__init__.py": "import tests\n",
        },
    )
    found = problems(root)
    assert len(found) == 2
    assert found[0].startswith("dbt/adapters/vulcan/impl.py:3: imports tests.oracle.planning")
    assert found[1].startswith("dbt/include/vulcan/__init__.py:1: imports tests")
    run = subprocess.run(
        [sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 1
    assert run.stdout.splitlines() == found


@pytest.mark.parametrize(
    "source",
    [
        "from tests import oracle\n",
        "import tests.oracle as oracle\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tests.oracle import state\n",
        "import importlib\nimportlib.import_module('tests.oracle.state')\n",
    ],
)
def test_every_form_of_importing_the_tests_is_caught(tmp_path: Path, source: str) -> None:
    root = tree(tmp_path, {"impl.py": "class Adapter: ...\n", "config.py": source})
    found = [p for p in problems(root) if "imports tests" in p]
    line = source.count("\n")
    assert found and found[0].startswith(f"dbt/adapters/vulcan/config.py:{line}: imports tests")


def test_a_module_nothing_imports_at_run_time_is_dead(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "impl.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from dbt.adapters.vulcan.merge import UpsertSpec\n"
                "class Adapter: ...\n"
            ),
            "merge.py": "",  # imported for type checking only: never at run time
            "planner.py": "from dbt.adapters.vulcan import impl\n",  # imports, imported by none
        },
    )
    assert [p.split(" is not imported")[0] for p in problems(root)] == [
        "dbt/adapters/vulcan/merge.py:1: dbt.adapters.vulcan.merge",
        "dbt/adapters/vulcan/planner.py:1: dbt.adapters.vulcan.planner",
    ]
