"""Environments (the virtual layer, var `vulcan_virtual: true`) against dbt's own ways, on the
25-model daily job of benchmarks/job.py (four layers, eight threads), both modes (`type:
vulcan`; the package on `type: spark`), a fresh `dbt` process per run.

Part of the fresh-process suite: `run.py --part environments`. Per mode two copies of the
project: `virtual` (the var on; targets prod, ci and one new dev target per repetition, the
views in `<schema>`, `<schema>_ci`, `<schema>_dev_<r>`, the version tables in
`<schema>_physical`) and `dbt` (the var off, the tables in `<schema>_dbt`; targets prod and
dev). Each target keeps its own `--target-path` (its own partial parse, as its own checkout
would). Both are first built in prod over the job's days (`setup`, recorded). Then:

- `dev_unchanged`, rep r: the unchanged project in a new dev target. virtual: `dbt run
  --target dev_<r>` (a view per model over prod's versions). dbt: `dbt run --target dev_<r>
  -s state:modified+ --defer --state <prod's manifest>`, dbt's cheapest equivalent: nothing is
  modified, so nothing runs and nothing is created in the dev schema.
- `deploy`, rep r: staging model `stg_0_0` changed (its amounts times r + 1) in both copies.
  virtual: `dbt run --target ci` builds the change in full (`ci_build`, recorded), then prod's
  `dbt run` of the merged code (`deploy`). dbt: prod's `dbt run --full-refresh -s stg_0_0+`,
  the changed model and its children rebuilt over the job's days (`deploy`). Then every
  model's rows are checked equal between the two copies' prod.

Every statement of a run is counted from dbt's debug log, the node's or not (benchmarks/
cold_process.py's reading), by what it does: `data` (writes rows), `view`, `ddl` (other
CREATE / DROP / ALTER), `state read`, `state append`, `metadata`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from benchmarks.cold_process import DBT, Projects, _ts, compare, spark_task
from benchmarks.generate import Size, at
from benchmarks.harness import strip_comments
from benchmarks.report import shown_command

MODES = ("vulcan", "vulcan_package")
SIDES = ("virtual", "dbt")
MODE_LABELS = {"vulcan": "`type: vulcan`", "vulcan_package": "package, `type: spark`"}
SIDE_LABELS = {"virtual": "dbt-vulcan, virtual layer", "dbt": "without it (dbt's way)"}
SCHEMA = {"vulcan": "env_adapter", "vulcan_package": "env_package"}
CHANGED = "stg_0_0"
THREADS = 8
KINDS = ("data", "view", "ddl", "state read", "state append", "metadata")
SCENARIOS = {
    "dev_unchanged": "A new dev target of an unchanged project",
    "deploy": "The deploy of a change CI built",
}


def project_name(mode: str, side: str) -> str:
    return f"{SCHEMA[mode]}_{side}"


def statement_kind(sql: str) -> str:
    """What a statement does: `data` (writes rows), `view` (creates, replaces or drops a
    view), `ddl` (another CREATE, DROP or ALTER), `state read` / `state append` (the interval
    log) or `metadata` (SHOW, DESCRIBE, SET, a SELECT)."""
    text = " ".join(strip_comments(sql).lower().split())
    verb = text.split(" ", 1)[0] if text else ""
    if "vulcan_intervals" in text:
        return "state append" if verb == "insert" else "state read"
    if verb in ("insert", "merge", "update", "delete", "truncate"):
        return "data"
    if verb in ("create", "drop", "alter", "replace"):
        head = text.split(" as ", 1)[0]
        if re.search(r"\bview\b", head):
            return "view"
        if verb in ("create", "replace") and re.search(r"\bas\s*\(?\s*(select|with)\b", text):
            return "data"
        return "ddl"
    return "metadata"


def log_statements(lines: Iterable[str]) -> list[tuple[str, str, float]]:
    """Every statement of a run from dbt's JSON debug log: (connection name, SQL, seconds),
    in order; a statement is paired with the next status event of its thread."""
    pending: dict[str, tuple[str, str, str]] = {}  # thread -> (conn, sql, start)
    out: list[tuple[str, str, float]] = []

    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        info, data = event.get("info", {}), event.get("data", {})
        name, thread = info.get("name"), info.get("thread")
        if name == "SQLQuery":
            pending[thread] = (str(data.get("conn_name", "")), data.get("sql", ""), info["ts"])
        elif name == "SQLQueryStatus" and thread in pending:
            conn, sql, start = pending.pop(thread)
            out.append((conn, sql, round(_ts(info["ts"]) - _ts(start), 3)))
    return out


def descendants(models: dict[str, str], name: str) -> list[str]:
    """The models that read `name`, directly or not (their `ref()`s), sorted."""
    refs = {m: set(re.findall(r"ref\('([^']+)'\)", sql)) for m, sql in models.items()}
    found: set[str] = set()
    frontier = {name}
    while frontier:
        frontier = {m for m, parents in refs.items() if parents & frontier} - found
        found |= frontier
    return sorted(found)


def changed_sql(sql: str, factor: int) -> str:
    """A staging model's SQL with its amounts times `factor` (a change of its rows)."""
    new = sql.replace(
        "product_id, amount_cents,", f"product_id, amount_cents * {factor} as amount_cents,", 1
    )
    if new == sql:
        raise ValueError("not a staging model's SQL")
    return new


