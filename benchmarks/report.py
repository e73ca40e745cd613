"""Writes the benchmark report (docs/benchmarks.md) from the workers' results: the machine,
the commands, per scenario the medians of model time (dbt's run_results `execution_time`),
Spark statements (bookkeeping = interval-state reads/appends + DESCRIBE/SHOW/SET/schema
probes) and Spark jobs, the ratios against the issue's targets, the output checks, and a
breakdown of dbt-vulcan's time into its statements (where the time goes)."""

from __future__ import annotations

import os
import platform
import re
import statistics
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from benchmarks.generate import Size

README = """**Warm, in-process numbers**: every dbt invocation runs inside one process per table
format, so no run pays the JVM's start or dbt's parse. Users pay both: the numbers of a fresh
`dbt` process per run, the ones the goals are about, are in [benchmarks.md](benchmarks.md).
dbt-vulcan is measured side by side with dbt-spark's own strategies (`microbatch`,
`insert_overwrite`, `table`, `snapshot`) and with the same Spark statements issued raw, on
seeded synthetic data: `make bench-warm` (about half an hour on 2 cores) writes this page;
`make bench-warm-quick` runs every scenario on small data. Both fail when the systems' outputs
differ. Absolute times depend on the machine; the ratios are what the targets are about."""


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "-"


def machine() -> dict[str, str]:
    """The machine and the versions, for the report."""
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kb = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f"{mem_kb / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        memory = "?"
    try:
        java = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=30)
        java_version = (java.stderr or java.stdout).splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        java_version = "?"
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "memory": memory,
        "os": platform.platform(),
        "python": platform.python_version(),
        "java": java_version,
        "pyspark": _version("pyspark"),
        "dbt-core": _version("dbt-core"),
        "dbt-spark": _version("dbt-spark"),
        "dbt-vulcan": _version("dbt-vulcan"),
        "load average at the end (1, 5, 15 min)": load,
    }


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _runs(results: dict[str, Any], scenario: str, system: str) -> list[dict[str, Any]]:
    return [
        r
        for worker in results.values()
        for r in worker.get("runs", [])
        if r["scenario"] == scenario and r["system"] == system
    ]


def _med(results: dict[str, Any], scenario: str, system: str, key: str = "execution_time") -> float:
    return _median([float(r.get(key) or 0) for r in _runs(results, scenario, system)])


def _cat(run: dict[str, Any], *categories: str) -> int:
    return sum(run.get("by_category", {}).get(c, 0) for c in categories)


def _row(results: dict[str, Any], scenario: str, system: str, label: str) -> list[str]:
    runs = _runs(results, scenario, system)
    if not runs:
        return [label, "not run", "", "", "", "", ""]
    times = [float(r["execution_time"]) for r in runs]
    return [
        label,
        f"{_median(times):.2f} s",
        ", ".join(f"{t:.1f}" for t in times),
        f"{_median([r['statements'] for r in runs]):.0f}",
        f"{_median([_cat(r, 'state', 'metadata') for r in runs]):.0f}",
        f"{_median([r.get('spark_jobs', 0) for r in runs]):.0f}",
        runs[0].get("message", ""),
    ]


_HEAD = ["system", "median model time", "runs (s)", "statements", "bookkeeping", "Spark jobs"]
_HEAD.append("dbt's result")


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def _statement_key(sql: str) -> str:
    """A statement's first words, with what differs between repetitions (the schema of the
    repetition, the dbt invocation in a stage table's name) made generic."""
    text = " ".join(sql.split("*/", 1)[-1].split())
    text = re.sub(r"\bbench_r\d+\b", "bench_rN", text)
    text = re.sub(r"__vulcan_(stage|changes)_[0-9a-f]+", r"__vulcan_\1_<run>", text)
    return text[:70]


def _breakdown(results: dict[str, Any], scenario: str, system: str) -> list[str]:
    """Where dbt-vulcan's model time goes, median over runs: each statement by kind, and the
    rest (Jinja, planning, dbt's own work inside the model's timer)."""
    runs = _runs(results, scenario, system)
    if not runs:
        return []
    rows: dict[str, list[float]] = {}
    for run in runs:
        parts: dict[str, float] = {}
        for stmt in run.get("sql", []):
            text = _statement_key(stmt["sql"])
            key = f"{stmt['category']}: `{text}`"
            parts[key] = parts.get(key, 0.0) + float(stmt.get("seconds", 0))
        parts["rest: Python, Jinja, planning"] = float(run["execution_time"]) - sum(parts.values())
        for key, value in parts.items():
            rows.setdefault(key, []).append(value)
    return _table(
        ["part of the run", "median s"], [[k, f"{_median(v):.2f}"] for k, v in rows.items()]
    )


