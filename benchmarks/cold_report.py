"""The report of the fresh-process suite (benchmarks/cold.py): docs/benchmarks.md.

Goals (the daily run at the stateful floor), ratios of medians from one run:
- one new day: model time <= 1.25x dbt microbatch's (stretch 1.0x), wall time <= 1.05x, the
  gaps between statements <= microbatch's + 0.10 s;
- backfill: model time <= 1.0x insert_overwrite's (and <= 1.3x the raw statements');
- statements per model run: <= 5 for a one-day run, <= 8 for a backfill;
- the kinds: unique key, partition, unmanaged and tracked <= 1.25x their counterpart's daily
  model time, SCD type 2 <= 1.0x dbt snapshot's; partition and unmanaged issue no more
  statements than their counterpart + 1 (the run record);
- the 25-model daily job: wall <= 1.1x microbatch's; the ratio at 10M rows <= the one at 1M;
- the same in package mode.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path
from typing import Any

from benchmarks.generate import Size
from benchmarks.report import shown_command, write_page

LABELS = {
    "vulcan": "dbt-vulcan, `type: vulcan`",
    "vulcan_package": "dbt-vulcan package, `type: spark`",
    "microbatch": "dbt-spark microbatch",
    "insert_overwrite": "dbt-spark insert_overwrite",
    "raw": "raw Spark (vulcan's write statements by hand)",
    "vulcan_before": "dbt-vulcan before (`--before` checkout), `type: vulcan`",
}
SCENARIOS = {
    "backfill": "Backfill",
    "one_day": "One new day (the daily job)",
    "explicit_day": "One explicit, already processed day",
}


def _runs(cold: dict[str, Any], scenario: str, system: str) -> list[dict[str, Any]]:
    return [r for r in cold["runs"] if r["scenario"] == scenario and r["system"] == system]


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _med(cold: dict[str, Any], scenario: str, system: str, key: str = "execution_time") -> float:
    return _median([float(r[key]) for r in _runs(cold, scenario, system)])


def _gaps(run: dict[str, Any]) -> float:
    return sum(s["gap_before"] for s in run["statements"]) + run.get("tail_gap", 0.0)


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _ok(flag: bool) -> str:
    return "yes" if flag else "**no**"


def statement_label(sql: str) -> str:
    """A statement's first words without dbt's comment, schema names shortened."""
    text = re.sub(r"/\*.*?\*/", " ", sql, flags=re.S)
    text = " ".join(text.split())
    # the plan's read of the log: its form now (one plain read, planned in Jinja),
    # or before it (`--before`: one planning query, as earlier releases did)
    if text.lower().startswith("select relation, model_id, interval_start, interval_end,"):
        return "the plan: one read of the interval log (planned in Jinja)"
    if text.lower().startswith(("select inline(concat(", "with vulcan_log")):
        return "the plan: one query over the interval log (missing intervals, batches)"
    return text[:90] + ("…" if len(text) > 90 else "")


def goals(cold: dict[str, Any]) -> list[list[str]]:
    """[goal, target, measured, met] rows."""
    rows: list[list[str]] = []
    mb_day = _med(cold, "one_day", "microbatch")
    mb_wall = _med(cold, "one_day", "microbatch", "wall")
    mb_gaps = _median([_gaps(r) for r in _runs(cold, "one_day", "microbatch")])
    io_fill, raw_fill = _med(cold, "backfill", "insert_overwrite"), _med(cold, "backfill", "raw")
    for system in ("vulcan", "vulcan_package"):
        label = "" if system == "vulcan" else " (package)"
        day = _ratio(_med(cold, "one_day", system), mb_day)
        wall = _ratio(_med(cold, "one_day", system, "wall"), mb_wall)
        gaps = _median([_gaps(r) for r in _runs(cold, "one_day", system)])
        fill = _med(cold, "backfill", system)
        rows += [
            [
                f"one new day{label}: model time / microbatch's",
                "≤ 1.25x (1.0x)",
                f"{day:.2f}x",
                _ok(day <= 1.25),
            ],
            [
                f"one new day{label}: wall time / microbatch's",
                "≤ 1.05x",
                f"{wall:.2f}x",
                _ok(wall <= 1.05),
            ],
            [
                f"one new day{label}: gaps between statements",
                f"≤ microbatch's {mb_gaps:.2f} s + 0.10 s",
                f"{gaps:.2f} s",
                _ok(gaps <= mb_gaps + 0.10),
            ],
            [
                f"backfill{label}: model time / insert_overwrite's",
                "≤ 1.0x",
                f"{_ratio(fill, io_fill):.2f}x",
                _ok(_ratio(fill, io_fill) <= 1.0),
            ],
            [
                f"backfill{label}: model time / raw statements'",
                "≤ 1.3x (1.1x)",
                f"{_ratio(fill, raw_fill):.2f}x",
                _ok(_ratio(fill, raw_fill) <= 1.3),
            ],
        ]
        day_statements = max(
            (len(r["statements"]) for r in _runs(cold, "one_day", system)), default=-1
        )
        fill_statements = max(
            (len(r["statements"]) for r in _runs(cold, "backfill", system)), default=-1
        )
        rows += [
            [
                f"statements, one-day run{label}",
                "≤ 5",
                str(day_statements),
                _ok(0 <= day_statements <= 5),
            ],
            [
                f"statements, backfill{label}",
                "≤ 8",
                str(fill_statements),
                _ok(0 <= fill_statements <= 8),
            ],
        ]
    return rows


def _scenario_table(cold: dict[str, Any], scenario: str) -> list[str]:
    rows = []
    for system, label in LABELS.items():
        runs = _runs(cold, scenario, system)
        if not runs:
            continue
        raw = system == "raw"
        rows.append(
            [
                label,
                f"{_med(cold, scenario, system):.2f} s",
                ", ".join(f"{r['execution_time']:.1f}" for r in runs),
                "-" if raw else f"{_med(cold, scenario, system, 'wall'):.1f} s",
                f"{_median([len(r['statements']) for r in runs]):.0f}",
                "-" if raw else f"{_median([_gaps(r) for r in runs]):.2f} s",
            ]
        )
    head = ["system", "model time (median)", "runs (s)", "wall (median)", "statements"]
    return _table([*head, "unlogged gaps"], rows)


def gap_table(run: dict[str, Any]) -> list[str]:
    """Each statement of one run, in order, with the unlogged time before it."""
    rows = []
    for i, s in enumerate(run["statements"], 1):
        rows.append(
            [
                str(i),
                s["category"],
                statement_label(s["sql"]),
                f"{s['start']:.2f}",
                f"{s['gap_before']:.2f}",
                f"{s['seconds']:.2f}",
            ]
        )
    rows.append(
        [
            "",
            "",
            "(after the last statement, until the model finished)",
            "",
            f"{run.get('tail_gap', 0):.2f}",
            "",
        ]
    )
    head = ["#", "kind", "statement", "starts at (s)", "gap before (s)", "statement (s)"]
    spent = sum(s["seconds"] for s in run["statements"])
    summary = f"Model time {run['execution_time']:.2f} s; statements {spent:.2f} s; "
    return [*_table(head, rows), "", summary + f"unlogged gaps {_gaps(run):.2f} s."]


def _median_run(cold: dict[str, Any], scenario: str, system: str) -> dict[str, Any] | None:
    runs = sorted(_runs(cold, scenario, system), key=lambda r: r["execution_time"])
    return runs[len(runs) // 2] if runs else None


EMBEDDED = (
    "The SparkSession is embedded (method session, local[2], driver 4g, 4 shuffle partitions): "
    "each process starts its own JVM, as a scheduler's `dbt run` does."
)


def section(cold: dict[str, Any], size: Size, spark: str = EMBEDDED) -> list[str]:
    """The markdown of the fresh-process suite; `spark`: how the runs reach Spark."""
    n = size.days
    lines = ["## Goals: a fresh `dbt` process per run", ""]
    lines += _table(["goal", "target (stretch)", "measured", "met"], goals(cold))
    lines += [
        "",
        "## Data and method",
        "",
        f"- Events: {n + size.repeats} days x {size.per_day:,} rows over {size.users:,} users, "
        "seeded, generated inside Spark by benchmarks/generate.py, parquet partitioned by day. "
        "Model: the daily aggregate per user, partitioned by day, parquet (benchmarks/project.py).",
        "- Every run is a new `dbt run --select <model>` process (`.venv/bin/dbt`), one at a "
        "time, in the order vulcan, vulcan package, dbt-spark's strategies, then the next "
        "repetition (interleaved, so the machine's load hits all alike). " + spark,
        "- Model time: run_results.json's `execution_time`; wall: the whole `dbt` process "
        "(start-up, parse, the JVM, the run). Statements and gaps: dbt's JSON debug log "
        "(SQLQuery / SQLQueryStatus events of the model's connection); a gap is time inside "
        "the model with no statement running: Python and Jinja, and, after a query that "
        "returns rows, the fetch of its rows (Spark runs a SELECT's job when its rows are "
        "fetched, after dbt logged the statement as done).",
        f"- Backfill: days [0, {n}) into empty schemas, a new schema per repetition. One new "
        f"day: repetition r adds day {n} + r - 1 to repetition 1's tables (vulcan and "
        "microbatch: the same `--event-time-start/end`; insert_overwrite: its own vars; "
        "vulcan_before: `vulcan_execution_time` one hour into the next day). Explicit day: "
        f"repetition r recomputes the processed day {n} - r (the same flags; vulcan_before: "
        "`vulcan_start`/`vulcan_end`). A new `--vars` value makes dbt parse the project "
        "again; the flags do not.",
        "- microbatch's table for the daily runs is a raw copy of insert_overwrite's backfill "
        "(its own 365-day backfill is 365 statements and minutes: see the warm suite). raw: "
        "the write statements of vulcan's backfill, issued by hand in a fresh SparkSession "
        "(on a server: a fresh connection) after one untimed `SHOW TABLES` (dbt's own first "
        "statements list the schemas).",
        "",
    ]
    for scenario, title in SCENARIOS.items():
        lines += [f"## {title}", ""]
        lines += _scenario_table(cold, scenario)
        lines.append("")
    lines += ["## Where a one-day run's time goes (the median run of each system)", ""]
    for system in ("vulcan_before", "vulcan", "vulcan_package", "microbatch", "insert_overwrite"):
        run = _median_run(cold, "one_day", system)
        if run is None:
            continue
        lines += [f"### {LABELS[system]}", "", *gap_table(run), ""]
    run = _median_run(cold, "explicit_day", "vulcan")
    if run is not None:
        lines += ["### dbt-vulcan, one explicit (already processed) day", ""]
        lines += [*gap_table(run), ""]
    lines += ["## Output checks", ""]
    for check in cold.get("checks", []):
        values = "; ".join(f"{k}: {v}" for k, v in check["values"].items())
        lines.append(f"- {'same' if check['ok'] else '**DIFFERENT**'}: {check['what']} ({values})")
    lines += ["", "(row count, then sums and a hash checksum of every row)", ""]
    return lines


# the goal for a kind's daily model time over its counterpart's (1.25x unless named)
# and the kinds whose statements count against the counterpart's + 1 (the run record)
KIND_LIMITS = {"scd_by_time": 1.0, "scd_by_column": 1.0}
COUNTED = ("partition", "unmanaged")


def kinds_section(kinds: dict[str, Any]) -> list[str]:
    """The markdown of every kind against its dbt counterpart (benchmarks/kinds.py)."""
    from benchmarks.kinds import PAIRS

    def runs(pair: str, system: str, daily: bool) -> list[dict[str, Any]]:
        return [
            r
            for r in kinds["runs"]
            if r["scenario"] == pair and r["system"] == system and (r["rep"] > 0) == daily
        ]

    def med(pair: str, system: str, key: str = "execution_time", daily: bool = True) -> float:
        return _median([float(r[key]) for r in runs(pair, system, daily)])

    def statements(pair: str, system: str) -> float:
        return _median([len(r["statements"]) for r in runs(pair, system, True)])

    lines = [
        "## Every kind against its dbt counterpart: a fresh `dbt` process per run, Delta",
        "",
        f"A target of {kinds['keys']:,} rows (`bench_src.customers`), 1 % of the keys changed "
        f"each day; day 0 builds every table, then {kinds['days']} daily runs (medians). "
        "Unique key, unmanaged and their counterparts read the rows changed that day; "
        "partition and insert_overwrite rewrite one of 100 segments; SCD type 2 and the "
        "snapshots read the whole day's snapshot (benchmarks/kinds.py). The same tables "
        "after every day are checked below.",
        "",
    ]
    goal_rows = []
    rows = []
    for pair, (label, _, counterpart, _, _) in PAIRS.items():
        if not runs(pair, "dbt", True):  # a run of some kinds only (run.py --kind)
            continue
        base, base_wall = med(pair, "dbt"), med(pair, "dbt", "wall")
        limit = KIND_LIMITS.get(pair, 1.25)
        base_statements = statements(pair, "dbt")
        for system in ("vulcan", "vulcan_package"):
            mode = "" if system == "vulcan" else " (package)"
            ratio = _ratio(med(pair, system), base)
            goal_rows.append(
                [
                    f"{label}{mode} / {counterpart}",
                    f"≤ {limit:.2f}x",
                    f"{ratio:.2f}x",
                    _ok(ratio <= limit),
                ]
            )
            if pair in COUNTED:
                count = statements(pair, system)
                goal_rows.append(
                    [
                        f"{label}{mode}: statements a daily run",
                        f"≤ {base_statements:.0f} + 1",
                        f"{count:.0f}",
                        _ok(count <= base_statements + 1),
                    ]
                )
        for system, name in (
            ("vulcan", "dbt-vulcan"),
            ("vulcan_package", "dbt-vulcan package"),
            ("dbt", counterpart),
        ):
            daily = runs(pair, system, True)
            rows.append(
                [
                    label,
                    name,
                    f"{med(pair, system, daily=False):.2f} s",
                    f"{med(pair, system):.2f} s",
                    ", ".join(f"{r['execution_time']:.1f}" for r in daily),
                    f"{med(pair, system, 'wall'):.1f} s",
                    f"{_ratio(med(pair, system, 'wall'), base_wall):.2f}x",
                    f"{statements(pair, system):.0f}",
                ]
            )
    lines += _table(["goal: a daily run", "target", "measured", "met"], goal_rows)
    head = ["kind", "system", "initial load", "daily (median)", "daily runs (s)", "wall"]
    lines += ["", *_table([*head, "wall / dbt's", "statements"], rows), "", "Checks:", ""]
    for check in kinds.get("checks", []):
        values = "; ".join(f"{k}: {v}" for k, v in check["values"].items())
        lines.append(f"- {'same' if check['ok'] else '**DIFFERENT**'}: {check['what']} ({values})")
    return [*lines, ""]


def kind_ratios(kinds: dict[str, Any]) -> dict[tuple[str, str], float]:
    """(pair, system) -> the median daily model time over the dbt counterpart's."""
    from benchmarks.kinds import PAIRS

    def med(pair: str, system: str) -> float:
        return _median(
            [
                float(r["execution_time"])
                for r in kinds["runs"]
                if r["scenario"] == pair and r["system"] == system and r["rep"] > 0
            ]
        )

    return {
        (pair, system): _ratio(med(pair, system), med(pair, "dbt"))
        for pair in PAIRS
        for system in ("vulcan", "vulcan_package")
        if any(r["scenario"] == pair for r in kinds["runs"])
    }


