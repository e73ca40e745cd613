"""The fresh `dbt` processes every cold suite runs (benchmarks/cold.py: the daily model;
kinds.py: each kind against its dbt counterpart; job.py: a project's daily job): one process of
a project run and timed (`Projects`), the model's statements read from dbt's JSON debug log
(`parse_log`), a task run in its own Python process (`spark_task`) and the check that the
systems' outputs are equal (`compare`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.harness import classify

ROOT = Path(__file__).resolve().parent.parent
DBT = ROOT / ".venv" / "bin" / "dbt"

# system -> (project, model)
SYSTEMS: dict[str, tuple[str, str]] = {
    "vulcan": ("adapter", "daily_vulcan"),
    "vulcan_package": ("package", "daily_vulcan"),
    "microbatch": ("package", "daily_microbatch"),
    "insert_overwrite": ("package", "daily_insert_overwrite"),
    "vulcan_before": ("before", "daily_vulcan"),
}


@dataclass
class Statement:
    """One statement a model sent: seconds from the model's start, duration, the unlogged gap
    before it (since the model started or the previous statement ended)."""

    sql: str
    category: str
    start: float
    seconds: float
    gap_before: float


@dataclass
class ColdRun:
    scenario: str
    system: str
    rep: int
    execution_time: float  # dbt's model time (run_results.json)
    wall: float  # the whole `dbt` process
    status: str
    message: str
    node_seconds: float = 0.0  # the node's span in dbt's log (first to last event)
    tail_gap: float = 0.0  # after the last statement until the node finished
    statements: list[Statement] = field(default_factory=list)

    @property
    def gaps(self) -> float:
        return sum(s.gap_before for s in self.statements) + self.tail_gap


def _ts(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def parse_log(path: Path, unique_id: str) -> tuple[list[Statement], float, float]:
    """The model's statements from dbt's JSON debug log, with the node's span and tail gap."""
    node_start = node_end = None
    pending: dict[str, Any] | None = None
    raw: list[tuple[str, float, float]] = []  # sql, start ts, end ts
    for line in path.read_text().splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        info, data = event.get("info", {}), event.get("data", {})
        name, ts = info.get("name"), info.get("ts")
        node = (data.get("node_info") or {}).get("unique_id")
        if name == "NodeExecuting" and node == unique_id:
            node_start = _ts(ts)
        elif name == "NodeFinished" and node == unique_id:
            node_end = _ts(ts)
        elif name == "SQLQuery" and data.get("conn_name") == unique_id:
            pending = {"sql": data.get("sql", ""), "start": _ts(ts), "thread": info.get("thread")}
        elif (
            name == "SQLQueryStatus"
            and pending is not None
            and info.get("thread") == pending["thread"]
        ):
            raw.append((pending["sql"], pending["start"], _ts(ts)))
            pending = None
    if node_start is None or node_end is None:
        return [], 0.0, 0.0
    statements: list[Statement] = []
    previous_end = node_start
    for sql, start, end in raw:
        statements.append(
            Statement(
                sql=sql,
                category=classify(sql),
                start=round(start - node_start, 3),
                seconds=round(end - start, 3),
                gap_before=round(max(0.0, start - previous_end), 3),
            )
        )
        previous_end = end
    return statements, node_end - node_start, max(0.0, node_end - previous_end)