@dataclass
class EnvRun:
    """One fresh `dbt` process of one side of one mode."""

    scenario: str
    mode: str
    side: str
    rep: int
    wall: float
    command: str
    models: int  # the models dbt ran
    statement_counts: dict[str, int] = field(default_factory=dict)
    statement_seconds: dict[str, float] = field(default_factory=dict)
    data_models: list[str] = field(default_factory=list)  # the models that wrote rows


def tally(run: EnvRun, statements: list[tuple[str, str, float]]) -> EnvRun:
    """`run` with its statements counted and timed by kind, and the models that wrote rows."""
    counts: dict[str, int] = {}
    seconds: dict[str, float] = {}
    writers: set[str] = set()
    for conn, sql, spent in statements:
        kind = statement_kind(sql)
        counts[kind] = counts.get(kind, 0) + 1
        seconds[kind] = round(seconds.get(kind, 0.0) + spent, 3)
        if kind == "data" and conn.startswith("model."):
            writers.add(conn.rsplit(".", 1)[-1])
    return replace(
        run, statement_counts=counts, statement_seconds=seconds, data_models=sorted(writers)
    )


class Runner:
    """The four projects (two modes, two sides) of one work directory and their runs."""

    def __init__(self, projects: Projects) -> None:
        self.projects = projects
        self.count = 0

    def folder(self, mode: str, side: str) -> Path:
        return self.projects.folder(project_name(mode, side))

    def dbt(self, scenario: str, mode: str, side: str, rep: int, target: str, *args: str) -> EnvRun:
        """One fresh `dbt run --target <target> <args>`; raises unless every model succeeded."""
        folder = self.folder(mode, side)
        self.count += 1
        log_dir = self.projects.logs / f"env-{self.count:03d}-{scenario}-{mode}-{side}-r{rep}"
        target_path = folder / f"target_{target}"
        argv = [str(DBT), "run", "--target", target, *args, "--project-dir", str(folder)]
        argv += ["--profiles-dir", str(folder), "--target-path", str(target_path)]
        argv += ["--log-path", str(log_dir), "--log-format-file", "json"]
        argv += ["--log-level-file", "debug", "--log-level", "warn"]
        env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        path = target_path / "run_results.json"
        results = json.loads(path.read_text())["results"] if path.exists() else []
        results = [r for r in results if r["unique_id"].startswith("model.")]
        if done.returncode != 0 or any(r["status"] != "success" for r in results):
            tail = (done.stdout + done.stderr)[-3000:]
            raise RuntimeError(f"dbt run {mode} {side} ({scenario} rep {rep}) failed:\n{tail}")
        shown = " ".join(["dbt run --target", target, *args]).replace(str(folder) + "/", "")
        run = EnvRun(scenario, mode, side, rep, round(wall, 3), shown, len(results))
        log = log_dir / "dbt.log"
        run = tally(run, log_statements(log.read_text().splitlines() if log.exists() else []))
        print(
            f"  {scenario:<13} {mode:<15} {side:<7} rep {rep}: wall {run.wall:6.2f} s"
            f"  {run.models} models  statements {run.statement_counts}"
            f"  rows written by {len(run.data_models)} models",
            flush=True,
        )
        return run


def models_of(mode: str) -> dict[str, str]:
    """The job's 25 models (benchmarks/job.py), the same in both modes."""
    from benchmarks import job

    return job.models("vulcan_package")