def scale_section(scales: list[dict[str, Any]]) -> list[str]:
    """Each pair's ratio at every target size: the ratio at the largest must not exceed the
    ratio at the smallest (no cost that grows with the table)."""
    from benchmarks.kinds import PAIRS

    scales = sorted(scales, key=lambda k: k["keys"])
    ratios = [kind_ratios(k) for k in scales]
    sizes = [f"{k['keys']:,} rows" for k in scales]
    rows = []
    for pair, system in ratios[0]:
        label = PAIRS[pair][0] + ("" if system == "vulcan" else " (package)")
        values = [r.get((pair, system), float("nan")) for r in ratios]
        rows.append(
            [
                f"{label} / {PAIRS[pair][2]}",
                *(f"{v:.2f}x" for v in values),
                _ok(values[-1] <= values[0]),
            ]
        )
    head = ["a daily run's model time, over the counterpart's", *sizes]
    return [
        "## Cost that does not grow with the table: every kind at " + " and ".join(sizes),
        "",
        "The kinds part below, run once per target size from nothing (`--kind-keys`), 1 % of "
        "the keys changed each day. The goal: the ratio at the largest size is at most the "
        "ratio at the smallest.",
        "",
        *_table([*head, f"{sizes[-1]} ≤ {sizes[0]}"], rows),
        "",
    ]


