"""The report of the fresh-process suite (benchmarks/cold.py): docs/benchmarks.md.

Goals, from medians of one run's runs (a stateful model run's floor: its write, one state
read and one state append, each a Spark statement; the state stays in the warehouse):
- every run: one state read and one state append;
- one new day: model time <= microbatch's write statements + the run's own read and append +
  0.10 s; wall <= 1.05x microbatch's (adapter), <= 1.10x (package: its macros compiled once
  per process count here, not in the 0.10 s);
- every kind (the backfill against insert_overwrite, the kinds against their dbt
  counterparts): statements <= the counterpart's + 2, model time <= the counterpart's + the
  run's own read and append + 0.10 s; the unique key's MERGE <= dbt's merge's
  (`skip_unchanged_rows` true); tracked <= 2.0x dbt's merge of the whole snapshot, flat from
  1M to 10M rows within the run's spread;
- the 25-model daily job: wall <= 1.25x microbatch's (adapter: one state read a job, at most
  one append a model: the appends of models that end together are committed in one
  statement), <= 1.50x (package: one read and one append a model).
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
    "full_refresh": "`--full-refresh` of the backfilled days",
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


# the speed goals: a stateful model run's floor is its write, one state read and one state
# append (each a Spark statement); beyond it a run may spend FLOOR_SLACK seconds (Python and
# Jinja, between statements) and EXTRA_STATEMENTS statements more than its dbt counterpart
FLOOR_SLACK = 0.10
EXTRA_STATEMENTS = 2
# one new day's wall over microbatch's, per mode (the package compiles its macros once per
# `dbt` process: counted here, in wall, not in a model run's slack)
WALL_LIMIT = {"vulcan": 1.05, "vulcan_package": 1.10}
# the 25-model daily job's wall over microbatch's
JOB_WALL_LIMIT = {"vulcan": 1.25, "vulcan_package": 1.50}
# `--full-refresh` of the backfilled days: model time over insert_overwrite's own
REBUILD_LIMIT = 1.0
# tracked's daily model time over dbt's merge of the whole snapshot
TRACKED_LIMIT = 2.0
MODES = {"vulcan": "", "vulcan_package": " (package)"}


def _text(sql: str) -> str:
    """A statement's SQL without its comments (dbt's query comment first), lower case."""
    return re.sub(r"--[^\n]*", " ", re.sub(r"/\*.*?\*/", " ", sql, flags=re.S)).strip().lower()


def _kind(statement: dict[str, Any]) -> str:
    """`state read`, `state append`, or the statement's category (`write`, `metadata`)."""
    if statement["category"] != "state":
        return str(statement["category"])
    return "state append" if _text(statement["sql"]).startswith("insert") else "state read"


def _seconds(run: dict[str, Any], *kinds: str) -> float:
    return sum(s["seconds"] for s in run["statements"] if _kind(s) in kinds)


def state_seconds(run: dict[str, Any]) -> float:
    """The seconds of the run's own state read and append."""
    return _seconds(run, "state read", "state append")


def floor(runs: list[dict[str, Any]]) -> list[str]:
    """[target, measured, met] of the floor: one state read and one state append a run."""
    counts = sorted(
        {
            (
                sum(_kind(s) == "state read" for s in r["statements"]),
                sum(_kind(s) == "state append" for s in r["statements"]),
            )
            for r in runs
        }
    )
    if not counts:
        return ["1 read + 1 append", "not measured", "not measured"]
    measured = ", ".join(f"{reads} read + {appends} append" for reads, appends in counts)
    return ["1 read + 1 append", measured, _ok(counts == [(1, 1)])]


def within_floor(time: float, base: float, state: float, gaps: float) -> list[str]:
    """[target, measured, met]: a model time against base + its own read and append + slack.
    A miss names the runs' unlogged gaps (median), where the time beyond the statements is."""
    limit = base + state + FLOOR_SLACK
    target = f"≤ {base:.2f} + {state:.2f} + {FLOOR_SLACK:.2f} = {limit:.2f} s"
    met = _ok(time <= limit)
    if time > limit:
        met += f", unlogged gaps {gaps:.2f} s"
    return [target, f"{time:.2f} s", met]