def write_projects(
    projects: Projects, params: dict[str, str], connection: Any, size: Size, reps: int
) -> None:
    """Four projects: per mode, the virtual layer on (targets prod, ci, dev_1..dev_<reps>)
    and off (targets prod, dev_1..dev_<reps>), the models in the target's schema, eight
    threads, the execution time one hour into the day after the job's days."""
    from benchmarks.project import write_project

    names = []
    for mode in MODES:
        for side in SIDES:
            name = project_name(mode, side)
            folder = projects.folder(name)
            schema = SCHEMA[mode] + ("" if side == "virtual" else "_dbt")
            extra: dict[str, Any] = {
                "vulcan_state_schema": f"vulcan_state_{name}",
                "vulcan_execution_time": str(at(size.job_days, 1)),
            }
            if side == "virtual":
                extra |= {"vulcan_virtual": True, "vulcan_physical_schema": f"{schema}_physical"}
            if mode == "vulcan_package":
                extra["vulcan_state_file_format"] = "parquet"
            write_project(
                folder,
                params,
                "parquet",
                adapter_type="vulcan" if mode == "vulcan" else "spark",
                connection=connection,
                models={f"jobs/{n}": sql for n, sql in models_of(mode).items()},
                snapshots={},
                profile_extra={"threads": THREADS},
                extra_vars=extra,
            )
            # the target's schema, not one fixed schema: each target is an environment
            config = yaml.safe_load((folder / "dbt_project.yml").read_text())
            config.pop("models", None)
            (folder / "dbt_project.yml").write_text(yaml.safe_dump(config, sort_keys=False))
            profile = yaml.safe_load((folder / "profiles.yml").read_text())
            base = profile["bench"]["outputs"].pop("bench")
            targets = ["prod", *(["ci"] if side == "virtual" else [])]
            targets += [f"dev_{r}" for r in range(1, reps + 1)]
            profile["bench"]["outputs"] = {
                t: {**base, "schema": schema if t == "prod" else f"{schema}_{t}"} for t in targets
            }
            profile["bench"]["target"] = "prod"
            (folder / "profiles.yml").write_text(yaml.safe_dump(profile, sort_keys=False))
            names.append(name)
    projects.deps(*names)


def checks_sql(schema: str) -> dict[str, str]:
    """Each model's checksum query in `schema`."""
    from benchmarks.job import COLUMNS

    return {
        name: f"select count(*), sum(cast(hash({COLUMNS[name.split('_', 1)[0]]}) as bigint))"
        f" from {schema}.{name}"
        for name in models_of("vulcan")
    }


def run(
    size: Size,
    projects: Projects,
    connection: dict[str, Any] | None = None,
    generate: bool = True,
) -> dict[str, Any]:
    """The part: setup, `size.repeats` new dev targets, `size.repeats` deploys; runs, checks
    and problems. `generate`: create the events source (the job's days and one more)."""
    from tests.spark_targets import server_side_parameters

    started = time.perf_counter()
    workdir = projects.workdir
    n, reps = size.job_days, size.repeats
    if generate:
        made = spark_task(
            workdir, "generate", connection, size=asdict(replace(size, days=n)), extra_days=1
        )
        print(f"environments: generated {made['events']} events in {made['seconds']} s")
    write_projects(projects, server_side_parameters("parquet", workdir), connection, size, reps)
    runner = Runner(projects)
    runs: list[EnvRun] = []
    checks: list[dict[str, Any]] = []
    changed = [CHANGED, *descendants(models_of("vulcan"), CHANGED)]

    def check(what: str, schemas: dict[str, str]) -> None:
        queries = {
            f"{label}|{name}": sql
            for label, schema in schemas.items()
            for name, sql in checks_sql(schema).items()
        }
        sums = spark_task(workdir, "sums", connection, queries=queries)
        for name in models_of("vulcan"):
            checks.append(compare(f"{what}, {name}", {s: sums[f"{s}|{name}"] for s in schemas}))

    print(f"environments: prod builds of {n} days", flush=True)
    for mode in MODES:
        for side in SIDES:
            runs.append(runner.dbt("setup", mode, side, 1, "prod"))
            if side == "dbt":  # prod's artifacts, for --defer --state
                state = runner.folder(mode, side) / "state_prod"
                state.mkdir(exist_ok=True)
                target = runner.folder(mode, side) / "target_prod" / "manifest.json"
                shutil.copy(target, state / "manifest.json")

    for rep in range(1, reps + 1):
        print(f"environments: a new dev target of the unchanged project, rep {rep}", flush=True)
        for mode in MODES:
            runs.append(runner.dbt("dev_unchanged", mode, "virtual", rep, f"dev_{rep}"))
            defer = ("-s", "state:modified+", "--defer", "--state", "state_prod")
            runs.append(runner.dbt("dev_unchanged", mode, "dbt", rep, f"dev_{rep}", *defer))
    for mode in MODES:
        check(f"dev_1 ({mode}) as prod", {"dev": f"{SCHEMA[mode]}_dev_1", "prod": SCHEMA[mode]})

    for rep in range(1, reps + 1):
        print(f"environments: the deploy of a change CI built, rep {rep}", flush=True)
        for mode in MODES:
            for side in SIDES:
                path = runner.folder(mode, side) / "models" / "jobs" / f"{CHANGED}.sql"
                path.write_text(changed_sql(models_of(mode)[CHANGED], rep + 1))
            runs.append(runner.dbt("ci_build", mode, "virtual", rep, "ci"))
            runs.append(runner.dbt("deploy", mode, "virtual", rep, "prod"))
            rebuild = ("-s", f"{CHANGED}+", "--full-refresh")
            runs.append(runner.dbt("deploy", mode, "dbt", rep, "prod", *rebuild))
        for mode in MODES:
            schemas = {"virtual": SCHEMA[mode], "dbt": f"{SCHEMA[mode]}_dbt"}
            check(f"deploy {rep} ({mode})", schemas)

    problems = [c["what"] + ": outputs differ" for c in checks if not c["ok"]]
    for r in runs:
        if r.side == "virtual" and r.scenario in ("dev_unchanged", "deploy") and r.data_models:
            problems.append(f"{r.scenario} {r.mode} rep {r.rep}: rows written by {r.data_models}")
        if r.scenario == "deploy" and r.side == "dbt" and sorted(r.data_models) != sorted(changed):
            problems.append(f"deploy {r.mode} rep {r.rep} (dbt): rows written by {r.data_models}")
    return {
        "runs": [asdict(r) for r in runs],
        "checks": checks,
        "problems": problems,
        "days": n,
        "size": size.name,
        "per_day": size.per_day,
        "models": len(models_of("vulcan")),
        "changed": changed,
        "threads": THREADS,
        "seconds": round(time.perf_counter() - started, 1),
    }