def job_section(job: dict[str, Any]) -> list[str]:
    """The markdown of the project's daily job (benchmarks/job.py)."""

    def runs(scenario: str, system: str) -> list[dict[str, Any]]:
        return [r for r in job["runs"] if r["scenario"] == scenario and r["system"] == system]

    def med(scenario: str, system: str, value: Any) -> float:
        return _median([float(value(r)) for r in runs(scenario, system)])

    def summed(r: dict[str, Any]) -> float:
        return sum(r["model_seconds"].values())

    kinds = ("write", "state read", "state append", "metadata")
    systems = (("vulcan_package", "dbt-vulcan package"), ("microbatch", "dbt-spark microbatch"))
    lines = [
        "## A project's daily job: 25 models, eight threads, a fresh `dbt run` per day",
        "",
        f"{job['models']} daily models in four layers (10 staging, 10 marts, 5 tops over 5 "
        f"slices of `bench_src.events`; benchmarks/job.py), `threads: {job['threads']}`, "
        "package mode (`type: spark`) against dbt-spark's microbatch. The backfill of "
        f"{job['days']} days runs once; then each new day is one fresh `dbt run` of the whole "
        "job (medians). Model times are summed over the models (they overlap under eight "
        "threads); the statements' seconds are summed by kind from dbt's log. dbt-vulcan's "
        f"state table: {job.get('state_format', 'parquet')}.",
        "",
    ]
    base = med("job_one_day", "microbatch", lambda r: r["wall"])
    ratio = _ratio(med("job_one_day", "vulcan_package", lambda r: r["wall"]), base)
    lines += _table(
        ["goal", "target", "measured", "met"],
        [
            [
                "one new day of the job, wall / microbatch's",
                "≤ 1.1x",
                f"{ratio:.2f}x",
                _ok(ratio <= 1.1),
            ]
        ],
    )
    rows = []
    for system, label in systems:
        seconds = [
            f"{med('job_one_day', system, lambda r, k=k: r['statement_seconds'].get(k, 0.0)):.1f} s"
            f" ({med('job_one_day', system, lambda r, k=k: r['statement_counts'].get(k, 0)):.0f})"
            for k in kinds
        ]
        rows.append(
            [
                label,
                f"{med('job_backfill', system, lambda r: r['wall']):.1f} s",
                f"{med('job_one_day', system, lambda r: r['wall']):.1f} s",
                ", ".join(f"{r['wall']:.1f}" for r in runs("job_one_day", system)),
                f"{med('job_one_day', system, summed):.1f} s",
                *seconds,
                f"{med('job_one_day', system, lambda r: r['gaps']):.1f} s",
                _job_cpu(runs("job_one_day", system)),
            ]
        )
    head = ["system", "backfill wall", "one day wall (median)", "one day walls (s)"]
    head += ["models summed", *(f"{k} (statements)" for k in kinds), "gaps", "one day cpu"]
    lines += [
        "",
        *_table(head, rows),
        "",
        "`one day cpu`: the machine's busy core-seconds during the run (median; the Thrift "
        "server and the `dbt` process together, /proc/stat), the cores it kept busy on average "
        "(cpu / wall: a job that keeps every core busy is as slow as its CPU work), and the "
        "`dbt` process's part (its rusage: on a Thrift server Python and Jinja, the rest the "
        "server's Spark work; embedded sessions count their JVM in it).",
        "",
        "Checks:",
        "",
    ]
    different = [c for c in job.get("checks", []) if not c["ok"]]
    rounds = sorted({c["what"].rsplit(", ", 1)[0] for c in job.get("checks", [])})
    lines.append(
        f"- {len(job.get('checks', [])) - len(different)} of {len(job.get('checks', []))} "
        f"tables the same in both systems after each round ({', '.join(rounds)})"
    )
    for check in different:
        values = "; ".join(f"{k}: {v}" for k, v in check["values"].items())
        lines.append(f"- **DIFFERENT**: {check['what']} ({values})")
    return [*lines, ""]


