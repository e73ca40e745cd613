"""Helpers shared by the functional tests: read tables and the interval state log."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from dbt.tests.util import run_dbt

STATE = "vulcan_state.vulcan_intervals"


def rows(project: Any, sql: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in project.run_sql(sql, fetch="all")]


def table_rows(
    project: Any, name: str, columns: str = "*", order_by: str = "1"
) -> list[tuple[Any, ...]]:
    """A table's rows; name the columns where the order matters (partitioned parquet tables
    put their partition columns last)."""
    return rows(project, f"select {columns} from {project.test_schema}.{name} order by {order_by}")


def models_table_rows(
    project: Any, names: list[str], columns: str
) -> dict[str, list[tuple[Any, ...]]]:
    """Per table, its rows in the order of table_rows (by the first of `columns`), in one query
    over all of them: a test that checks many tables after every run pays one statement, not
    one per table."""
    union = " union all ".join(
        f"select {k} as _t, {columns} from {project.test_schema}.{name}"
        for k, name in enumerate(names)
    )
    found: dict[str, list[tuple[Any, ...]]] = {name: [] for name in names}
    for row in rows(project, f"select * from ({union}) order by 1, 2"):
        found[names[row[0]]].append(tuple(row[1:]))
    return found


def models_state_rows(
    project: Any, names: list[str], state: str = STATE
) -> dict[str, list[tuple[str, str, str]]]:
    """Per model, (interval_start, interval_end, row_type) in recording (= replay) order, in
    one read of the state log; `state`: the state table, or e.g. ``parquet.`<path>` `` for one
    read by path."""
    found: dict[str, list[tuple[str, str, str]]] = {name: [] for name in names}
    by_relation = {f"{project.test_schema}.{name}".lower(): name for name in names}
    relations = ", ".join(f"'{relation}'" for relation in by_relation)
    for relation, start, end, kind in rows(
        project,
        f"select relation, interval_start, interval_end, row_type from {state} "
        f"where relation in ({relations}) "
        "order by recorded_at, seq",
    ):
        found[by_relation[str(relation)]].append((str(start), str(end), str(kind)))
    return found


def state_rows(project: Any, name: str, state: str = STATE) -> list[tuple[str, str, str]]:
    """(interval_start, interval_end, row_type) of one model (models_state_rows)."""
    return models_state_rows(project, [name], state)[name]


def processed_rows(project: Any, name: str) -> list[tuple[str, str]]:
    return [(s, e) for s, e, t in state_rows(project, name) if t == "processed"]


def table_commits(project: Any, name: str, table_format: str) -> list[dict[str, str]]:
    """The table's commits, oldest first: Delta's operation metrics, Iceberg's snapshot
    summaries (none on parquet)."""
    relation = f"{project.test_schema}.{name}"

    def as_dict(value: Any) -> dict[str, str]:  # a map: a dict, or its JSON over Thrift
        return dict(json.loads(value) if isinstance(value, str) else value or {})

    if table_format == "delta":
        found = rows(project, f"describe history {relation}")
        return [as_dict(r[12]) for r in sorted(found, key=lambda r: r[0])]
    if table_format == "iceberg":
        found = rows(project, f"select summary from {relation}.snapshots order by committed_at")
        return [as_dict(r[0]) for r in found]
    return []


def data_files(project: Any, name: str) -> set[str]:
    """The files holding the table's rows (a rewrite replaces them with new names)."""
    found = rows(project, f"select distinct input_file_name() from {project.test_schema}.{name}")
    return {str(r[0]) for r in found}


def run(*args: str, vars: dict[str, Any] | None = None, expect_pass: bool = True) -> Any:
    cmd = list(args)
    if vars:
        cmd += ["--vars", json.dumps(vars)]
    return run_dbt(cmd, expect_pass=expect_pass)


def days(start: str, count: int) -> list[date]:
    first = date.fromisoformat(start)
    return [first + timedelta(days=i) for i in range(count)]


def orders_csv(start: str = "2025-01-01", count: int = 20, per_day: int = 3) -> str:
    """Deterministic orders: `per_day` orders a day, amounts derived from the id."""
    lines = ["order_id,order_date,customer_id,total_amount"]
    order_id = 0
    for day in days(start, count):
        for _ in range(per_day):
            order_id += 1
            lines.append(f"{order_id},{day},{order_id % 7 + 1},{order_id * 10 + 0.5}")
    return "\n".join(lines) + "\n"


def model_message(result: Any) -> str:
    """The message of the first model in a dbt run's results (the package's on-run-start hook,
    which creates the state table, is a result too)."""
    return next(str(r.message) for r in result.results if r.node.resource_type != "operation")


# the embedded targets' session time zone (conftest.py: the profile reads it when dbt loads it)
SESSION_TZ_VAR = "VULCAN_TEST_SESSION_TZ"


