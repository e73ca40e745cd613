"""Helpers of the reliability tests: dbt as a subprocess (so it can be killed), the source data
they share, and the checks of the interval state log (no gap, no duplicate)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.support.functional import rows

DBT = str(Path(sys.executable).with_name("dbt"))
FIRST_DAY = date(2025, 1, 1)


def day(offset: int) -> date:
    return FIRST_DAY + timedelta(days=offset)


def ts(value: date) -> str:
    """A state log timestamp ('YYYY-MM-DD HH:MM:SS') of midnight on `value`."""
    return f"{value.isoformat()} 00:00:00"


# --- source data -------------------------------------------------------------------------


def random_events(seed: int, days: int, per_day: tuple[int, int] = (0, 6)) -> list[tuple]:
    """(event_id, event_ts, event_date, customer_id, amount) rows: a seeded random number of
    events a day (some days none), at random times, with random customers and amounts."""
    rng = random.Random(seed)
    out: list[tuple] = []
    for offset in range(days):
        for _ in range(rng.randint(*per_day)):
            moment = datetime.combine(day(offset), datetime.min.time()) + timedelta(
                seconds=rng.randrange(86400)
            )
            out.append(
                (len(out) + 1, moment, moment.date(), rng.randint(1, 5), rng.randint(1, 999))
            )
    return out


def create_events(project: Any, name: str, events: Iterable[tuple], fmt: str) -> str:
    """Create the source table `name` holding `events` in one statement."""
    table = f"{project.test_schema}.{name}"
    values = ",\n".join(
        f"({i}, timestamp'{t:%Y-%m-%d %H:%M:%S}', date'{d}', {c}, {a})" for i, t, d, c, a in events
    )
    project.run_sql(
        f"create table {table} (event_id int, event_ts timestamp, event_date date, "
        f"customer_id int, amount int) using {fmt}"
    )
    if values:
        project.run_sql(f"insert into {table} values {values}")
    return table


def daily_totals(events: Iterable[tuple]) -> dict[date, tuple[int, int]]:
    """event_date -> (count, sum of amount): what a daily aggregate model holds."""
    out: dict[date, tuple[int, int]] = {}
    for _, _, d, _, amount in events:
        n, total = out.get(d, (0, 0))
        out[d] = (n + 1, total + amount)
    return out


# --- dbt as a subprocess -----------------------------------------------------------------


def dbt_command(
    project: Any,
    *args: str,
    vars: dict[str, Any] | None = None,
    tag: str = "",
    profiles_dir: str | Path | None = None,
) -> list[str]:
    """A dbt command line on the test project, logging to <project>/logs[_tag]/dbt.log; `tag`
    gives the process its own target and log paths (two dbt processes must not share them);
    `profiles_dir` replaces the test's profile."""
    root = Path(project.project_root)
    profiles = str(profiles_dir or project.profiles_dir)
    cmd = [DBT, *args, "--project-dir", str(root), "--profiles-dir", profiles]
    cmd += ["--log-path", str(root / (f"logs_{tag}" if tag else "logs"))]
    if tag:
        cmd += ["--target-path", f"target_{tag}"]
    if vars:
        cmd += ["--vars", json.dumps(vars)]
    return cmd


def dbt_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
    env["NO_COLOR"] = "1"
    return env


