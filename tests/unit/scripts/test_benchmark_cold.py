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


def test_goals_are_ratios_of_medians_and_statement_maxima() -> None:
    """Issue 49's goals: 1.25x microbatch's model time, 1.05x its wall, its gaps + 0.10 s."""
    runs = [_run("one_day", "microbatch", s, 4, gap=0.3) for s in (8.0, 10.0, 9.0)] + [
        _run("one_day", "vulcan", s, 4, gap=g) for s, g in ((7.0, 0.3), (20.0, 0.5), (7.2, 0.6))
    ]
    runs += [_run("one_day", "vulcan_package", 12.0, 6, wall=21.5)]
    runs += [_run("backfill", "insert_overwrite", 30.0, 2), _run("backfill", "raw", 20.0, 2)]
    runs += [_run("backfill", "vulcan", 27.0, 5), _run("backfill", "vulcan_package", 27.0, 9)]
    table = {row[0]: (row[1], row[2], row[3]) for row in goals({"runs": runs})}
    assert table["one new day: model time / microbatch's"] == ("≤ 1.25x (1.0x)", "0.80x", "yes")
    assert table["one new day (package): model time / microbatch's"][1:] == ("1.33x", "**no**")
    assert table["one new day: wall time / microbatch's"] == ("≤ 1.05x", "1.00x", "yes")
    assert table["one new day (package): wall time / microbatch's"][1:] == ("1.07x", "**no**")
    # the gaps of four statements each: microbatch's median 1.20 s, vulcan's 2.00 s
    gaps = table["one new day: gaps between statements"]
    assert gaps == ("≤ microbatch's 1.20 s + 0.10 s", "2.00 s", "**no**")
    assert table["one new day (package): gaps between statements"][1:] == ("0.00 s", "yes")
    assert table["backfill: model time / insert_overwrite's"] == ("≤ 1.0x", "0.90x", "yes")
    assert table["backfill: model time / raw statements'"][1:] == ("1.35x", "**no**")
    assert table["statements, one-day run (package)"][1:] == ("6", "**no**")
    assert table["statements, backfill (package)"][1:] == ("9", "**no**")
    assert table["statements, backfill"][1:] == ("5", "yes")


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
    """Day 0 (the initial load) stays out of the goals; each mode against the counterpart."""
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
        many = 4 if pair == "partition" else 2
        runs += [_kind_run(pair, "vulcan_package", d, 6.0, statements=many) for d in range(4)]
    kinds = {"runs": runs, "checks": [], "keys": 1000, "days": 3}
    lines = kinds_section(kinds)
    assert "| unique key / dbt-spark merge | ≤ 1.25x | 0.90x | yes |" in lines  # 4.5 / 5.0
    assert "| unique key (package) / dbt-spark merge | ≤ 1.25x | 1.20x | yes |" in lines
    # SCD type 2 against dbt snapshot: at most its time
    assert "| SCD type 2 by column / dbt snapshot, check | ≤ 1.00x | 0.90x | yes |" in lines
    assert (
        "| SCD type 2 by time (package) / dbt snapshot, timestamp | ≤ 1.00x | 1.20x | **no** |"
        in lines
    )
    # partition and unmanaged: no more statements than the counterpart + 1 (two each here)
    assert "| unmanaged: statements a daily run | ≤ 2 + 1 | 2 | yes |" in lines
    assert "| partition (package): statements a daily run | ≤ 2 + 1 | 4 | **no** |" in lines
    assert not any(line.startswith("| unique key: statements") for line in lines)
    initial = [line for line in lines if line.startswith("| partition | dbt-vulcan |")]
    assert initial and "| 99.00 s | 4.50 s | 4.0, 4.5, 9.0 |" in initial[0]


def test_kinds_at_several_sizes_compare_each_pair_s_ratio() -> None:
    """--kind-keys: the ratio at the largest size must not exceed the ratio at the smallest."""
    from benchmarks.cold_report import scale_section

    def scale(keys: int, vulcan: float) -> dict[str, object]:
        runs = [_kind_run("unique_key", "dbt", d, 2.0) for d in range(4)]
        runs += [_kind_run("unique_key", "vulcan", d, vulcan) for d in range(4)]
        runs += [_kind_run("unique_key", "vulcan_package", d, 2.0) for d in range(4)]
        runs += [_kind_run("tracked", s, d, 1.0) for s in ("dbt", "vulcan") for d in range(4)]
        runs += [_kind_run("tracked", "vulcan_package", d, 3.0) for d in range(4)]
        return {"runs": runs, "checks": [], "keys": keys, "days": 3}

    lines = scale_section([scale(10_000_000, 5.0), scale(1_000_000, 3.0)])  # any order
    head = "| a daily run's model time, over the counterpart's | 1,000,000 rows | 10,000,000 rows |"
    assert any(line.startswith(head) for line in lines), lines
    assert "| unique key / dbt-spark merge | 1.50x | 2.50x | **no** |" in lines
    assert "| unique key (package) / dbt-spark merge | 1.00x | 1.00x | yes |" in lines
    assert "| tracked (package) / dbt-spark merge, whole snapshot | 3.00x | 3.00x | yes |" in lines
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

    def run(scenario: str, system: str, rep: int, wall: float, write: float) -> dict:
        return {
            "scenario": scenario,
            "system": system,
            "rep": rep,
            "wall": wall,
            "model_seconds": {"stg_0_0": 1.0, "top_0": 2.0},
            "statement_seconds": {"write": write, "state read": 0.5},
            "statement_counts": {"write": 25, "state read": 25},
            "gaps": 3.0,
        }

    runs = [run("job_backfill", "vulcan_package", 1, 60.0, 40.0)]
    runs += [run("job_backfill", "microbatch", 1, 300.0, 200.0)]
    runs += [
        run("job_one_day", "vulcan_package", r, w, 9.0) for r, w in ((1, 22), (2, 20), (3, 30))
    ]
    runs += [run("job_one_day", "microbatch", r, w, 5.0) for r, w in ((1, 15), (2, 16), (3, 14))]
    checks = [{"what": "job day 30, mart_0", "ok": True, "values": {}}]
    checks += [{"what": "job day 30, top_0", "ok": False, "values": {"microbatch": [1, 2]}}]
    job = {"runs": runs, "checks": checks, "days": 30, "models": 25, "threads": 8}
    lines = job_section(job)
    # 22 / 15
    assert "| one new day of the job, wall / microbatch's | ≤ 1.1x | 1.47x | **no** |" in lines
    row = next(line for line in lines if line.startswith("| dbt-vulcan package |"))
    assert row.startswith("| dbt-vulcan package | 60.0 s | 22.0 s | 22.0, 20.0, 30.0 | 3.0 s |")
    assert "| 9.0 s (25) | 0.5 s (25) | 0.0 s (0) |" in row
    assert "- 1 of 2 tables the same in both systems after each round (job day 30)" in lines
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
        assert (target["type"], target["threads"]) == ("spark", 8)
        project = yaml.safe_load((folder / "dbt_project.yml").read_text())
        assert project["vars"]["vulcan_state_schema"] == STATE_SCHEMA