@contextmanager
def session_time_zone(zone: str) -> Iterator[None]:
    """The dbt invocations inside run their statements in Spark session time zone `zone` (the
    embedded targets: dbt-spark's session method sets the profile's server_side_parameters
    before every statement, so a SET would last one statement). The test's own connection
    (project.run_sql) stays in UTC."""
    before = os.environ.get(SESSION_TZ_VAR)
    os.environ[SESSION_TZ_VAR] = zone
    try:
        yield
    finally:
        if before is None:
            del os.environ[SESSION_TZ_VAR]
        else:
            os.environ[SESSION_TZ_VAR] = before


def model_statements(logs_dir: str, name: str) -> list[str]:
    """The statements the last dbt invocation (in dbt.log) ran for model `name`, each as its
    first line of SQL (dbt's query comment left out)."""
    log = (Path(logs_dir) / "dbt.log").read_text()
    invocation = log[log.rfind("Running with dbt=") :]
    found = re.findall(
        rf"On model\.[^.\s]+\.{re.escape(name)}: (?:/\*.*?\*/)?\s*(\S[^\n]*)", invocation
    )
    return [s.strip() for s in found if s.strip() not in ("ROLLBACK", "Close")]


def leave_stage(
    project: Any,
    table_format: str,
    name: str,
    stage: str,
    select: str,
    replay: str | None = "overwrite",
    intent: bool = True,
) -> None:
    """What a run of model `name` killed while it held stage table `stage` leaves: the stage
    (`select`'s rows; marked for replay unless `replay` is None) and, when the model does not
    look for stages every run (`intent`, engine/stage.sql), the `staging` row it recorded first
    (the state table in `table_format`)."""
    schema = project.test_schema
    marked = f"tblproperties ('vulcan.replay' = '{replay}') " if replay else ""
    project.run_sql(f"create table {schema}.{stage} using parquet {marked}as {select}")
    if not intent:
        return
    append_state_row(
        project,
        table_format,
        name,
        "staging",
        {"stage": stage.lower()},
        "2025-01-01 00:00:00",
        "2025-01-01 00:00:00",
    )


def append_state_row(
    project: Any,
    table_format: str,
    name: str,
    row_type: str,
    details: dict[str, Any],
    start: str,
    end: str,
) -> None:
    """Append one row of a killed run of model `name` to the state log (the state table in
    `table_format`): `row_type` over [`start`, `end`), with `details`."""
    relation = f"{project.test_schema}.{name}".lower()
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
    # (dbt.tests' run_sql formats the statement: the JSON's braces are doubled)
    text = json.dumps(details).replace("{", "{{").replace("}", "}}")
    values = (
        f"('{relation}', 'model.test.{name}', '{start}', '{end}', "
        f"'{row_type}', '', 'killed-run', '{now}', 1, '{text}')"
    )
    if table_format == "parquet":
        project.run_sql(
            f"insert overwrite table {STATE} partition (relation, append_id) "
            "select model_id, interval_start, interval_end, row_type, fingerprint, "
            "invocation_id, recorded_at, seq, details, relation, 'killed-run-1' "
            f"from values {values} as v(relation, model_id, interval_start, interval_end, "
            "row_type, fingerprint, invocation_id, recorded_at, seq, details)"
        )
    else:
        project.run_sql(f"insert into {STATE} values {values}")


def environment_profiles(target: dict[str, Any], schema: str, *others: str) -> dict[str, Any]:
    """dbt.tests' profile with one target per environment, for the virtual layer's tests:
    `default` and `prod` in the test's schema, each of `others` (dev, ci, ...) in
    `<schema>_<name>`; prod is the default target."""
    outputs = {name: {**target, "schema": schema} for name in ("default", "prod")}
    outputs.update({name: {**target, "schema": f"{schema}_{name}"} for name in others})
    return {"test": {"outputs": outputs, "target": "prod"}}


def environment_vars(schema: str, **more: Any) -> dict[str, Any]:
    """The project vars of a test of the virtual layer: on, its physical tables in
    `<schema>_physical`."""
    return {
        "vars": {"vulcan_virtual": True, "vulcan_physical_schema": f"{schema}_physical", **more}
    }


class EnvironmentsProject:
    """The fixtures of a test class of the virtual layer: the profile's targets prod (the
    default), dev and ci (environment_profiles), the layer on (environment_vars), and the
    other targets' schemas and the physical one dropped after the class."""

    @pytest.fixture(scope="class")
    def profiles_config_update(
        self, dbt_profile_target: dict[str, Any], unique_schema: str
    ) -> dict[str, Any]:
        return environment_profiles(dbt_profile_target, unique_schema, "dev", "ci")

    @pytest.fixture(scope="class")
    def project_config_update(self, unique_schema: str) -> dict[str, Any]:
        return environment_vars(unique_schema)

    @pytest.fixture(scope="class", autouse=True)
    def _other_schemas(self, project: Any) -> Any:
        yield
        for suffix in ("_dev", "_ci", "_physical"):
            project.run_sql(f"drop schema if exists {project.test_schema}{suffix} cascade")


def views_in(project: Any, schema: str) -> set[str]:
    """The views of `schema` (SHOW VIEWS lists the session's temporary views too: left out)."""
    return {str(r[1]) for r in rows(project, f"show views in {schema}") if not r[2]}
