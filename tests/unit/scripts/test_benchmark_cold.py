"""The fresh-process benchmark's log reading and goals (benchmarks/cold.py, cold_report.py)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.cold_process import parse_log
from benchmarks.cold_report import goals, statement_label

NODE = "model.bench.daily_vulcan"


def _event(name: str, ts: str, thread: str = "Thread-1", **data: object) -> str:
    return json.dumps({"data": data, "info": {"name": name, "ts": ts, "thread": thread}})


def _log(tmp_path: Path) -> Path:
    node = {"node_info": {"unique_id": NODE}}
    lines = [
        # another connection's statement (dbt's relation cache) is not the model's
        _event("SQLQuery", "2026-01-01T00:00:00.000000Z", "Main", conn_name="list_s", sql="show"),
        _event("SQLQueryStatus", "2026-01-01T00:00:05.000000Z", "Main", elapsed=5.0),
        _event("NodeExecuting", "2026-01-01T00:00:10.000000Z", **node),
        _event(
            "SQLQuery",
            "2026-01-01T00:00:10.500000Z",
            conn_name=NODE,
            sql="with vulcan_log as (select * from s.vulcan_intervals)",
        ),
        _event("SQLQueryStatus", "2026-01-01T00:00:11.000000Z", elapsed=0.5),
        "not json",
        _event(
            "SQLQuery",
            "2026-01-01T00:00:14.000000Z",
            conn_name=NODE,
            sql="/* c */ insert overwrite t",
        ),
        _event("SQLQueryStatus", "2026-01-01T00:00:16.000000Z", elapsed=2.0),
        _event("NodeFinished", "2026-01-01T00:00:16.250000Z", **node),
    ]
    path = tmp_path / "dbt.log"
    path.write_text("\n".join(lines))
    return path


def test_parse_log_gives_the_models_statements_durations_and_gaps(tmp_path: Path) -> None:
    statements, span, tail = parse_log(_log(tmp_path), NODE)
    assert [(s.category, s.start, s.seconds, s.gap_before) for s in statements] == [
        ("state", 0.5, 0.5, 0.5),
        ("write", 4.0, 2.0, 3.0),
    ]
    assert (span, tail) == (6.25, 0.25)


def test_parse_log_of_another_node_is_empty(tmp_path: Path) -> None:
    assert parse_log(_log(tmp_path), "model.bench.other") == ([], 0.0, 0.0)


def _run(
    scenario: str,
    system: str,
    seconds: float,
    statements: int,
    wall: float = 20.0,
    gap: float = 0.0,
) -> dict:
    sql = [{"sql": "x", "category": "write", "start": 0, "seconds": 0, "gap_before": gap}]
    return {
        "scenario": scenario,
        "system": system,
        "execution_time": seconds,
        "wall": wall,
        "statements": sql * statements,
        "tail_gap": 0.0,
    }


READ = "/* {} */\nselect relation, model_id from s.vulcan_intervals"
APPEND = "/* {} */\ninsert overwrite table s.vulcan_intervals select 1"


def _statement(sql: str, category: str, seconds: float) -> dict:
    return {"sql": sql, "category": category, "start": 0, "seconds": seconds, "gap_before": 0}


def _stateful(
    scenario: str, system: str, seconds: float, wall: float = 20.0, reads: int = 1, writes: int = 1
) -> dict:
    """A run of the floor: its state read(s), its write(s), one append (0.2 + 0.3 s)."""
    statements = [_statement(READ, "state", 0.2)] * reads
    statements += [_statement("insert overwrite t", "write", 3.0)] * writes
    return {
        **_run(scenario, system, seconds, 0, wall),
        "statements": [*statements, _statement(APPEND, "state", 0.3)],
    }


def test_goals_hold_a_run_to_its_counterpart_plus_its_own_read_and_append() -> None:
    """One new day: microbatch's write + the run's read and append + 0.10 s, the wall 1.05x
    (adapter) or 1.10x (package); the backfill: insert_overwrite's model time + the same;
    one state read and one append a run; statements the counterpart's + 2."""
    writes = [_statement("set x", "metadata", 0.1), _statement("insert t", "write", 5.0)]
    runs = [
        {**_run("one_day", "microbatch", s, 0), "statements": [*writes, *writes[1:]]}
        for s in (11.0, 12.0, 13.0)
    ]  # microbatch's write: 10.0 s, three statements
    runs += [_stateful("one_day", "vulcan", s, wall=20.8) for s in (10.0, 10.6, 19.0)]
    runs += [{**_stateful("one_day", "vulcan_package", 10.9, wall=21.9, reads=2), "tail_gap": 1.25}]
    runs += [_run("backfill", "insert_overwrite", 30.0, 2)]
    runs += [
        _stateful("backfill", "vulcan", 30.6),
        _stateful("backfill", "vulcan_package", 30.0, writes=4),
    ]
    table = {row[0]: row[1:] for row in goals({"runs": runs})}
    day = "one new day: model time ≤ microbatch's write + own read and append + 0.10 s"
    assert table[day] == ["≤ 10.00 + 0.50 + 0.10 = 10.60 s", "10.60 s", "yes"]
    package = day.replace("day:", "day (package):")
    # a miss names the runs' unlogged gaps, where the time beyond the statements is
    assert table[package] == [
        "≤ 10.00 + 0.70 + 0.10 = 10.80 s",
        "10.90 s",
        "**no**, unlogged gaps 1.25 s",
    ]
    assert table["one new day: wall / microbatch's"] == ["≤ 1.05x", "1.04x", "yes"]
    assert table["one new day (package): wall / microbatch's"] == ["≤ 1.10x", "1.09x", "yes"]
    assert table["one new day: state statements"] == ["1 read + 1 append"] * 2 + ["yes"]
    assert table["one new day (package): state statements"][1:] == ["2 read + 1 append", "**no**"]
    assert table["one new day: statements"] == ["≤ 3 + 2", "3", "yes"]
    fill = "backfill: model time ≤ insert_overwrite's + own read and append + 0.10 s"
    assert table[fill] == ["≤ 30.00 + 0.50 + 0.10 = 30.60 s", "30.60 s", "yes"]
    assert table["backfill: statements"] == ["≤ 2 + 2", "3", "yes"]
    assert table["backfill (package): statements"] == ["≤ 2 + 2", "6", "**no**"]
    assert "backfill: wall / microbatch's" not in table
    # results from before the `--full-refresh` scenario have no rebuild goal
    assert not any(goal.startswith("--full-refresh") for goal in table)