def goals(cold: dict[str, Any]) -> list[list[str]]:
    """[goal, target, measured, met] rows of the daily model (a time-range model): one new day
    against microbatch's write, the backfill against insert_overwrite, both modes."""
    rows: list[list[str]] = []
    microbatch, overwrite = (
        _runs(cold, "one_day", "microbatch"),
        _runs(cold, "backfill", "insert_overwrite"),
    )
    counterparts = {
        "one_day": (
            "one new day",
            "microbatch's write",
            _median([_seconds(r, "write") for r in microbatch]),
            _median([len(r["statements"]) for r in microbatch]),
        ),
        "backfill": (
            "backfill",
            "insert_overwrite's",
            _med(cold, "backfill", "insert_overwrite"),
            _median([len(r["statements"]) for r in overwrite]),
        ),
    }
    mb_wall = _med(cold, "one_day", "microbatch", "wall")
    for system, mode in MODES.items():
        for scenario, (name, base_name, base, base_count) in counterparts.items():
            runs = _runs(cold, scenario, system)
            time = _med(cold, scenario, system)
            state = _median([state_seconds(r) for r in runs])
            count = _median([len(r["statements"]) for r in runs])
            rows += [
                [f"{name}{mode}: state statements", *floor(runs)],
                [
                    f"{name}{mode}: model time ≤ {base_name} + own read and append + 0.10 s",
                    *within_floor(time, base, state, _median([_gaps(r) for r in runs])),
                ],
            ]
            if scenario == "one_day":
                wall = _ratio(_med(cold, scenario, system, "wall"), mb_wall)
                limit = WALL_LIMIT[system]
                rows.append(
                    [
                        f"{name}{mode}: wall / microbatch's",
                        f"≤ {limit:.2f}x",
                        f"{wall:.2f}x",
                        _ok(wall <= limit),
                    ]
                )
            rows.append(
                [
                    f"{name}{mode}: statements",
                    f"≤ {base_count:.0f} + {EXTRA_STATEMENTS}",
                    f"{count:.0f}",
                    _ok(count <= base_count + EXTRA_STATEMENTS),
                ]
            )
        rebuild = _ratio(
            _med(cold, "full_refresh", system), _med(cold, "full_refresh", "insert_overwrite")
        )
        if rebuild == rebuild:  # (results from before the scenario have none)
            rows.append(
                [
                    f"--full-refresh{mode}: model time / insert_overwrite's",
                    f"≤ {REBUILD_LIMIT:.2f}x",
                    f"{rebuild:.2f}x",
                    _ok(rebuild <= REBUILD_LIMIT),
                ]
            )
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


GOALS = [
    "The floor of a stateful model run is its write, one read of the state and one append to "
    "it, each a Spark statement; the state stays in the warehouse. Beyond the floor a run may "
    "take 0.10 s (its Python and Jinja between statements) and two statements more than its "
    "dbt counterpart. One new day is held to microbatch's write statements (a target reads "
    "`≤ counterpart + own read and append + 0.10 s`, medians of the runs below), its wall to "
    "1.05x microbatch's in adapter mode and 1.10x in package mode: the package compiles its "
    "macros once per `dbt` process, which counts in the wall, not "
    "in a model run's 0.10 s. A row that misses names the runs' unlogged gaps: Python and "
    "Jinja between statements, and the fetch of the state read's rows (Spark runs a SELECT's "
    "job when its rows are fetched; in a fresh process, the first job of its JVM).",
]


def section(cold: dict[str, Any], size: Size, spark: str = EMBEDDED) -> list[str]:
    """The markdown of the fresh-process suite; `spark`: how the runs reach Spark."""
    n = size.days
    lines = ["## Goals: a fresh `dbt` process per run", "", *GOALS, ""]
    lines += _table(["goal", "target", "measured", "met"], goals(cold))
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
        if not any(r["scenario"] == scenario for r in cold["runs"]):
            continue
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


def _merge_seconds(run: dict[str, Any]) -> float:
    """The seconds of the run's MERGE statements (dbt's merge, the unique key's)."""
    return sum(
        s["seconds"]
        for s in run["statements"]
        if s["category"] == "write" and re.search(r"^\s*merge\s+into\b", _text(s["sql"]))
    )


