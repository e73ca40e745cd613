"""What a team configures on its tables beyond the kind's own keys, on every kind: dbt's
`tblproperties` and `persist_docs` (the relation's and its columns' comments), kept after the
first run, an incremental run and a rebuild (`--full-refresh`), on every format by --profile
(column comments: Delta and Iceberg; dbt-spark and dbt-databricks skip them on parquet)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from dbt.tests.util import get_connection

from tests.support.functional import orders_csv, processed_rows, rows, run

EXEC = "vulcan_execution_time"
SHARED = "tblproperties={'team': 'sales'}, persist_docs={'relation': true, 'columns': true}"

MODELS = {
    "by_time": (
        "materialized='incremental_by_time_range', "
        "meta={'time_column': 'order_date', 'start': '2025-01-01'}",
        "select order_id, order_date, customer_id from {{ ref('raw_orders') }}\n"
        "where order_date between @start_ds and @end_ds",
    ),
    "by_key": (
        "materialized='incremental_by_unique_key', meta={'unique_key': 'order_id'}",
        "select order_id, order_date, customer_id from {{ ref('raw_orders') }}\n"
        "where order_date <= '{{ var('upto') }}'",
    ),
    "by_partition": (
        "materialized='incremental_by_partition', partition_by='customer_id'",
        "select order_id, order_date, customer_id from {{ ref('raw_orders') }}\n"
        "where order_date = '{{ var('upto') }}'",
    ),
    "appended": (
        "materialized='incremental_unmanaged'",
        "select order_id, order_date, customer_id from {{ ref('raw_orders') }}\n"
        "where order_date = '{{ var('upto') }}'",
    ),
    "versions": (
        "materialized='scd_type_2_by_column', "
        "meta={'unique_key': 'order_id', 'columns': ['customer_id']}",
        "select order_id, order_date, customer_id from {{ ref('raw_orders') }}\n"
        "where order_date <= '{{ var('upto') }}'",
    ),
    "groups": (
        "materialized='tracked', meta={'group_key': 'customer_id'}",
        "select order_id, order_date, customer_id from {{ ref('raw_orders') }}\n"
        "where order_date <= '{{ var('upto') }}'",
    ),
}

SCHEMA_YML = "version: 2\nmodels:\n" + "".join(
    f"  - name: {name}\n"
    f'    description: "The {name} table\'s own words"\n'
    "    columns:\n"
    "      - name: customer_id\n"
    "        description: who ordered\n"
    for name in MODELS
)


def comments(project: Any, name: str) -> tuple[str | None, str | None]:
    """(the table's comment, customer_id's comment), from DESCRIBE TABLE EXTENDED."""
    found = rows(project, f"describe table extended {project.test_schema}.{name}")
    column = next((r[2] for r in found if r[0] == "customer_id"), None)
    table = next((r[1] for r in found if r[0] == "Comment"), None)
    return table, column


class TestTableConfigsOnEveryKind:
    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=3)}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        out = {
            f"{name}.sql": "{{ config(" + config + ", " + SHARED + ") }}\n" + body
            for name, (config, body) in MODELS.items()
        }
        return {**out, "schema.yml": SCHEMA_YML}

    def test_properties_and_comments_after_every_kind_of_run(
        self, project: Any, table_format: str
    ) -> None:
        run("seed")
        steps: list[tuple[tuple[str, ...], dict[str, Any]]] = [
            ((), {"upto": "2025-01-01", EXEC: "2025-01-02 06:00:00"}),  # first run
            ((), {"upto": "2025-01-02", EXEC: "2025-01-03 06:00:00"}),  # incremental
            (("--full-refresh",), {"upto": "2025-01-02", EXEC: "2025-01-03 06:00:00"}),
        ]
        for flags, vars_ in steps:
            run("run", *flags, vars=vars_)
            for name in MODELS:
                relation = f"{project.test_schema}.{name}"
                properties = dict(rows(project, f"show tblproperties {relation}"))
                assert properties.get("team") == "sales", (name, flags, properties)
                table, column = comments(project, name)
                assert table == f"The {name} table's own words", (name, flags, table)
                if table_format != "parquet":
                    assert column == "who ordered", (name, flags, column)


class TestTagsNeedUnityCatalog:
    """Unity Catalog tags (a column's `databricks_tags` in a properties file, as dbt-databricks
    reads them) where no Unity Catalog is: type: spark and type: vulcan have none, and on
    type: databricks the test server's catalog is the Hive metastore, where dbt-databricks'
    own materializations refuse tags too. The run is refused before anything is created or
    recorded, naming the model, the key, the value and what to do."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        config, body = MODELS["by_key"]
        return {
            "tagged.sql": "{{ config("
            + config
            + ") }}\n"
            + body.replace(
                "{{ ref('raw_orders') }}",
                "(select 1 as order_id, date'2025-01-01' as order_date, 7 as customer_id)",
            ),
            "schema.yml": (
                "version: 2\nmodels:\n  - name: tagged\n    columns:\n"
                "      - name: customer_id\n        databricks_tags: {pii: 'yes'}\n"
            ),
        }

    def test_refused_before_anything_is_created(self, project: Any) -> None:
        result = run("run", vars={"upto": "2025-01-01"}, expect_pass=False)
        (outcome,) = [r for r in result.results if r.node.name == "tagged"]
        message = str(outcome.message)
        assert outcome.status == "error"
        assert "Model 'tagged' (incremental_by_unique_key)" in message
        assert "databricks_tags of column customer_id {'pii': 'yes'}" in message
        assert "tags are a Unity Catalog feature" in message and "Nothing was run" in message
        if project.adapter.type() == "databricks":
            assert "Tags are only supported for Unity Catalog" in message
            assert "hive_metastore" in message
        else:
            assert f"type: {project.adapter.type()} has no Unity Catalog" in message
        shown = rows(project, f"show tables in {project.test_schema}")
        assert [r for r in shown if str(r[1]).lower() == "tagged"] == []