def test_a_full_refresh_is_held_to_insert_overwrite_s_own() -> None:
    """`--full-refresh` of the backfilled days: model time ≤ 1.0x insert_overwrite's."""
    runs = [_run("full_refresh", "insert_overwrite", s, 2) for s in (20.0, 21.0, 25.0)]
    runs += [_stateful("full_refresh", "vulcan", s) for s in (19.0, 20.5, 30.0)]
    runs += [_stateful("full_refresh", "vulcan_package", 23.1)]
    table = {row[0]: row[1:] for row in goals({"runs": runs})}
    assert table["--full-refresh: model time / insert_overwrite's"] == ["≤ 1.00x", "0.98x", "yes"]
    package = "--full-refresh (package): model time / insert_overwrite's"
    assert table[package] == ["≤ 1.00x", "1.10x", "**no**"]


def test_statement_label_names_the_plan_and_strips_dbts_comment() -> None:
    assert statement_label("/* {} */\n with vulcan_log as (...)").startswith("the plan")
    assert statement_label("/* {} */\nselect inline(concat(transform(x)))").startswith("the plan")
    read = "select relation, model_id, interval_start, interval_end, row_type from s.t"
    assert statement_label(read) == "the plan: one read of the interval log (planned in Jinja)"
    assert (
        statement_label('/* {"a": 1} */\ninsert   into t\nvalues (1)') == "insert into t values (1)"
    )


def test_projects_connect_as_told(tmp_path: Path) -> None:
    """The embedded session by default; a server's connection keys replace it (--target thrift)."""
    import yaml

    from benchmarks.project import write_project

    params = {"spark.master": "local[2]"}
    write_project(tmp_path / "session", params, "parquet", adapter_type="vulcan")
    thrift = {"method": "thrift", "host": "127.0.0.1", "port": 10001, "user": "dbt"}
    write_project(tmp_path / "thrift", params, "parquet", adapter_type="spark", connection=thrift)

    def target(folder: str) -> dict[str, object]:
        profile = yaml.safe_load((tmp_path / folder / "profiles.yml").read_text())
        return dict(profile["bench"]["outputs"]["bench"])

    assert target("session") == {
        "type": "vulcan",
        "method": "session",
        "host": "localhost",
        "server_side_parameters": params,
        "schema": "bench",
        "threads": 1,
        "state_file_format": "parquet",
    }
    assert target("thrift") == {"type": "spark", **thrift, "schema": "bench", "threads": 1}


def _kind_run(
    pair: str, system: str, day: int, seconds: float, wall: float = 30.0, statements: int = 2
) -> dict:
    return {**_run(pair, system, seconds, statements, wall), "rep": day}


