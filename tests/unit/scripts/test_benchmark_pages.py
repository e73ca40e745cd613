"""The benchmark pages of the docs site are what the report generators write from the stored
results (benchmarks/results/): regenerated, each equals the committed page, so a page holds the
numbers of its run and nothing written by hand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
ENVIRONMENTS = "environments-2026-12-06.json"  # the environments part (benchmarks/environments.py)
# the results files of a page (a later run's parts added to the first's), its flags, the page
PAGES = [
    # the daily model's part (with `--full-refresh`), then every kind and the job, environments
    (["cold-daily-2026-12-07.json", "cold-2026-12-03.json", ENVIRONMENTS], [], "benchmarks.md"),
    (
        ["thrift-2026-12-03.json", "thrift-job-2026-12-07.json"],
        ["--target", "thrift"],
        "benchmarks-thrift.md",
    ),
]


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


@pytest.mark.parametrize(("results", "flags", "page"), PAGES)
def test_a_page_is_its_stored_run(
    tmp_path: Path, results: list[str], flags: list[str], page: str
) -> None:
    out = tmp_path / page
    stored = [arg for name in results for arg in ("--report-from", f"benchmarks/results/{name}")]
    subprocess.run(
        [sys.executable, "benchmarks/run.py", *flags, *stored, "--out", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    assert _lines(out.read_text()) == _lines((ROOT / "docs" / page).read_text())