def kind_goals(
    pair: str, label: str, counterpart: str, runs: Any, scaled: bool = False
) -> list[list[str]]:
    """[goal, target, measured, met] rows of one kind against its counterpart, both modes:
    statements <= the counterpart's + 2; model time <= the counterpart's + its own read and
    append + 0.10 s (tracked: <= 2.0x the merge of the whole snapshot); the unique key's
    MERGE <= dbt's; `runs(system)` gives the daily runs."""
    base = runs("dbt")
    base_time = _median([float(r["execution_time"]) for r in base])
    base_count = _median([len(r["statements"]) for r in base])
    rows = []
    for system, mode in MODES.items():
        daily = runs(system)
        time = _median([float(r["execution_time"]) for r in daily])
        count = _median([len(r["statements"]) for r in daily])
        rows.append(
            [
                f"{label}{mode}: statements",
                f"≤ {base_count:.0f} + {EXTRA_STATEMENTS}",
                f"{count:.0f}",
                _ok(count <= base_count + EXTRA_STATEMENTS),
            ]
        )
        if pair == "tracked":
            ratio = _ratio(time, base_time)
            rows.append(
                [
                    f"{label}{mode}: model time / {counterpart}",
                    f"≤ {TRACKED_LIMIT:.2f}x",
                    f"{ratio:.2f}x",
                    _ok(ratio <= TRACKED_LIMIT),
                ]
            )
            if not scaled:
                rows.append(
                    [
                        f"{label}{mode}: that ratio from 1M to 10M rows",
                        "flat within the run's spread",
                        "not measured (one size)",
                        "not measured",
                    ]
                )
            continue
        state = _median([state_seconds(r) for r in daily])
        rows.append(
            [
                f"{label}{mode}: model time ≤ the counterpart's + own read and append + 0.10 s",
                *within_floor(time, base_time, state, _median([_gaps(r) for r in daily])),
            ]
        )
        if pair == "unique_key":
            own, dbt = (_median([_merge_seconds(r) for r in rs]) for rs in (daily, base))
            merge = _ratio(own, dbt)
            measured = [f"{merge:.2f}x", _ok(merge <= 1.0)] if own and dbt else ["not measured"] * 2
            rows.append(
                [
                    f"{label}{mode}: its MERGE / dbt's MERGE (`skip_unchanged_rows: true`)",
                    "≤ 1.00x",
                    *measured,
                ]
            )
    return rows