def write(
    out: Path,
    cold: dict[str, Any],
    size: Size,
    meta: dict[str, Any],
    intro: str,
    findings: str = "FINDINGS_COLD.md",
) -> list[str]:
    """Writes the fresh-process report, then benchmarks/<findings>; returns the problems."""
    problems = list(cold.get("problems", []))
    lines = ["# Benchmarks", "", intro, ""]
    lines += [
        f"This run: `{shown_command(meta.get('command', ''))}` ({size.name} size, {size.repeats} "
        f"repetition(s); {meta.get('total_seconds', '?')} s in all), "
        f"commit {str(meta.get('commit', '?')).split(' ')[0]}.",
        "",
    ]
    if problems:
        lines += (
            ["**PROBLEMS** (the run exits non-zero):", ""] + [f"- {p}" for p in problems] + [""]
        )
    if cold.get("runs"):
        lines += section(cold, size, meta.get("spark", EMBEDDED))
    if cold.get("kinds_scale"):
        lines += scale_section(cold["kinds_scale"])
        for kinds in cold["kinds_scale"]:
            lines += kinds_section(kinds)
    elif cold.get("kinds"):
        lines += kinds_section(cold["kinds"])
    if cold.get("job"):
        lines += job_section(cold["job"])
    lines += ["## Machine", ""]
    lines += [
        f"- {k}: {v}"
        for k, v in meta.items()
        if k not in ("command", "make", "total_seconds", "commit", "spark")
    ]
    lines.append("")
    write_page(out, lines, findings)
    return problems


def _job_cpu(runs: list[dict[str, Any]]) -> str:
    """The median busy core-seconds of the runs and the cores they kept busy, or '-' when the
    runs recorded none (not Linux, or results from before it was measured)."""
    pairs = [(r["cpu"], r["wall"]) for r in runs if r.get("cpu") is not None and r["wall"]]
    if not pairs:
        return "-"
    cpu = _median([c for c, _ in pairs])
    text = f"{cpu:.1f} s ({_median([c / w for c, w in pairs]):.2f} cores)"
    own = [r["dbt_cpu"] for r in runs if r.get("dbt_cpu") is not None]
    return text + (f", dbt {_median(own):.1f} s" if own else "")