# the report's section (benchmarks/cold_report.py writes it into the page)


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _runs(env: dict[str, Any], scenario: str, mode: str, side: str) -> list[dict[str, Any]]:
    return [
        r
        for r in env["runs"]
        if r["scenario"] == scenario and r["mode"] == mode and r["side"] == side
    ]


def _count(runs: list[dict[str, Any]], *kinds: str) -> float:
    return _median([sum(r["statement_counts"].get(k, 0) for k in kinds) for r in runs])


def goals(env: dict[str, Any]) -> list[list[str]]:
    """[goal, target, measured, met] of each mode: a deploy and a new dev target of an
    unchanged project write no rows; a new dev target creates one view per model."""
    rows = []
    models = env["models"]
    for mode in MODES:
        label = MODE_LABELS[mode]
        deploy = _runs(env, "deploy", mode, "virtual")
        dev = _runs(env, "dev_unchanged", mode, "virtual")
        if not deploy or not dev:
            continue
        for name, runs in (("deploy", deploy), ("new dev target", dev)):
            data = _count(runs, "data")
            rows.append([f"{name} ({label}): data statements", "0", f"{data:.0f}", _ok(data == 0)])
        views = _count(dev, "view")
        rows.append(
            [
                f"new dev target ({label}): view statements",
                f"{models} (one a model)",
                f"{views:.0f}",
                _ok(views == models),
            ]
        )
    return rows


def _ok(flag: bool) -> str:
    return "yes" if flag else "**no**"


def _scenario_rows(env: dict[str, Any], scenario: str) -> list[list[str]]:
    rows = []
    for mode in MODES:
        walls = {
            side: _median([r["wall"] for r in _runs(env, scenario, mode, side)]) for side in SIDES
        }
        for side in SIDES:
            runs = _runs(env, scenario, mode, side)
            if not runs:
                continue
            seconds = _median([sum(r["statement_seconds"].values()) for r in runs])
            rows.append(
                [
                    f"{SIDE_LABELS[side]}, {MODE_LABELS[mode]}",
                    f"`{runs[0]['command']}`",
                    f"{walls[side]:.1f} s",
                    ", ".join(f"{r['wall']:.1f}" for r in runs),
                    f"{walls[side] / walls['dbt']:.2f}x" if walls["dbt"] else "-",
                    f"{_median([r['models'] for r in runs]):.0f}",
                    f"{_median([len(r['data_models']) for r in runs]):.0f}",
                    *(f"{_count(runs, k):.0f}" for k in KINDS),
                    f"{seconds:.1f} s",
                ]
            )
    return rows