def run_dbt_process(
    project: Any,
    *args: str,
    vars: dict[str, Any] | None = None,
    tag: str = "",
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        dbt_command(project, *args, vars=vars, tag=tag),
        cwd=project.project_root,
        env=dbt_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# a loud failure of one of two dbt processes writing at once: the table format's conflict of two
# writers of one table, or (a loaded 2-core CI machine) the server dropping a session
LOUD = ("Concurrent", "conflict", "TTransportException")


def run_at_once(
    project: Any,
    commands: dict[str, list[str]],
    vars: dict[str, Any] | None = None,
    timeout: float = 600,
) -> None:
    """Run one dbt process per tag of `commands` (tag -> its dbt arguments, with `vars`) at
    once, each with its own target and log paths (dbt_command), and wait for them all: a
    process that fails must fail loudly (LOUD), and one at least must succeed (the caller's
    checks of the tables and the log after show any wrong success)."""
    procs = [
        subprocess.Popen(
            dbt_command(project, *args, vars=vars, tag=tag),
            cwd=project.project_root,
            env=dbt_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for tag, args in commands.items()
    ]
    outputs = [proc.communicate(timeout=timeout)[0] for proc in procs]
    for proc, out in zip(procs, outputs, strict=True):
        if proc.returncode != 0:
            assert any(word.lower() in out.lower() for word in LOUD), out[-3000:]
    assert any(proc.returncode == 0 for proc in procs), outputs[0][-3000:]


@dataclass
class Killed:
    """What a kill trial did: the event it waited for, and whether dbt was killed mid-run."""

    event: str
    delay: float
    killed: bool
    returncode: int
    output: list[str] = field(default_factory=list)


def run_and_kill(
    cmd: list[str],
    cwd: str,
    trigger: Callable[[str], bool],
    delay: float,
    timeout: float,
    group: bool = False,
) -> Killed:
    """Run `cmd`, and SIGKILL it `delay` seconds after the first output line for which
    `trigger` is true (never when no line matches). Bounded by `timeout`. With `group`, the
    whole process group dies at once: dbt and the Spark JVM of its session (a machine crash)."""
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=dbt_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
        start_new_session=group,
    )

    def kill() -> None:
        if group:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            os.kill(proc.pid, signal.SIGKILL)

    lines: list[str] = []
    fired = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if not fired.is_set() and trigger(line):
                fired.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + timeout
    killed = False
    while proc.poll() is None and time.monotonic() < deadline:
        if fired.wait(0.05):
            time.sleep(delay)
            if proc.poll() is None:
                kill()
                killed = True
            break
    if proc.poll() is None and not killed:  # the time bound
        kill()
        killed = True
    proc.wait(timeout=30)
    if group:  # the JVM of the session must be gone before anyone reads what it wrote
        _wait_group_gone(proc.pid)
    reader.join(timeout=10)
    return Killed("", delay, killed, proc.returncode, lines)


def _wait_group_gone(pgid: int, timeout: float = 20) -> None:
    """Wait until no live process is left in a process group (zombies do not count)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            return
        alive = False
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                alive = True
                break
        if not alive:
            return
        time.sleep(0.1)
    raise AssertionError(f"process group {pgid} still alive {timeout}s after SIGKILL")


# --- the state log -----------------------------------------------------------------------


def replay_checked(log: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """Replay a model's log and return its processed ranges (merged); fail on a duplicate: an
    interval recorded as processed while it already was (no removal in between)."""
    covered: list[tuple[str, str]] = []
    for start, end, kind in log:
        if kind == "processed" and start >= end:
            continue  # a run of a kind without intervals: it adds nothing
        if kind == "processed":
            overlap = [(s, e) for s, e in covered if s < end and start < e]
            assert not overlap, f"[{start}, {end}) recorded again while processed: {overlap}"
            covered = merged([*covered, (start, end)])
        elif kind == "removed":
            covered = _subtract(covered, start, end)
        else:
            raise AssertionError(f"unknown row_type {kind!r}")
    return covered


def merged(ranges: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Half-open ranges merged where they touch or overlap, sorted."""
    out: list[tuple[str, str]] = []
    for s, e in sorted(ranges):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _subtract(ranges: list[tuple[str, str]], start: str, end: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for s, e in ranges:
        if e <= start or s >= end:
            out.append((s, e))
            continue
        if s < start:
            out.append((s, start))
        if e > end:
            out.append((end, e))
    return out


def table_exists(project: Any, name: str) -> bool:
    found = rows(project, f"show tables in {project.test_schema} like '{name}'")
    return any(str(r[1]).lower() == name.lower() for r in found)


def table_digest(project: Any, name: str, order_by: str = "1") -> list[tuple[Any, ...]]:
    return rows(project, f"select * from {project.test_schema}.{name} order by {order_by}")


def no_duplicate_rows(project: Any, name: str) -> bool:
    table = f"{project.test_schema}.{name}"
    total = rows(project, f"select count(*) from {table}")[0][0]
    distinct = rows(project, f"select count(*) from (select distinct * from {table})")[0][0]
    return bool(total == distinct)


# The time-range model the crash and concurrency tests run: daily totals of the events, in
# batches of two days over eight days.
DAYS = 8  # 4 batches of 2 days
BATCH = 2
EXEC = {"vulcan_execution_time": day(DAYS).isoformat()}
COLUMNS = "event_date, events, amount"

MODEL = """
{{{{ config(materialized='incremental_by_time_range', time_column='event_date',
          start='2025-01-01', batch_size={batch}) }}}}
select event_date, count(*) as events, sum(amount) as amount
from {{{{ this.schema }}}}.events
where event_date between @start_ds and @end_ds
{extra}group by event_date
"""


def model(batch: int = BATCH, extra: str = "") -> str:
    return MODEL.format(batch=batch, extra=extra)


def expected_rows(events: list[tuple], days: int = DAYS) -> list[tuple[Any, ...]]:
    totals = daily_totals(events)
    return [(d, *totals[d]) for d in sorted(totals) if d < day(days)]