def test_kinds_goals_compare_daily_medians_with_the_dbt_counterpart() -> None:
    """Day 0 (the initial load) stays out of the goals; each mode against the counterpart:
    its model time + the run's own read and append + 0.10 s, its statements + 2; the unique
    key's MERGE at dbt's; tracked at most 2.0x."""
    from benchmarks.cold_report import kinds_section
    from benchmarks.kinds import PAIRS

    runs = []
    for pair in PAIRS:
        runs += [_kind_run(pair, "dbt", 0, 1.0)] + [
            _kind_run(pair, "dbt", d, s) for d, s in ((1, 4.0), (2, 5.0), (3, 6.0))
        ]
        runs += [_kind_run(pair, "vulcan", 0, 99.0)] + [
            _kind_run(pair, "vulcan", d, s) for d, s in ((1, 4.0), (2, 4.5), (3, 9.0))
        ]
        many = 5 if pair == "partition" else 2
        runs += [_kind_run(pair, "vulcan_package", d, 6.0, statements=many) for d in range(4)]
    for run in runs:  # the MERGEs: dbt's 2.0 s, the adapter's 2.4 s, the package's none
        if run["scenario"] == "unique_key" and run["system"] != "vulcan_package":
            seconds = 2.0 if run["system"] == "dbt" else 2.4
            run["statements"] = [_statement("/* c */\n-- a\nmerge into t", "write", seconds)]
            run["statements"] += [_statement(READ, "state", 0.2), _statement(APPEND, "state", 0.3)]
    kinds = {"runs": runs, "checks": [], "keys": 1000, "days": 3}
    lines = kinds_section(kinds)
    time = "model time ≤ the counterpart's + own read and append + 0.10 s"
    assert f"| unique key: {time} | ≤ 5.00 + 0.50 + 0.10 = 5.60 s | 4.50 s | yes |" in lines
    assert (
        f"| unique key (package): {time} | ≤ 5.00 + 0.00 + 0.10 = 5.10 s | 6.00 s "
        "| **no**, unlogged gaps 0.00 s |"
    ) in lines
    merge = "its MERGE / dbt's MERGE (`skip_unchanged_rows: true`)"
    assert f"| unique key: {merge} | ≤ 1.00x | 1.20x | **no** |" in lines
    assert f"| unique key (package): {merge} | ≤ 1.00x | not measured | not measured |" in lines
    assert (
        f"| SCD type 2 by column: {time} | ≤ 5.00 + 0.00 + 0.10 = 5.10 s | 4.50 s | yes |" in lines
    )
    # statements: the counterpart's (two here) + 2
    assert "| unmanaged: statements | ≤ 2 + 2 | 2 | yes |" in lines
    assert "| partition (package): statements | ≤ 2 + 2 | 5 | **no** |" in lines
    # tracked: its own time goal, its flatness not measured at one size
    assert (
        "| tracked: model time / dbt-spark merge, whole snapshot | ≤ 2.00x | 0.90x | yes |" in lines
    )
    assert not any(line.startswith(f"| tracked: {time}") for line in lines)
    flat = "| tracked (package): that ratio from 1M to 10M rows | flat within the run's spread |"
    assert f"{flat} not measured (one size) | not measured |" in lines
    assert not any("that ratio" in line for line in kinds_section(kinds, scaled=True))
    initial = [line for line in lines if line.startswith("| partition | dbt-vulcan |")]
    assert initial and "| 99.00 s | 4.50 s | 4.0, 4.5, 9.0 |" in initial[0]


def test_kinds_at_several_sizes_hold_tracked_s_ratio_flat_within_the_spread() -> None:
    """--kind-keys: tracked's ratio at the largest size at most the smallest's plus the run's
    spread (the narrower range of the day-by-day ratios); the other kinds' shown."""
    from benchmarks.cold_report import scale_section

    def scale(keys: int, vulcan: float, days: tuple[float, ...]) -> dict[str, object]:
        runs = [_kind_run("unique_key", "dbt", d, 2.0) for d in range(4)]
        runs += [_kind_run("unique_key", "vulcan", d, vulcan) for d in range(4)]
        runs += [_kind_run("unique_key", "vulcan_package", d, 2.0) for d in range(4)]
        runs += [_kind_run("tracked", "dbt", d, 1.0) for d in range(4)]
        runs += [_kind_run("tracked", "vulcan", d, s) for d, s in enumerate((9.0, *days))]
        runs += [_kind_run("tracked", "vulcan_package", d, 3.0) for d in range(4)]
        return {"runs": runs, "checks": [], "keys": keys, "days": 3}

    small, large = scale(1_000_000, 3.0, (1.7, 1.8, 2.1)), scale(10_000_000, 5.0, (2.0, 2.2, 2.3))
    lines = scale_section([large, small])  # any order
    head = "| a daily run's model time, over the counterpart's | 1,000,000 rows | 10,000,000 rows |"
    assert any(line.startswith(head) for line in lines), lines
    assert "| unique key / dbt-spark merge | 1.50x | 2.50x | 0.00 | - |" in lines
    # 1.80x -> 2.20x: a rise of 0.40 against day-by-day ranges of 0.40 and 0.30
    assert "| tracked / dbt-spark merge, whole snapshot | 1.80x | 2.20x | 0.30 | **no** |" in lines
    assert (
        "| tracked (package) / dbt-spark merge, whole snapshot | 3.00x | 3.00x | 0.00 | yes |"
        in lines
    )
    assert not [line for line in lines if line.startswith("| partition")]  # not run


