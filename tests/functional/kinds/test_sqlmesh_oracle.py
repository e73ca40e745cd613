"""SQLMesh's own tables as the reference: replay its recorded histories through dbt-vulcan.

`shared/oracle/` (beside the clone, or `$VULCAN_ORACLE_DIR`) holds, for seeded source histories,
SQLMesh's whole table after every step (one JSON file per model and seed) and `histories.py`,
which regenerates each step's source rows. For each file this test

* translates the file's SQLMesh `MODEL (...)` into a dbt model: the kind becomes
  `materialized` (`SCD_TYPE_2_BY_TIME` -> `scd_type_2_by_time`, ...), every kind property and
  `start` / `cron` become config keys of the same name and value, and `raw.<table>` becomes a
  dbt source over the test schema (see `translate`);
* replays the history: per step, overwrites the source table with the step's rows (one
  INSERT OVERWRITE from VALUES, cast to `histories.MENU_COLUMNS` / `EVENT_COLUMNS`), runs the
  model with the step's execution time pinned, reads the whole table and the intervals the run
  recorded in the state log;
* asserts that the table equals SQLMesh's `rows` as a multiset at every step, except the
  differences the oracle's README documents as deliberate (`DELIBERATE`: asserted to be exactly
  those rows), and that the intervals processed by the run cover SQLMesh's `evaluated` range.

The files of one history (e.g. `scd2_time-1` and `scd2_column-1`, both the menu of seed 1) are
replayed together, once per class, so each step is one `dbt run`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.functional import processed_rows, rows, run

ROOT = Path(__file__).resolve().parents[3]
EXEC = "vulcan_execution_time"
SCD2_FILES = [
    "scd2_time-1",
    "scd2_time-2",
    "scd2_time_docs",
    "scd2_column-1",
    "scd2_column-2",
    "scd2_column_docs",
]
TIME_RANGE_FILES = ["time_range-1", "time_range-2"]

# The oracle README's deliberate differences, (file, step) -> (SQLMesh's rows, dbt-vulcan's
# rows), in the file's column order. SCD type 2 by time, default options: a key first seen after
# the first load starts at its updated_at (the Vulcan worked example), not at 1970-01-01.
_MILKSHAKE = (4, "Milkshake", 3.99, "2020-01-02 00:00:00")
DELIBERATE: dict[tuple[str, int], tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]] = {
    ("scd2_time_docs", 1): (
        [(*_MILKSHAKE, "1970-01-01 00:00:00", None)],
        [(*_MILKSHAKE, "2020-01-02 00:00:00", None)],
    ),
    ("scd2_time_docs", 2): (
        [(*_MILKSHAKE, "1970-01-01 00:00:00", "2020-01-03 00:00:00")],
        [(*_MILKSHAKE, "2020-01-02 00:00:00", "2020-01-03 00:00:00")],
    ),
}

_TIMESTAMP_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?")


# ------------------------------------------------------------------------------ the oracle


def oracle_dir() -> Path | None:
    """`$VULCAN_ORACLE_DIR`, else `<repo>/../shared/oracle`; None when it is not there."""
    configured = os.environ.get("VULCAN_ORACLE_DIR")
    folder = Path(configured) if configured else ROOT.parent / "shared" / "oracle"
    return folder if (folder / "histories.py").is_file() else None


@dataclass
class Oracle:
    folder: Path
    histories: ModuleType
    files: dict[str, dict[str, Any]]


@pytest.fixture(scope="module")
def oracle() -> Oracle:
    """The oracle's files and `histories.py` (imported by path); skipped when the folder is
    absent, except in CI (env CI set), where shared/ always sits beside the clone."""
    folder = oracle_dir()
    if folder is None:
        where = os.environ.get("VULCAN_ORACLE_DIR") or ROOT.parent / "shared" / "oracle"
        reason = f"SQLMesh oracle not found at {where} (set VULCAN_ORACLE_DIR)"
        if os.environ.get("CI"):
            pytest.fail(reason + ": CI must have shared/ beside the clone")
        pytest.skip(reason)
    spec = importlib.util.spec_from_file_location(
        "vulcan_oracle_histories", folder / "histories.py"
    )
    assert spec is not None and spec.loader is not None
    histories = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = histories
    spec.loader.exec_module(histories)
    files = {}
    for name in SCD2_FILES + TIME_RANGE_FILES:
        path = folder / f"{name}.json"
        assert path.is_file(), f"oracle file missing: {path}"
        files[name] = json.loads(path.read_text())
    return Oracle(folder, histories, files)


def history_of(doc: dict[str, Any]) -> tuple[str, int]:
    """(histories.HISTORIES key, seed) of an oracle file."""
    scenario = doc["scenario"]
    if scenario.endswith("_docs"):
        return "docs_menu", 0
    return {"scd2_time": "menu", "scd2_column": "menu", "time_range": "events"}[scenario], int(
        doc["seed"]
    )


def source_table(history: tuple[str, int]) -> str:
    kind, seed = history
    return kind if kind == "docs_menu" else f"{kind}_{seed}"


def model_name(file: str) -> str:
    return file.replace("-", "_")


# ------------------------------------------------------------------------- the translation


def _value(text: str) -> Any:
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"\d+", text):
        return int(text)
    if text.startswith("[") and text.endswith("]"):
        return [_value(item) for item in text[1:-1].split(",")]
    if text[:1] == "'" and text[-1:] == "'":
        return text[1:-1]
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", text):
        return text
    raise ValueError(f"unexpected SQLMesh property value: {text!r}")


def _properties(block: str) -> dict[str, Any]:
    """`key value` lines (one property a line, trailing commas) as a dict."""
    props = {}
    for line in block.strip().splitlines():
        if not line.strip():
            continue
        key, _, value = line.strip().rstrip(",").partition(" ")
        props[key] = _value(value)
    return props


def translate(doc: dict[str, Any], table: str) -> str:
    """The dbt model of an oracle file's SQLMesh `MODEL (...)` + query."""
    match = re.fullmatch(
        r"MODEL \(\n(?P<head>.*?)\n\);\n(?P<body>.*)", doc["model_sql"], flags=re.DOTALL
    )
    assert match, doc["model_sql"]
    head = match["head"]
    kind = re.search(r"^\s*kind (?P<name>\w+) \((?P<props>.*?)\n\s*\),?$", head, re.M | re.S)
    assert kind, head
    config: dict[str, Any] = {"materialized": kind["name"].lower()}
    config.update(_properties(kind["props"]))
    outer = _properties(head[: kind.start()] + head[kind.end() :])
    assert set(outer) == {"name", "start", "cron"}, outer
    config |= {"start": outer["start"], "cron": outer["cron"]}
    body = re.sub(r"\braw\.\w+\b", "{{ source('raw', '" + table + "') }}", match["body"])
    assert "{{ source(" in body, match["body"]
    args = ", ".join(f"{k}={v!r}" for k, v in config.items())
    return "{{ config(" + args + ") }}\n" + body