def write_report(
    out: Path, results: dict[str, Any], size: Size, meta: dict[str, Any], microbatch_repeats: int
) -> list[str]:
    """Writes the report; returns the problems (differing outputs, failed runs)."""
    problems = [p for worker in results.values() for p in worker.get("problems", [])]
    med = _med
    p1_v, p1_mb = med(results, "P1", "vulcan"), med(results, "P1", "microbatch")
    p1_b30 = med(results, "P1", "vulcan_batch30")
    p1_io = med(results, "P1", "insert_overwrite")
    p2_v, p2_full = med(results, "P2", "vulcan"), med(results, "P2", "full")
    p2_default = med(results, "P2", "vulcan_default_lookback")
    raw_b, raw_d = med(results, "P3", "raw_backfill"), med(results, "P3", "raw_one_day")
    p5_runs = [r for r in _runs_all(results, "P5") if r.get("model") == "p5_hourly"]
    p5_default = [r for r in _runs_all(results, "P5") if r.get("model") == "p5_hourly_default"]
    p5_max = max((_cat(r, "state", "metadata") for r in p5_runs), default=-1)
    p5_inc = [r for r in p5_runs if r.get("step") == "next hour"]
    p5_inc_max = max((_cat(r, "state", "metadata") for r in p5_inc), default=-1)

    targets = [
        [
            "P1 backfill: microbatch / vulcan",
            "≥ 5x",
            f"{_ratio(p1_mb, p1_v):.1f}x",
            _ok(_ratio(p1_mb, p1_v) >= 5),
        ],
        [
            "P1 backfill: microbatch / vulcan batch_size 30",
            "(≥ 5x)",
            f"{_ratio(p1_mb, p1_b30):.1f}x",
            _ok(_ratio(p1_mb, p1_b30) >= 5),
        ],
        [
            "P2: FULL rebuild / one-day vulcan run",
            "≥ 20x",
            f"{_ratio(p2_full, p2_v):.1f}x",
            _ok(_ratio(p2_full, p2_v) >= 20),
        ],
        [
            "P3: vulcan backfill (one batch) / raw statements",
            "≤ 1.15x",
            f"{_ratio(p1_v, raw_b):.2f}x",
            _ok(_ratio(p1_v, raw_b) <= 1.15),
        ],
        [
            "P3: vulcan one-day run (one batch) / raw statement",
            "≤ 1.15x",
            f"{_ratio(p2_v, raw_d):.2f}x",
            _ok(_ratio(p2_v, raw_d) <= 1.15),
        ],
        [
            "P5: bookkeeping statements per incremental run (any interval count)",
            "≤ 2",
            str(p5_inc_max),
            _ok(0 <= p5_inc_max <= 2),
        ],
        [
            "P5: bookkeeping statements per run, including first runs",
            "≤ 2",
            str(p5_max),
            _ok(0 <= p5_max <= 2),
        ],
    ]

    lines: list[str] = ["# Benchmarks", "", README, ""]
    lines += [
        "```bash",
        "make bench-warm        # benchmarks/run.py --suite warm         → docs/benchmarks-warm.md",
        "make bench-warm-quick  # benchmarks/run.py --suite warm --quick → a temporary folder",
        "```",
        "",
        f"This run: `.venv/bin/python {shown_command(meta.get('command', ''))}` ({size.name} size, "
        f"{size.repeats} repetition(s), microbatch {min(microbatch_repeats, size.repeats)}; "
        f"{meta.get('total_seconds', '?')} s in all).",
        "",
    ]
    if problems:
        lines += ["**PROBLEMS** (the run exits non-zero):", ""] + [f"- {p}" for p in problems]
        lines.append("")
    lines += ["## Targets", ""]
    lines += _table(["target", "goal", "measured", "met"], targets)
    lines += ["", "## Machine", ""]
    lines += [
        f"- {k}: {v}" for k, v in meta.items() if k not in ("command", "make", "total_seconds")
    ]
    lines += [
        "- the machine was shared with other engineers' test runs while this ran (see the load "
        "average): absolute times are inflated and noisy; every system ran interleaved with the "
        "others, run after run, so the ratios compare like with like.",
        "- Spark: local[2], driver memory 4g, shuffle partitions 4, UTC, one SparkSession per "
        "worker process (tests/spark_targets.py's settings); every dbt invocation of a worker "
        "runs in that process (dbtRunner), so the session is warm: no run pays the JVM start.",
        "",
        "## Data and method",
        "",
        f"- Events: {size.days + 1} days x {size.per_day:,} rows over {size.users:,} users "
        f"({(size.days + 1) * size.per_day:,} rows, seeded, generated inside Spark by "
        "benchmarks/generate.py), parquet partitioned by day. Model: a daily aggregate per "
        "user, partitioned by day, parquet.",
        "- Model time is dbt's `execution_time` in run_results (the model's own timer, parse "
        "excluded). Statements are the SQL dbt sent to Spark for the model (dbt's SQLQuery "
        "events); bookkeeping = interval-state reads and appends plus DESCRIBE / SHOW / SET / "
        "schema probes; Spark jobs from the SparkContext's status tracker.",
        "- Every repetition builds every model into a new schema, so each backfill is a first "
        "run (for dbt-vulcan: no intervals recorded for the table).",
        "- vulcan models set `lookback=0` explicitly; `vulcan_default_lookback` is the same model "
        "without it (see *Findings*).",
        "",
    ]
    lines += [f"## P1: backfill of {size.days} daily intervals", ""]
    p1 = [
        ("vulcan", "incremental_by_time_range (one batch)"),
        ("vulcan_batch30", "incremental_by_time_range, batch_size 30"),
        ("vulcan_default_lookback", "incremental_by_time_range, no lookback key"),
        ("microbatch", "dbt-spark microbatch, batch_size day"),
        ("insert_overwrite", "dbt-spark insert_overwrite (first run: CTAS)"),
    ]
    lines += _table(_HEAD, [_row(results, "P1", s, label) for s, label in p1])
    lines += [
        "",
        f"microbatch / vulcan = **{_ratio(p1_mb, p1_v):.1f}x**; microbatch / batch_size 30 = "
        f"{_ratio(p1_mb, p1_b30):.1f}x; insert_overwrite / vulcan = {_ratio(p1_io, p1_v):.2f}x.",
        "",
        f"## P2: one new day vs a FULL rebuild of {size.days + 1} days",
        "",
    ]
    p2 = [
        ("vulcan", "incremental_by_time_range, one new day"),
        ("vulcan_default_lookback", "the same, no lookback key (recomputes 2 days)"),
        ("microbatch", "dbt-spark microbatch, one batch"),
        ("insert_overwrite", "dbt-spark insert_overwrite, one day"),
        ("full", "dbt `table` (FULL), all days"),
    ]
    lines += _table(_HEAD, [_row(results, "P2", s, label) for s, label in p2])
    lines += [
        "",
        f"FULL / vulcan one day = **{_ratio(p2_full, p2_v):.1f}x** (without the lookback key: "
        f"{_ratio(p2_full, p2_default):.1f}x).",
        "",
        "## P3: dbt-vulcan vs the same Spark statements, raw, in the warm session",
        "",
        "The raw side replays dbt-vulcan's own write statements (captured from the run) with "
        "`spark.sql` right after it: for the backfill, on the dropped table (CREATE empty + "
        "INSERT OVERWRITE); for the day, the INSERT OVERWRITE of that day.",
        "",
    ]
    lines += _table(
        ["run", "vulcan", "raw", "ratio"],
        [
            [
                "backfill, one batch",
                f"{p1_v:.2f} s",
                f"{raw_b:.2f} s",
                f"{_ratio(p1_v, raw_b):.2f}x",
            ],
            ["one new day", f"{p2_v:.2f} s", f"{raw_d:.2f} s", f"{_ratio(p2_v, raw_d):.2f}x"],
        ],
    )
    lines += ["", "Where the one-day run's time goes (median):", ""]
    lines += _breakdown(results, "P2", "vulcan")
    lines += ["", "Where the backfill's time goes (median):", ""]
    lines += _breakdown(results, "P1", "vulcan")
    lines += ["", "## P5: bookkeeping statements per model run vs processed intervals", ""]
    p5_rows = []
    for r in p5_runs + p5_default:
        state = _cat(r, "state")
        p5_rows.append(
            [
                r.get("model", ""),
                str(r.get("intervals", "")),
                r.get("step", ""),
                r.get("message", ""),
                str(state),
                str(_cat(r, "metadata")),
                str(state + _cat(r, "metadata")),
                str(_cat(r, "write")),
                f"{float(r['execution_time']):.2f} s",
            ]
        )
    head = ["model", "intervals", "run", "dbt's result", "state", "metadata", "bookkeeping"]
    lines += _table([*head, "writes", "model time"], p5_rows)
    lines += [
        "",
        "`backfill N`: the first run, N hourly intervals in one batch; `next hour`: the run "
        "after one more hour; `nothing due`: the same run again.",
        "",
        "## SCD type 2 on Delta: by column, by time vs dbt snapshot (check)",
        "",
    ]
    scd = [("scd_by_column", "scd_type_2_by_column"), ("scd_by_time", "scd_type_2_by_time")]
    scd.append(("snapshot_check", "dbt snapshot, strategy check"))
    rows = []
    for system, label in scd:
        runs = _runs(results, "SCD2", system)
        first = [r for r in runs if r.get("step") == "initial load"]
        daily = [r for r in runs if r.get("step") == "daily change"]
        rows.append(
            [
                label,
                f"{_median([float(r['execution_time']) for r in first]):.2f} s",
                f"{_median([float(r['execution_time']) for r in daily]):.2f} s",
                ", ".join(f"{float(r['execution_time']):.1f}" for r in daily),
                f"{_median([r['statements'] for r in daily]):.0f}",
                f"{_median([_cat(r, 'state', 'metadata') for r in daily]):.0f}",
                f"{_median([r.get('spark_jobs', 0) for r in daily]):.0f}",
            ]
        )
    head = ["system", "initial load", "daily run (median)", "daily runs (s)", "statements"]
    lines += _table([*head, "bookkeeping", "Spark jobs"], rows)
    snap = _med(results, "SCD2", "snapshot_check")
    lines += [
        "",
        f"{size.scd_keys:,} keys, 1 % changing a day, {size.scd_days} daily runs after the "
        f"initial load (medians over the daily runs). Median over all runs: by column "
        f"{_ratio(_med(results, 'SCD2', 'scd_by_column'), snap):.2f}x, by time "
        f"{_ratio(_med(results, 'SCD2', 'scd_by_time'), snap):.2f}x the snapshot's time.",
        "",
        "Where a daily by-column run's time goes (median):",
        "",
    ]
    daily_runs = [
        r for r in _runs(results, "SCD2", "scd_by_column") if r.get("step") == "daily change"
    ]
    lines += _breakdown({"x": {"runs": daily_runs}}, "SCD2", "scd_by_column")
    lines += ["", "## Output checks", ""]
    for worker in results.values():
        for check in worker.get("checks", []):
            values = "; ".join(f"{k}: {v}" for k, v in check["values"].items())
            lines.append(
                f"- {'same' if check['ok'] else '**DIFFERENT**'}: {check['what']} ({values})"
            )
    lines += [
        "",
        "(row count, then sums and a hash checksum of every row; SCD2: versions, their checksum, "
        "current rows, their checksum)",
        "",
    ]
    write_page(out, lines, "FINDINGS.md")
    return problems


