"""scripts/compat_report.py: docs/compat.md's table from make compat's per-cell results."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location(
    "compat_report", ROOT / "scripts" / "compat_report.py"
)
assert _spec and _spec.loader
compat_report = importlib.util.module_from_spec(_spec)
sys.modules["compat_report"] = compat_report
_spec.loader.exec_module(compat_report)


def test_one_row_per_cell_in_version_order(tmp_path: Path) -> None:
    cells = {
        "adapter": "adapter\t-\tpass\t282\tdbt-core=1.12.6\tdelta.jar",
        "dbt1.12-spark4.1": "1.12\t4.1\tfail\t600\tdbt-core=1.12.6\td41.jar",
        "dbt1.10-spark3.5": "1.10\t3.5\tpass\t90\tdbt-core=1.10.23\td35.jar",
        "dbt1.12-spark3.5": "1.12\t3.5\tpass\t120\tdbt-core=1.12.6\td35.jar",
    }
    for name, line in cells.items():
        (tmp_path / f"{name}.tsv").write_text(line + "\n")
    lines = compat_report.report(tmp_path).splitlines()
    table = lines[lines.index("| --- | --- | --- | --- | --- | --- |") + 1 :]
    assert table == [
        "| 1.10 | 3.5 | pass | 1.5 | dbt-core=1.10.23 | d35.jar |",
        "| 1.12 | 3.5 | pass | 2.0 | dbt-core=1.12.6 | d35.jar |",
        "| 1.12 | 4.1 | fail | 10.0 | dbt-core=1.12.6 | d41.jar |",
        "| adapter | - | pass | 4.7 | dbt-core=1.12.6 | delta.jar |",
    ]