def sources_yml(tables: list[str]) -> str:
    listed = "".join(f"      - name: {t}\n" for t in tables)
    return (
        'version: 2\nsources:\n  - name: raw\n    schema: "{{ target.schema }}"\n'
        f"    tables:\n{listed}"
    )


# ------------------------------------------------------------------------------ the replay


def _literal(value: Any, histories: ModuleType) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool) or not isinstance(value, int | float):
        text = str(histories.jsonable(value))
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return repr(value)


def load(
    project: Any, histories: ModuleType, table: str, columns: list[tuple[str, str]], data: list
) -> None:
    """Overwrite the source table with a step's rows: one INSERT OVERWRITE from VALUES."""
    relation = f"{project.test_schema}.{table}"
    casts = ", ".join(f"CAST(c{i} AS {kind}) AS {name}" for i, (name, kind) in enumerate(columns))
    if data:
        values = ", ".join(
            "(" + ", ".join(_literal(v, histories) for v in row) + ")" for row in data
        )
        aliases = ", ".join(f"c{i}" for i in range(len(columns)))
        query = f"SELECT {casts} FROM VALUES {values} AS v({aliases})"
    else:
        nulls = ", ".join(f"CAST(NULL AS {kind}) AS {name}" for name, kind in columns)
        query = f"SELECT {nulls} WHERE FALSE"
    project.run_sql(f"INSERT OVERWRITE TABLE {relation} {query}")


def normalize(value: Any, histories: ModuleType) -> Any:
    """A value in the oracle's JSON form (timestamps read as text are parsed first)."""
    if isinstance(value, str) and _TIMESTAMP_TEXT.fullmatch(value):
        value = datetime.fromisoformat(value)
    return histories.jsonable(value)


@dataclass
class StepResult:
    tables: dict[str, Counter] = field(default_factory=dict)
    processed: dict[str, list[tuple[datetime, datetime]]] = field(default_factory=dict)


def replay(
    project: Any, oracle: Oracle, history: tuple[str, int], files: list[str]
) -> list[StepResult]:
    """Run the history through the models of `files`: each model's table and newly processed
    intervals after every step."""
    hist = oracle.histories
    kind, seed = history
    table = source_table(history)
    columns = hist.COLUMNS[kind]
    types = ", ".join(f"{name} {t}" for name, t in columns)
    project.run_sql(f"CREATE TABLE {project.test_schema}.{table} ({types}) USING parquet")
    models = {f: model_name(f) for f in files}
    seen = dict.fromkeys(models.values(), 0)
    results = []
    for step in hist.HISTORIES[kind](seed):
        load(project, hist, table, columns, step.rows)
        run("run", "-s", *models.values(), vars={EXEC: hist.jsonable(step.execution_time)})
        result = StepResult()
        for file, name in models.items():
            select = ", ".join(oracle.files[file]["columns"])
            found = rows(project, f"select {select} from {project.test_schema}.{name}")
            result.tables[file] = Counter(tuple(normalize(v, hist) for v in r) for r in found)
            processed = processed_rows(project, name)
            result.processed[file] = [
                (datetime.fromisoformat(s), datetime.fromisoformat(e))
                for s, e in processed[seen[name] :]
            ]
            seen[name] = len(processed)
        results.append(result)
    return results