@pytest.mark.profile_only("databricks")
class TestQueryTagsAndComment:
    """dbt-databricks' query tags (`query_tags`, 1.11+: a session setting of the connection it
    opens for a model) and dbt's query comment reach dbt-vulcan's own statements, the state
    read and append included: they run on the model's connection, so a team's cost attribution
    sees them. The test server's client shim logs each session's configuration and each
    statement's session (tests/databricks_shim, VULCAN_SHIM_LOG)."""

    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=3)}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        config, body = MODELS["by_key"]
        tags = """query_tags='{"team": "sales"}'"""
        return {"tagged_q.sql": "{{ config(" + config + ", " + tags + ") }}\n" + body}

    def test_every_statement_of_the_model_carries_its_tags_and_comment(
        self, project: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        run("seed")
        run("run", vars={"upto": "2025-01-01"})
        log = tmp_path / "shim.jsonl"
        monkeypatch.setenv("VULCAN_SHIM_LOG", str(log))
        run("run", vars={"upto": "2025-01-02"})
        entries = [json.loads(line) for line in log.read_text().splitlines()]
        sessions = {e["session"]: e["configuration"] for e in entries if "configuration" in e}
        ours = [
            e
            for e in entries
            if "statement" in e
            and ("vulcan_intervals" in e["statement"] or "tagged_q" in e["statement"])
            and '"node_id": "model.test.tagged_q"' in e["statement"]
        ]
        kinds = {
            "state read": [
                e for e in ours if re.search(r"from \S*vulcan_intervals", e["statement"])
            ],
            "state append": [
                e for e in ours if re.search(r"insert \w+ \S*vulcan_intervals", e["statement"])
            ],
            "write": [e for e in ours if re.search(r"merge into \S*tagged_q", e["statement"])],
        }
        assert all(kinds.values()), {k: len(v) for k, v in kinds.items()}
        for entry in ours:
            tags = sessions[entry["session"]].get("QUERY_TAGS", "")
            assert "team:sales" in tags and "@@dbt_model_name:tagged_q" in tags, (tags, entry)
        # no statement of the model runs without the query comment
        bare = [
            e["statement"]
            for e in entries
            if "statement" in e
            and "tagged_q" in e["statement"]
            and not e["statement"].lstrip().startswith("/*")
        ]
        assert bare == []


class TestLocationRootOnEveryKind:
    """dbt-spark's and dbt-databricks' `location_root` on every kind: the table lives under
    `<location_root>/<alias>` after the first run, an incremental run and a rebuild
    (`--full-refresh`: on parquet it replaces the folder's files), and holds the kind's rows
    (the partition kind's: those of its twin without a location). A partitioned parquet
    table is refused before anything runs (Spark keeps the files of an external table's
    dropped partitions): on parquet the time range table is not partitioned by its time
    column, and the partition kind is refused."""

    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=3)}

    @pytest.fixture(scope="class")
    def models(
        self, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
    ) -> dict[str, str]:
        root = tmp_path_factory.mktemp("location_root")
        parquet = request.config.getoption("--profile") == "parquet"
        out = {}
        for name, (config, body) in MODELS.items():
            if parquet and name == "by_time":
                config = config.replace("'start':", "'partition_by_time_column': false, 'start':")
            located = f"{config}, location_root='{root}'"
            out[f"{name}.sql"] = "{{ config(" + located + ") }}\n" + body
            if name == "by_partition" and not parquet:
                out[f"{name}_twin.sql"] = "{{ config(" + config + ") }}\n" + body
        return out

    def test_the_table_stays_under_its_location(self, project: Any, table_format: str) -> None:
        run("seed")
        refused = {"by_partition"} if table_format == "parquet" else set()
        steps: list[tuple[tuple[str, ...], dict[str, Any]]] = [
            ((), {"upto": "2025-01-01", EXEC: "2025-01-02 06:00:00"}),
            ((), {"upto": "2025-01-02", EXEC: "2025-01-03 06:00:00"}),
            (("--full-refresh",), {"upto": "2025-01-03", EXEC: "2025-01-04 06:00:00"}),
        ]
        # the appended days: one a run, and the rebuild keeps its own day only
        appended_days = [["2025-01-01"], ["2025-01-01", "2025-01-02"], ["2025-01-03"]]
        seed = f"select order_id, customer_id from {project.test_schema}.raw_orders"
        for (flags, vars_), days in zip(steps, appended_days, strict=True):
            result = run("run", *flags, vars=vars_, expect_pass=not refused)
            failed = {r.node.name: str(r.message) for r in result.results if r.status == "error"}
            assert set(failed) == refused, failed
            for name in refused:
                assert "location_root: " in failed[name], failed[name]
                assert "with a parquet table partitioned by ['customer_id']" in failed[name]
            for name in set(MODELS) - refused:
                relation = f"{project.test_schema}.{name}"
                found = rows(project, f"describe table extended {relation}")
                location = next(str(r[1]) for r in found if r[0] == "Location")
                assert location.rstrip("/").endswith(f"location_root0/{name}"), (name, location)
                if name == "by_partition":
                    expected_sql = f"select order_id, customer_id from {relation}_twin"
                elif name == "appended":
                    listed = ", ".join(f"'{d}'" for d in days)
                    expected_sql = f"{seed} where order_date in ({listed})"
                else:  # every row up to the day (no change: one version of each)
                    expected_sql = f"{seed} where order_date <= '{vars_['upto']}'"
                mine = sorted(rows(project, f"select order_id, customer_id from {relation}"))
                expected = sorted(rows(project, expected_sql))
                assert mine == expected and mine, (name, flags, mine, expected)
        shown = {str(r[1]).lower() for r in rows(project, f"show tables in {project.test_schema}")}
        assert not refused & shown


