"""scripts/check_docs_words.py: the product's text says nothing of how it was made (`make lint`
runs it on the repository; here on small trees, each word is shown to be caught with its file
and line, and the words' ordinary uses are shown to pass)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "check_docs_words.py"
_spec = importlib.util.spec_from_file_location("check_docs_words", SCRIPT)
assert _spec and _spec.loader
words = importlib.util.module_from_spec(_spec)
sys.modules["check_docs_words"] = words
_spec.loader.exec_module(words)


def run(tmp_path: Path, files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    code = words.main(["check_docs_words.py", str(tmp_path)])
    out = [
        line
        for line in capsys.readouterr().out.splitlines()
        if ": " in line and not line.startswith("check_docs_words")
    ]
    assert code == (1 if out else 0)
    return out


def test_the_repository_says_nothing_of_its_making(capsys: pytest.CaptureFixture[str]) -> None:
    assert words.main(["check_docs_words.py", str(ROOT)]) == 0, capsys.readouterr().out


@pytest.mark.parametrize(
    "line",
    [
        "as asked in issue 49",
        "see issue #51's rule",
        "fixed in #47",
        "measured in session 45",
        "the owner's decision",
        "tried 2026-12-02, it failed",
        "written to /tmp/s46/cold.md",
        "at stop 3 of the plan",
        "a tree with uncommitted changes",
        "before an issue is resolved",
        "decision 4 of the notes",
    ],
)
def test_each_word_is_found_with_file_and_line(
    tmp_path: Path, line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    found = run(tmp_path, {"docs/guide.md": f"# A page\n\n{line}\n"}, capsys)
    assert found and all(f.startswith("docs/guide.md:3: ") for f in found), found


@pytest.mark.parametrize(
    "line",
    [
        "Delta Lake 3.3.2 fails (delta-io/delta#4671)",
        "an empty snapshot (apache/iceberg#9024)",
        "a link to [the log](intervals.md#the-interval-state-log)",
        "dbt's microbatch issues 365 queries",
        "the session's time zone",
        "the state table's owner needs CREATE",
    ],
)
def test_ordinary_text_passes(
    tmp_path: Path, line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # prose words (owner, decision) are not looked for in code, where they have their own sense
    files = {"CONTRIBUTING.md": f"{line.replace('owner', 'admin')}\n"}
    files["dbt/include/vulcan/macros/x.sql"] = f"{{#- {line} -#}}\n"
    files["dbt/adapters/vulcan/x.py"] = f'"""{line}."""\n'
    assert run(tmp_path, files, capsys) == []


def test_code_is_scanned_for_the_making_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "dbt/include/vulcan/macros/kinds/x.sql": "{#- the semi join first (issue #49 item 4) -#}\n",
        "dbt/adapters/vulcan/impl.py": '"""Kept since session 44."""\n',
        "benchmarks/FINDINGS.md": "issue 49's goals\n",  # outside the scan: the history
    }
    found = run(tmp_path, files, capsys)
    assert [f.split(": ")[0] for f in found] == [
        "dbt/include/vulcan/macros/kinds/x.sql:1",
        "dbt/adapters/vulcan/impl.py:1",
    ]