class Projects:
    """The two dbt projects (adapter, package) of one work directory."""

    def __init__(self, workdir: Path, before: Path | None = None) -> None:
        self.workdir = workdir
        self.before = before
        self.logs = workdir / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.count = 0

    def folder(self, project: str) -> Path:
        return self.workdir / f"project_{project}"

    def deps(self, *names: str) -> None:
        """`dbt deps` in each named project (the package from this checkout)."""
        for project in names:
            folder = self.folder(project)
            subprocess.run(
                [str(DBT), "deps", "--project-dir", str(folder), "--profiles-dir", str(folder)],
                cwd=folder,
                check=True,
                capture_output=True,
            )

    def dbt(
        self, scenario: str, system: str, rep: int, vars_: dict[str, Any], *extra: str
    ) -> ColdRun:
        """One fresh `dbt run --select <model>` process; raises unless the model succeeded."""
        project, model = SYSTEMS[system]
        return self.invoke(scenario, system, rep, vars_, project, "run", model, *extra)

    def process(
        self,
        scenario: str,
        system: str,
        rep: int,
        vars_: dict[str, Any],
        project: str,
        verb: str,
        select: str,
        *extra: str,
    ) -> tuple[list[dict[str, Any]], float, Path]:
        """One fresh `dbt <verb> --select <select>` process of `project`: the results of its
        models and snapshots (run_results.json), its wall time and its log folder; raises
        unless every one succeeded."""
        folder = self.folder(project)
        self.count += 1
        log_dir = self.logs / f"{self.count:03d}-{scenario}-{system}-r{rep}"
        argv = [str(DBT), verb, "--select", select, "--project-dir", str(folder)]
        argv += ["--profiles-dir", str(folder), "--vars", json.dumps(vars_), *extra]
        argv += ["--log-path", str(log_dir), "--log-format-file", "json"]
        argv += ["--log-level-file", "debug", "--log-level", "warn"]
        env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
        if project == "before" and self.before is not None:
            env["PYTHONPATH"] = str(self.before)
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        results = json.loads((folder / "target" / "run_results.json").read_text())["results"]
        results = [r for r in results if r["unique_id"].startswith(("model.", "snapshot."))]
        if done.returncode != 0 or not results or any(r["status"] != "success" for r in results):
            tail = (done.stdout + done.stderr)[-3000:]
            raise RuntimeError(f"dbt {verb} {system} ({scenario} rep {rep}) failed:\n{tail}")
        return results, wall, log_dir

    def invoke(
        self,
        scenario: str,
        system: str,
        rep: int,
        vars_: dict[str, Any],
        project: str,
        verb: str,
        node: str,
        *extra: str,
    ) -> ColdRun:
        """One fresh `dbt <verb> --select <node>` process of `project`; raises unless the node
        succeeded."""
        results, wall, log_dir = self.process(
            scenario, system, rep, vars_, project, verb, node, *extra
        )
        if len(results) != 1:
            raise RuntimeError(
                f"dbt {verb} {system} ({scenario} rep {rep}): {len(results)} nodes ran"
            )
        result = results[0]
        statements, span, tail_gap = parse_log(log_dir / "dbt.log", result["unique_id"])
        run = ColdRun(
            scenario=scenario,
            system=system,
            rep=rep,
            execution_time=round(float(result["execution_time"]), 3),
            wall=round(wall, 3),
            status=result["status"],
            message=str(result.get("message") or ""),
            node_seconds=round(span, 3),
            tail_gap=round(tail_gap, 3),
            statements=statements,
        )
        print(
            f"  {scenario:<13} {system:<21} rep {rep}: model {run.execution_time:6.2f} s"
            f"  wall {run.wall:6.2f} s  {len(statements)} statements"
            f"  gaps {run.gaps:5.2f} s  [{run.message}]",
            flush=True,
        )
        return run


def spark_task(
    workdir: Path, task: str, connection: dict[str, Any] | None = None, **kwargs: Any
) -> Any:
    """Runs `task` in a fresh Python process with its own SparkSession (or, with a
    `connection`, its own Thrift connection); its JSON result."""
    out = workdir / "task.json"
    argv = [sys.executable, "-m", "benchmarks.cold", "task", str(workdir), task]
    argv.append(json.dumps({**kwargs, "connection": connection}))
    subprocess.run(argv, cwd=ROOT, check=True)
    return json.loads(out.read_text())


def compare(what: str, values: dict[str, list[Any]]) -> dict[str, Any]:
    ok = len({tuple(v) for v in values.values()}) == 1 and all(v[0] for v in values.values())
    print(f"  check {what}: {'same' if ok else 'DIFFERENT'} {values}", flush=True)
    return {"what": what, "ok": ok, "values": values}