class TestGrantsAreApplied:
    """dbt's `grants` on a kind: applied at the end of the run as dbt-spark's and
    dbt-databricks' own materializations apply them (never ignored). Apache Spark open source
    does not take `GRANT`, so there the run fails at that statement, after its writes were
    recorded, as dbt-spark's `table` fails there; a model without grants is untouched by it."""

    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=2)}

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        config, body = MODELS["by_time"]
        return {
            "granted.sql": "{{ config(" + config + ", grants={'select': ['analysts']}) }}\n" + body,
            "plain.sql": "{{ config(" + config + ") }}\n" + body,
        }

    def test_grants_reach_the_server(self, project: Any) -> None:
        run("seed")
        result = run("run", vars={EXEC: "2025-01-03 06:00:00"}, expect_pass=False)
        status = {r.node.name: (r.status, str(r.message)) for r in result.results}
        assert status["plain"][0] == "success", status
        state, message = status["granted"]
        # Spark open source refuses the GRANT statement itself
        assert state == "error" and "GRANT" in message and "analysts" in message, status
        # the writes before it were recorded: the next run has nothing due and fails the same
        assert processed_rows(project, "granted")[-1][1] == "2025-01-03 00:00:00"
        assert rows(project, f"select count(*) from {project.test_schema}.granted") == [(6,)]