def _covers(processed: list[tuple[datetime, datetime]], start: datetime, end: datetime) -> bool:
    """Whether the union of the processed intervals contains [start, end)."""
    reached = start
    for s, e in sorted(processed):
        if s <= reached < e:
            reached = e
    return reached >= end


def _show(counter: Counter) -> str:
    listed = sorted(counter.elements(), key=repr)
    return "\n".join(f"      {r}" for r in listed) or "      (none)"


def check_file(oracle: Oracle, file: str, results: list[StepResult]) -> None:
    """Every step of `file` against dbt-vulcan's results; one failure listing every step."""
    doc = oracle.files[file]
    hist = oracle.histories
    kind, seed = history_of(doc)
    steps = hist.HISTORIES[kind](seed)
    assert len(doc["steps"]) == len(steps) == len(results), file
    problems = []
    for index, (expected, step, result) in enumerate(
        zip(doc["steps"], steps, results, strict=True)
    ):
        label = f"{file} step {index} ({expected['execution_time']})"
        # the regenerated source is the one SQLMesh saw
        assert expected["execution_time"] == hist.jsonable(step.execution_time), label
        assert expected["source_sha256"] == hist.step_digest(step.rows), f"{label}: source drift"
        assert expected["source_rows"] == len(step.rows), label

        sqlmesh = Counter(tuple(r[c] for c in doc["columns"]) for r in expected["rows"])
        ours = result.tables[file]
        only_sqlmesh, only_ours = sqlmesh - ours, ours - sqlmesh
        deliberate = DELIBERATE.get((file, index), ([], []))
        if (only_sqlmesh, only_ours) != (Counter(deliberate[0]), Counter(deliberate[1])):
            problems.append(
                f"{label}: table differs ({sum(ours.values())} rows, SQLMesh "
                f"{sum(sqlmesh.values())}; columns {', '.join(doc['columns'])})\n"
                f"    only in SQLMesh's table:\n{_show(only_sqlmesh)}\n"
                f"    only in dbt-vulcan's table:\n{_show(only_ours)}\n"
                f"    documented deliberate difference: {deliberate}"
            )
        for evaluated in expected["evaluated"]:
            start = datetime.fromisoformat(evaluated["start"])
            end = datetime.fromisoformat(evaluated["end"])
            if not _covers(result.processed[file], start, end):
                problems.append(
                    f"{label}: processed intervals {result.processed[file]} do not cover "
                    f"SQLMesh's evaluated [{evaluated['start']}, {evaluated['end']})"
                )
    assert not problems, "dbt-vulcan differs from SQLMesh:\n" + "\n".join(problems)


class _OracleReplay:
    """One class per scenario family: the models of FILES in one project; a test per file."""

    FILES: list[str] = []

    @pytest.fixture(scope="class")
    def models(self, oracle: Oracle) -> dict[str, str]:
        models = {}
        tables = []
        for file in self.FILES:
            table = source_table(history_of(oracle.files[file]))
            models[f"{model_name(file)}.sql"] = translate(oracle.files[file], table)
            tables.append(table)
        models["sources.yml"] = sources_yml(sorted(set(tables)))
        return models

    @pytest.fixture(scope="class")
    def replays(self) -> dict[tuple[str, int], Any]:
        return {}

    def check(self, oracle: Oracle, project: Any, replays: dict, file: str) -> None:
        history = history_of(oracle.files[file])
        if history not in replays:
            files = [f for f in self.FILES if history_of(oracle.files[f]) == history]
            try:
                replays[history] = replay(project, oracle, history, files)
            except BaseException as error:
                replays[history] = error
                raise
        done = replays[history]
        if isinstance(done, BaseException):
            pytest.fail(f"the replay of history {history} failed in an earlier test: {done}")
        check_file(oracle, file, done)


# the rewrite (parquet) and the MERGE (Iceberg; Delta runs the same MERGE from a stage table,
# which the spec's menus in test_scd2.py cover there)
@pytest.mark.profile_only("parquet", "iceberg")
class TestScd2MatchesSqlmesh(_OracleReplay):
    """SCD type 2 by time and by column: seeded menus (seeds 1, 2) and the docs' menu."""

    FILES = SCD2_FILES

    @pytest.mark.parametrize("file", SCD2_FILES)
    def test_every_step(self, oracle: Oracle, project: Any, replays: dict, file: str) -> None:
        self.check(oracle, project, replays, file)


@pytest.mark.profile_only("parquet", "delta")
class TestTimeRangeMatchesSqlmesh(_OracleReplay):
    """incremental_by_time_range, lookback 2: late rows and catch-up runs of several days."""

    FILES = TIME_RANGE_FILES

    @pytest.mark.parametrize("file", TIME_RANGE_FILES)
    def test_every_step(self, oracle: Oracle, project: Any, replays: dict, file: str) -> None:
        self.check(oracle, project, replays, file)