HEAD = ["side, mode", "command", "wall (median)", "walls (s)", "wall / dbt's", "models run"]
HEAD += ["models writing rows", *(f"{k} statements" for k in KINDS), "statements' time"]


def section(env: dict[str, Any]) -> list[str]:
    """The markdown of the part: its goals, what it runs, each scenario's table, the checks."""
    n, models, changed = env["days"], env["models"], env["changed"]
    lines = [
        "## Environments: a deploy and a new dev target against dbt's own ways",
        "",
        f"The {models}-model daily job (benchmarks/job.py, `threads: {env['threads']}`, {n} "
        f"days of {env.get('per_day', 0):,} events built in prod first; {env.get('size', '?')} "
        "size) with the virtual layer (`vulcan_virtual: true`, "
        "benchmarks/environments.py) beside the same project without it, both modes, a fresh "
        "`dbt` process per run, each target with its own target path (its own partial parse, as "
        "its own checkout). Statements are every statement of the run in dbt's log: `data` "
        "writes rows (INSERT, MERGE, CREATE TABLE AS), `view` creates or replaces a view, `ddl` "
        "another CREATE, DROP or ALTER, `state` the interval log, `metadata` SHOW, DESCRIBE and "
        "SELECTs; their time is summed over the run's statements (they overlap under eight "
        "threads). Medians of the repetitions.",
        "",
        f"- **The deploy of a change CI built.** `{CHANGED}` changed (a new amount column "
        f"formula); {len(changed)} models have new versions ({', '.join(changed)}). With the "
        "virtual layer a CI target built them in full first (not timed here: the pull request's "
        "cost), then prod's `dbt run` of the merged code points prod's views at them. Without "
        "it, a change of a model's rows is deployed by rebuilding the model and its children: "
        f"prod's `dbt run -s {CHANGED}+ --full-refresh`, {n} days each.",
        "- **A new dev target of an unchanged project.** With the virtual layer: `dbt run` in "
        "a new dev target, which gives one view per model over prod's versions. dbt's cheapest "
        "equivalent is a run of what changed with the rest deferred to prod: `dbt run -s "
        "state:modified+ --defer --state <prod's manifest>`. Nothing changed, so nothing runs "
        "and no relation is created in the dev schema: later dev runs read prod's tables "
        "through `--defer`, but the dev schema itself has nothing to query. Building the "
        "project in dev instead would rebuild every model's history, a far costlier "
        "counterpart; the deferred run is the honest lower bound of dbt's way.",
        "",
        "Goals:",
        "",
        *_table(["goal", "target", "measured", "met"], goals(env)),
        "",
    ]
    for scenario, title in SCENARIOS.items():
        lines += [f"### {title}", "", *_table(HEAD, _scenario_rows(env, scenario)), ""]
    ci = [r for r in env["runs"] if r["scenario"] == "ci_build"]
    if ci:
        lines += [
            "The CI target's full build of the change before each deploy (virtual layer; "
            "medians): "
            + "; ".join(
                f"{MODE_LABELS[mode]} {_median([r['wall'] for r in ci if r['mode'] == mode]):.1f} s"
                f" wall, {_median([len(r['data_models']) for r in ci if r['mode'] == mode]):.0f}"
                " models writing rows"
                for mode in MODES
                if any(r["mode"] == mode for r in ci)
            )
            + ".",
            "",
        ]
    meta = env.get("_meta")
    if meta:
        lines += [
            f"This part's run: `{shown_command(meta.get('command', ''))}` "
            f"({meta.get('total_seconds', '?')} s),"
            f" commit {str(meta.get('commit', '?')).split(' ')[0]}, {meta.get('cpu', '?')}, "
            f"{meta.get('cores', '?')} cores, load average at the end "
            f"{meta.get('load average at the end (1, 5, 15 min)', '?')}.",
            "",
        ]
    different = [c for c in env.get("checks", []) if not c["ok"]]
    total = len(env.get("checks", []))
    lines += [
        f"Checks: {total - len(different)} of {total} tables the same (each new dev target's "
        "views as prod's; after each deploy, prod with the virtual layer as prod without it)."
    ]
    for c in different:
        values = "; ".join(f"{k}: {v}" for k, v in c["values"].items())
        lines.append(f"- **DIFFERENT**: {c['what']} ({values})")
    return [*lines, ""]