# a struct wider than Spark prints whole (25 fields), and field names that need quoting
WIDE = "named_struct(" + ", ".join(f"'v{i}', order_id + {i}" for i in range(30)) + ") as payload"
ODD = (
    "named_struct('unit-price', cast(order_id as decimal(10,2)), 'a.b', customer_id, "
    "'Amount', order_date, 'x>y', array(named_struct('q-r', order_id))) as odd"
)
# Iceberg's Hive catalog writes the columns' types to the metastore, whose type parser takes
# a field's name as a plain identifier (`struct<q-r:bigint>` is refused, however the table is
# created): there the names differ from Spark's identifiers by case only
ODD_ICEBERG = (
    "named_struct('Unit_Price', cast(order_id as decimal(10,2)), 'a_b', customer_id, "
    "'Amount', order_date, 'x_y', array(named_struct('Q_r', order_id))) as odd"
)


def odd(table_format: str) -> tuple[str, str]:
    """The odd struct's SQL and the check of its values."""
    if table_format == "iceberg":
        return ODD_ICEBERG, "odd.Unit_Price = order_id and odd.x_y[0].Q_r = order_id"
    return ODD, "odd.`unit-price` = order_id and odd.`x>y`[0].`q-r` = order_id"


_UNITS = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}


def planned_size(project: Any, relation: str) -> float:
    """The size Spark's planner gives the table (EXPLAIN COST), in bytes."""
    (plan,) = rows(project, f"explain cost select * from {relation}")[0]
    found = re.search(r"sizeInBytes=([0-9.E]+) ?(B|KiB|MiB|GiB)", str(plan))
    assert found, plan
    return float(found.group(1)) * _UNITS[found.group(2)]


def delta_size(project: Any, relation: str) -> float:
    """Delta's own size of the table's current version (DESCRIBE DETAIL), in bytes."""
    with get_connection(project.adapter):
        _, table = project.adapter.execute(f"describe detail {relation}", fetch=True)
    return float(table.rows[0]["sizeInBytes"])


class TestTablesAreCreatedFromTheQuerysColumns:
    """Every kind's table has the query's columns and types, however wide or oddly named a
    struct's fields, and a Delta table's size as Spark's planner sees it is Delta's current
    size after the first run and after one that grew it, not what a Hive metastore found in
    the folder when the table was registered (an empty data file, read for good: a table
    planned as a few hundred bytes is broadcast whole into every join)."""

    @pytest.fixture(scope="class")
    def seeds(self) -> dict[str, str]:
        return {"raw_orders.csv": orders_csv(count=3)}

    @pytest.fixture(scope="class")
    def models(self, table_format: str) -> dict[str, str]:
        columns = f"customer_id, {WIDE}, {odd(table_format)[0]} from"
        return {
            f"{name}.sql": "{{ config("
            + config
            + ") }}\n"
            + body.replace("customer_id from", columns)
            for name, (config, body) in MODELS.items()
        }

    def test_columns_and_planned_size(self, project: Any, table_format: str) -> None:
        run("seed")
        struct, values = odd(table_format)
        source = f"{project.test_schema}.raw_orders"
        (expected_types,) = rows(
            project,
            f"select typeof({WIDE.rsplit(' as ', 1)[0]}), typeof({struct.rsplit(' as ', 1)[0]}) "
            f"from {source} limit 1",
        )
        assert "v29:" in expected_types[0] and "Amount:" in expected_types[1]
        for upto, day in (("2025-01-01", "2025-01-02"), ("2025-01-03", "2025-01-04")):
            run("run", vars={"upto": upto, EXEC: f"{day} 06:00:00"})
            for name in MODELS:
                relation = f"{project.test_schema}.{name}"
                (types,) = rows(
                    project, f"select typeof(payload), typeof(odd) from {relation} limit 1"
                )
                assert types == expected_types, (name, types)
                (check,) = rows(
                    project,
                    f"select count(*), count_if(payload.v29 = order_id + 29 and {values}) "
                    f"from {relation}",
                )
                assert check[0] > 0 and check[0] == check[1], (name, check)
                if table_format != "delta":
                    continue
                size = delta_size(project, relation)
                planned = planned_size(project, relation)
                assert abs(planned - size) <= 0.05 * size, (name, upto, planned, size)