def kinds_section(kinds: dict[str, Any], scaled: bool = False) -> list[str]:
    """The markdown of every kind against its dbt counterpart (benchmarks/kinds.py); `scaled`:
    one of several sizes (the flatness of tracked's ratio is judged across them)."""
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
        "after every day are checked below. The goals: every kind issues at most two "
        "statements more than its counterpart and takes at most the counterpart's model time "
        "plus its own state read and append plus 0.10 s; the unique key (its default, "
        "`skip_unchanged_rows: true`) also runs its MERGE at most in dbt's merge's time; "
        "tracked, whose passes make it slower by design, takes at most 2.0x the merge of the "
        "whole snapshot, flat from 1M to 10M rows within the run's spread.",
        "",
    ]
    goal_rows = []
    rows = []
    for pair, (label, _, counterpart, _, _) in PAIRS.items():
        if not runs(pair, "dbt", True):  # a run of some kinds only (run.py --kind)
            continue
        base_wall = med(pair, "dbt", "wall")
        goal_rows += kind_goals(
            pair, label, counterpart, lambda system, p=pair: runs(p, system, True), scaled
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


def day_ratios(kinds: dict[str, Any], pair: str, system: str) -> list[float]:
    """Each daily run's model time over the counterpart's of the same day."""
    times = {
        (r["system"], r["rep"]): float(r["execution_time"])
        for r in kinds["runs"]
        if r["scenario"] == pair and r["rep"] > 0
    }
    return [
        _ratio(t, times[("dbt", day)])
        for (name, day), t in sorted(times.items(), key=lambda item: item[0][1])
        if name == system and ("dbt", day) in times
    ]


def scale_section(scales: list[dict[str, Any]]) -> list[str]:
    """Each pair's ratio at every target size. Tracked's must stay flat: the ratio at the
    largest size at most the smallest's plus the run's spread (the range of the day-by-day
    ratios, the narrower of the two sizes')."""
    from benchmarks.kinds import PAIRS

    scales = sorted(scales, key=lambda k: k["keys"])
    ratios = [kind_ratios(k) for k in scales]
    sizes = [f"{k['keys']:,} rows" for k in scales]
    rows = []
    for pair, system in ratios[0]:
        label = PAIRS[pair][0] + ("" if system == "vulcan" else " (package)")
        values = [r.get((pair, system), float("nan")) for r in ratios]
        days = [day_ratios(k, pair, system) for k in (scales[0], scales[-1])]
        spread = min((max(d) - min(d) for d in days if d), default=float("nan"))
        flat = values[-1] - values[0] <= spread
        rows.append(
            [
                f"{label} / {PAIRS[pair][2]}",
                *(f"{v:.2f}x" for v in values),
                f"{spread:.2f}",
                _ok(flat) if pair == "tracked" else "-",
            ]
        )
    head = ["a daily run's model time, over the counterpart's", *sizes, "the run's spread"]
    return [
        "## Cost that does not grow with the table: every kind at " + " and ".join(sizes),
        "",
        "The kinds part below, run once per target size from nothing (`--kind-keys`), 1 % of "
        "the keys changed each day. The goal, for tracked: its ratio flat from the smallest "
        "size to the largest within the run's spread (the range of its day-by-day ratios, the "
        "narrower of the two sizes'); every size's own goals are in its section.",
        "",
        *_table([*head, "tracked: flat"], rows),
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
    systems = [
        (system, label)
        for system, label in (
            ("vulcan", "dbt-vulcan, `type: vulcan`"),
            ("vulcan_package", "dbt-vulcan package"),
            ("microbatch", "dbt-spark microbatch"),
        )
        if runs("job_one_day", system)
    ]
    modes = {"vulcan": "the `vulcan` adapter", "vulcan_package": "the package (`type: spark`)"}
    ran = " and ".join(modes[system] for system, _ in systems if system in modes)
    lines = [
        "## A project's daily job: 25 models, eight threads, a fresh `dbt run` per day",
        "",
        f"{job['models']} daily models in four layers (10 staging, 10 marts, 5 tops over 5 "
        f"slices of `bench_src.events`; benchmarks/job.py), `threads: {job['threads']}`, "
        f"{ran} against dbt-spark's microbatch. "
        f"The backfill of {job['days']} days runs once; then each new day is one fresh "
        "`dbt run` of the whole job (medians). Model times are summed over the models (they "
        "overlap under eight threads); the statements' seconds are summed by kind from dbt's "
        f"log. dbt-vulcan's state table: {job.get('state_format', 'parquet')}. The adapter "
        "reads the state log once per invocation, the package once per model; the adapter "
        "commits the appends of models that end together in one statement, run by one of "
        "them (the others' wait for it counts in their gaps).",
        "",
    ]
    base = med("job_one_day", "microbatch", lambda r: r["wall"])
    models = job["models"]
    goals = []
    for system, mode in (("vulcan", ""), ("vulcan_package", " (package)")):
        if not runs("job_one_day", system):
            continue
        ratio = _ratio(med("job_one_day", system, lambda r: r["wall"]), base)
        limit = JOB_WALL_LIMIT[system]
        reads, appends = (
            med("job_one_day", system, lambda r, k=k: r["statement_counts"].get(k, 0))
            for k in ("state read", "state append")
        )
        want_reads = 1 if system == "vulcan" else models
        goals += [
            [
                f"one new day of the job{mode}: wall / microbatch's",
                f"≤ {limit:.2f}x",
                f"{ratio:.2f}x",
                _ok(ratio <= limit),
            ],
            [
                f"one new day of the job{mode}: state statements",
                (
                    f"1 read a job + at most 1 append a model (1 + ≤ {models})"
                    if system == "vulcan"
                    else f"1 read a model + 1 append a model ({models} + {models})"
                ),
                f"{reads:.0f} + {appends:.0f}",
                _ok(
                    reads == want_reads
                    and (0 < appends <= models if system == "vulcan" else appends == models)
                ),
            ],
        ]
    lines += _table(["goal", "target", "measured", "met"], goals)
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
        f"tables the same in every system after each round ({', '.join(rounds)})"
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
            lines += kinds_section(kinds, scaled=True)
    elif cold.get("kinds"):
        lines += kinds_section(cold["kinds"])
    if cold.get("job"):
        lines += job_section(cold["job"])
    if cold.get("environments"):
        from benchmarks import environments

        lines += environments.section(cold["environments"])
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