def test_kinds_checks_read_each_systems_table_and_its_valid_to() -> None:
    from benchmarks.kinds import checks_sql

    scd = checks_sql("scd_by_time")
    assert "from kinds_dbt.snap_timestamp" in scd["dbt"] and "dbt_valid_to is null" in scd["dbt"]
    assert "from kinds_package.kind_scd_by_time" in scd["vulcan_package"]
    assert "dbt_valid_to" not in scd["vulcan"] and "valid_to is null" in scd["vulcan"]
    merge = checks_sql("unique_key")
    assert merge["dbt"].endswith("from kinds_dbt.kind_merge")
    assert merge["vulcan"].endswith("from kinds_adapter.kind_unique_key")


def test_kinds_projects_hold_the_pairs_and_a_state_table_of_their_own(tmp_path: Path) -> None:
    import yaml

    from benchmarks.cold_process import Projects
    from benchmarks.kinds import MODELS, PAIRS, SNAPSHOTS, STATE_SCHEMA, write_projects

    projects = Projects(tmp_path)
    projects.deps = lambda *names: None  # type: ignore[method-assign]
    write_projects(projects, {"spark.master": "local[2]"}, None)
    package = projects.folder("kinds_package")
    assert sorted(p.stem for p in (package / "models").glob("*.sql")) == sorted(MODELS)
    assert sorted(p.stem for p in (package / "snapshots").glob("*.sql")) == sorted(SNAPSHOTS)
    for _, model, _, verb, node in PAIRS.values():
        assert model in MODELS and node in (SNAPSHOTS if verb == "snapshot" else MODELS)
    project = yaml.safe_load((package / "dbt_project.yml").read_text())
    assert project["vars"]["vulcan_state_schema"] == STATE_SCHEMA
    assert "vulcan_state_file_format" not in project["vars"]  # the default, as users run
    adapter = yaml.safe_load((projects.folder("kinds_adapter") / "profiles.yml").read_text())
    target = adapter["bench"]["outputs"]["bench"]
    assert (target["state_schema"], target["state_file_format"]) == (STATE_SCHEMA, "parquet")


def test_job_has_25_models_in_four_layers_with_the_same_queries_in_both_systems() -> None:
    """dbt-vulcan's models filter their inputs with the time tokens; microbatch's leave it to
    dbt-core (event_time); otherwise the two jobs are the same."""
    from benchmarks.job import models

    vulcan, microbatch = models("vulcan_package"), models("microbatch")
    assert sorted(vulcan) == sorted(microbatch)
    layers = [name.split("_", 1)[0] for name in vulcan]
    assert (len(vulcan), layers.count("stg"), layers.count("mart"), layers.count("top")) == (
        25,
        10,
        10,
        5,
    )
    assert "ref('stg_4_1')" in vulcan["mart_9"] and "ref('stg_0_0')" in vulcan["mart_9"]
    assert "ref('mart_8')" in vulcan["top_4"] and "ref('mart_9')" in vulcan["top_4"]
    for name, sql in vulcan.items():
        assert sql.startswith("{{ config(materialized='incremental_by_time_range'")
        assert sql.split("\n", 1)[0].endswith("file_format='parquet') }}")
        assert "@start_ds and @end_ds" in sql, name
        body = sql.split("}}", 1)[1]
        other = microbatch[name]
        assert other.startswith("{{ config(materialized='incremental', incremental_strategy=")
        assert other.split("\n", 1)[0].endswith("file_format='parquet') }}")
        assert "@start_ds" not in other
        strip = body.replace(" and event_date between @start_ds and @end_ds", "")
        assert (
            strip.replace("where event_date between @start_ds and @end_ds\n", "")
            == (other.split("}}", 1)[1])
        )


