"""docs/compat.md from the results `scripts/compat.sh` leaves in .vulcan/compat/*.tsv (one
line per cell: dbt, spark, pass|fail, seconds, the resolved versions, the jars)."""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path

HEADER = """# Compatibility

`make compat` (scripts/compat.sh) on {day}. Each row is one venv. A `dbt-core x / Spark y` row
runs the package on stock `type: spark` (session): on Delta a time-range lifecycle (backfill,
new days, lookback, a restated range, a failed batch and its rerun, schema changes), unique
key in batches and SCD type 2 by column (the spec's menu); on Iceberg the time-range backfill
and new days; on parquet plan == run; then the example project (every kind against its expected
seeds, parquet). The `adapter` row builds the wheel, installs it into an empty venv beside the
newest dbt-core 1.12 (which it must not change) and builds the example project with
`type: vulcan` and no packages.yml. A Spark with no Delta Lake or Iceberg runtime published
for it (the jars column says which ran: neither for 4.3, no Iceberg for 4.2) runs the Delta
subset on parquet and leaves the Iceberg one out. CI runs dbt-core 1.10 on Spark 3.5 and the
default set-up (dbt-core 1.12 on Spark 4.0) on every change; `make compat` runs the rest. The
minutes are wall time, and depend on what else the machine ran.

| dbt-core | Spark | result | minutes | installed | table format jars |
| --- | --- | --- | --- | --- | --- |
"""


def _order(cells: list[list[str]]) -> list[list[str]]:
    def key(cell: list[str]) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
        if cell[0] == "adapter":
            return (1, (), ())
        return (0, tuple(map(int, cell[0].split("."))), tuple(map(int, cell[1].split("."))))

    return sorted(cells, key=key)


def report(results: Path) -> str:
    cells = [path.read_text().rstrip("\n").split("\t") for path in sorted(results.glob("*.tsv"))]
    rows = [
        f"| {dbt} | {spark} | {status} | {int(seconds) / 60:.1f} | {installed} | {jars} |"
        for dbt, spark, status, seconds, installed, jars in _order(cells)
    ]
    return HEADER.format(day=date.today().isoformat()) + "\n".join(rows) + "\n"


def main() -> int:
    results, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.write_text(report(results))
    print(f"compat_report: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