def shown_command(command: str) -> str:
    """A run's command as a page shows it: the machine's folders left out (`--workdir`,
    `--out`, `--keep`), a checkout to compare with named `<checkout>`."""
    words = command.split()
    shown: list[str] = []
    skip = False
    for k, word in enumerate(words):
        if skip:
            skip = False
            continue
        if word in ("--workdir", "--out"):
            skip = True
        elif word == "--keep":
            continue
        elif k > 0 and words[k - 1] == "--before":
            shown.append("<checkout>")
        else:
            shown.append(word)
    return " ".join(shown)


def write_page(out: Path, lines: list[str], findings: str) -> None:
    """Writes a report page: `lines`, then where what they mean is said: the site's summary
    page, and benchmarks/<findings>, the notes of each round (kept outside the site)."""
    lines = [
        *lines,
        "## Findings",
        "",
        "What these numbers mean, and what is missed and why, is summed up in",
        "[what the benchmarks show](benchmarks-summary.md). The notes of each round of"
        " measurement, with",
        f"what was tried, stay beside the suite's code in the repository: `benchmarks/{findings}`.",
        "",
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines))


def _runs_all(results: dict[str, Any], scenario: str) -> list[dict[str, Any]]:
    return [r for w in results.values() for r in w.get("runs", []) if r["scenario"] == scenario]


def _ok(flag: bool) -> str:
    return "yes" if flag else "**no**"