def test_job_report_compares_the_walls_of_a_new_day_and_sums_statements_by_kind() -> None:
    from benchmarks.cold_report import job_section
    from benchmarks.job import statement_kind

    assert statement_kind("insert into s.vulcan_intervals values (1)", "state") == "state append"
    appended = '/* {"app": "dbt", "node_id": "model.b.m"} */\ninsert into s.vulcan_intervals'
    assert statement_kind(appended, "state") == "state append"
    assert statement_kind("with vulcan_log as (select 1)", "state") == "state read"
    assert statement_kind("insert overwrite t select 1", "write") == "write"

    def run(
        scenario: str, system: str, rep: int, wall: float, write: float, reads: int = 25
    ) -> dict:
        return {
            "scenario": scenario,
            "system": system,
            "rep": rep,
            "wall": wall,
            "model_seconds": {"stg_0_0": 1.0, "top_0": 2.0},
            "statement_seconds": {"write": write, "state read": 0.5},
            "statement_counts": {"write": 25, "state read": reads},
            "gaps": 3.0,
        }

    runs = [run("job_backfill", "vulcan_package", 1, 60.0, 40.0)]
    runs += [run("job_backfill", "vulcan", 1, 50.0, 40.0, 1)]
    runs += [run("job_backfill", "microbatch", 1, 300.0, 200.0)]
    runs += [
        run("job_one_day", "vulcan_package", r, w, 9.0) for r, w in ((1, 22), (2, 20), (3, 30))
    ]
    runs += [run("job_one_day", "vulcan", r, w, 9.0, 1) for r, w in ((1, 19), (2, 18), (3, 17))]
    runs += [run("job_one_day", "microbatch", r, w, 5.0) for r, w in ((1, 15), (2, 16), (3, 14))]
    checks = [{"what": "job day 30, mart_0", "ok": True, "values": {}}]
    checks += [{"what": "job day 30, top_0", "ok": False, "values": {"microbatch": [1, 2]}}]
    job = {"runs": runs, "checks": checks, "days": 30, "models": 25, "threads": 8}
    lines = job_section(job)
    # 22 / 15 (package), 18 / 15 (adapter)
    wall = "| one new day of the job (package): wall / microbatch's | ≤ 1.50x | 1.47x | yes |"
    assert wall in lines
    assert "| one new day of the job: wall / microbatch's | ≤ 1.25x | 1.20x | yes |" in lines
    # the package: one read and one append a model (25 reads, no append here); the adapter:
    # one read a job
    state = "| one new day of the job (package): state statements | 1 read a model + 1 append"
    assert f"{state} a model (25 + 25) | 25 + 0 | **no** |" in lines
    state = "| one new day of the job: state statements | 1 read a job + at most 1 append a model"
    assert f"{state} (1 + ≤ 25) | 1 + 0 | **no** |" in lines
    row = next(line for line in lines if line.startswith("| dbt-vulcan package |"))
    assert row.startswith("| dbt-vulcan package | 60.0 s | 22.0 s | 22.0, 20.0, 30.0 | 3.0 s |")
    assert "| 9.0 s (25) | 0.5 s (25) | 0.0 s (0) |" in row
    row = next(line for line in lines if line.startswith("| dbt-vulcan, `type: vulcan` |"))
    assert "| 9.0 s (25) | 0.5 s (1) | 0.0 s (0) |" in row
    assert "- 1 of 2 tables the same in every system after each round (job day 30)" in lines
    assert any(line.startswith("- **DIFFERENT**: job day 30, top_0") for line in lines)


def test_job_projects_run_eight_threads_with_the_models_in_one_folder(tmp_path: Path) -> None:
    import yaml

    from benchmarks.cold_process import Projects
    from benchmarks.job import PROJECT, STATE_SCHEMA, models, write_projects

    projects = Projects(tmp_path)
    projects.deps = lambda *names: None  # type: ignore[method-assign]
    write_projects(projects, {"spark.master": "local[2]"}, None)
    for system, name in PROJECT.items():
        folder = projects.folder(name)
        assert sorted(p.stem for p in (folder / "models" / "jobs").glob("*.sql")) == sorted(
            models(system)
        )
        assert not list((folder / "snapshots").glob("*.sql"))
        target = yaml.safe_load((folder / "profiles.yml").read_text())["bench"]["outputs"]["bench"]
        adapter_type = "vulcan" if system == "vulcan" else "spark"
        assert (target["type"], target["threads"]) == (adapter_type, 8)
        project = yaml.safe_load((folder / "dbt_project.yml").read_text())
        assert project["vars"]["vulcan_state_schema"] == STATE_SCHEMA
