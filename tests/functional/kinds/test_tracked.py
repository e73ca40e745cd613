"""tracked on a real SparkSession (parquet, delta or iceberg by --profile; both modes).

The kind against its Python reference (tests/oracle/tracked.py) on random group histories:
rows added, changed (NULLs included) and removed, groups added, removed, split and merged,
a composite key, and a model with a time window; after every run the table equals the
reference, every row of a group carries the group's hash and equal groups have equal hashes.
Then bad input (refused with the table untouched) and --full-refresh."""

from __future__ import annotations

import itertools
import json
import os
from datetime import date, timedelta
from typing import Any

import pytest
from dbt.tests.util import run_dbt_and_capture, write_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.oracle import tracked as oracle
from tests.support.functional import rows, run, session_time_zone, state_rows, table_commits

EXEC = "vulcan_execution_time"
STEPS = itertools.count(1)  # the source tables' numbers, unique per test session
COLUMNS = ["region", "invoice_id", "line_no", "sku", "qty", "invoice_date"]
TYPES = "region string, invoice_id int, line_no int, sku string, qty int, invoice_date date"
DAY0 = date(2025, 3, 1)

# (model, its source table, config)
MODELS = {
    "lines": ("src_lines", "group_key='invoice_id'"),
    "lines_by_region": (
        "src_lines_by_region",
        "group_key=['region', 'invoice_id'], content_hash_column='h'",
    ),
    "lines_recent": (
        "src_lines_recent",
        "group_key='invoice_id', time_column='invoice_date', lookback=1",
    ),
}
HASH = {
    "lines": "_content_hash",
    "lines_by_region": "h",
    "lines_recent": "_content_hash",
    "daily": "_content_hash",
    "daily_all": "_content_hash",
    "daily_tokens": "_content_hash",
}
KEYS = {
    "lines": ["invoice_id"],
    "lines_by_region": ["region", "invoice_id"],
    "lines_recent": ["invoice_id"],
}


def model_sql(source: str, config: str) -> str:
    return (
        "{{ config(materialized='tracked', " + config + ") }}\n"
        "select "
        + ", ".join(COLUMNS)
        + " from {{ target.schema }}."
        + source
        + "_{{ var('tracked_step', 0) }}\n"
    )


def literal(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, date):
        return f"date'{value}'"
    return f"'{value}'" if isinstance(value, str) else str(value)


def write_source(project: Any, table: str, lines: list[dict[str, Any]], step: int = 0) -> None:
    """The source of a run: a new table per step (`<table>_<step>`, read by the model through
    the var `tracked_step`), so no run reads files or plans another step left."""
    casts = ", ".join(
        f"cast({c} as {t.split()[1]}) as {c}"
        for c, t in zip(COLUMNS, TYPES.split(", "), strict=True)
    )
    if lines:
        values = ", ".join("(" + ", ".join(literal(r[c]) for c in COLUMNS) + ")" for r in lines)
        body = f"select {casts} from values {values} as v({', '.join(COLUMNS)})"
    else:
        body = (
            f"select {casts} from (select {', '.join('null as ' + c for c in COLUMNS)}) where 1 = 0"
        )
    project.run_sql(f"create table {project.test_schema}.{table}_{step} using parquet as {body}")


def canon(found: list[dict[str, Any]], hash_column: str) -> list[Any]:
    """Rows as comparable values, without the hash column."""
    return sorted(
        tuple(sorted((k, str(v)) for k, v in r.items() if k != hash_column)) for r in found
    )


def stored(project: Any, name: str) -> list[dict[str, Any]]:
    names = [*COLUMNS, HASH[name]]
    got = rows(project, f"select {', '.join(names)} from {project.test_schema}.{name}")
    return [dict(zip(names, r, strict=True)) for r in got]


# a group's rows with a timestamp, a map and NULLs; var `color`: group 2's map changes; var
# `twice`: group 3 holds its row (with its NULLs) twice
EVENTS = """{{ config(materialized='tracked', group_key='id') }}
select id, line, at, attrs, note from values
  (1, 1, timestamp'2025-03-01 10:00:00+00:00', map('color', 'blue'), 'x'),
  (1, 2, timestamp'2025-03-01 23:30:00+00:00', map('color', 'blue'), cast(null as string)),
  (2, 1, timestamp'2025-03-02 04:00:00+00:00', map('color', '{{ var("color", "green") }}'), null),
  {% set three = "(3, 1, cast(null as timestamp), cast(null as map<string, string>), null)" %}
  {{ three }}{% if var('twice', false) %}, {{ three }}{% endif %}
  as v(id, line, at, attrs, note)
"""


# ------------------------------------------------------------------ random histories

ROW = st.fixed_dictionaries(
    {"sku": st.sampled_from(["a", "b", "c", None]), "qty": st.one_of(st.none(), st.integers(0, 3))}
)


@st.composite
def history(draw: Any, steps: int = 4) -> list[list[dict[str, Any]]]:
    """Snapshots of a grouped source, each derived from the one before."""
    groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
    snapshots = []
    for step in range(steps):
        for _ in range(draw(st.integers(1, 4))):
            op = draw(
                st.sampled_from(
                    [
                        "add_group",
                        "drop_group",
                        "add_row",
                        "change_row",
                        "drop_row",
                        "split",
                        "merge",
                    ]
                )
            )
            keys = sorted(groups)
            if op == "add_group" or not keys:
                key = (draw(st.sampled_from(["eu", "us"])), draw(st.integers(1, 8)))
                groups[key] = [draw(ROW) for _ in range(draw(st.integers(1, 3)))]
                continue
            key = draw(st.sampled_from(keys))
            group = groups[key]
            if op == "drop_group":
                del groups[key]
            elif op == "add_row":
                group.append(draw(ROW))
            elif op == "change_row":
                group[draw(st.integers(0, len(group) - 1))] = draw(ROW)
            elif op == "drop_row" and len(group) > 1:
                group.pop(draw(st.integers(0, len(group) - 1)))
            elif op == "split" and len(group) > 1:
                new = (key[0], draw(st.integers(9, 12)))
                groups.setdefault(new, []).extend(group[1:])
                del group[1:]
            elif op == "merge" and len(keys) > 1:
                other = draw(st.sampled_from([k for k in keys if k != key]))
                groups[other].extend(groups.pop(key))
        snapshot = []
        for (region, invoice), group in sorted(groups.items()):
            day = DAY0 + timedelta(days=(invoice * 7 + step) % 3)
            for line_no, row in enumerate(group, start=1):
                snapshot.append(
                    {
                        "region": region,
                        "invoice_id": invoice,
                        "line_no": line_no,
                        **row,
                        "invoice_date": day,
                    }
                )
        snapshots.append(snapshot)
    return snapshots


def by_invoice(snapshot: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The source of the single-key models: one region per invoice (the smallest)."""
    first = {}
    for r in snapshot:
        first.setdefault(r["invoice_id"], r["region"])
    return [r for r in snapshot if r["region"] == first[r["invoice_id"]]]


def in_window(execution: date, lookback: int) -> Any:
    low = execution - timedelta(days=lookback)
    return lambda t: low <= t < execution + timedelta(days=1)


class TestTrackedHistories:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            f"{name}.sql": model_sql(source, config) for name, (source, config) in MODELS.items()
        }

    @settings(
        max_examples=int(os.environ.get("VULCAN_TRACKED_EXAMPLES", "1")),
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def test_mirrors_a_changing_grouped_source(self, project: Any, data: Any) -> None:
        snapshots = data.draw(history())
        tables: dict[str, list[dict[str, Any]]] = {name: [] for name in MODELS}
        for name in MODELS:
            project.run_sql(f"drop table if exists {project.test_schema}.{name}")
        for step, snapshot in enumerate(snapshots):
            execution = DAY0 + timedelta(days=1 + step % 2)
            sources = {
                "lines": by_invoice(snapshot),
                "lines_by_region": snapshot,
                "lines_recent": by_invoice(snapshot),
            }
            number = next(STEPS)
            for name, (source, _) in MODELS.items():
                write_source(project, source, sources[name], number)
            # eight threads, as users run: the three models write at once
            run(
                "run",
                "--threads",
                "8",
                "-s",
                *MODELS,
                vars={EXEC: f"{execution} 12:00:00", "tracked_step": number},
            )
            for name in MODELS:
                windowed = name == "lines_recent"
                expected = oracle.sync(
                    tables[name],
                    sources[name],
                    KEYS[name],
                    "invoice_date" if windowed else None,
                    in_window(execution, 1) if windowed else None,
                    ignore=[HASH[name]],
                    created=step == 0,  # dropped above: the first run builds the table
                ).rows
                got = stored(project, name)
                assert canon(got, HASH[name]) == canon(expected, HASH[name]), (
                    f"{name} after step {step + 1}"
                )
                hashes: dict[Any, set[str]] = {}
                for key, group in oracle.groups(got, KEYS[name]).items():
                    assert len({r[HASH[name]] for r in group}) == 1, (
                        f"{name}: group {key} has several hashes"
                    )
                    hashes.setdefault(
                        frozenset(oracle.content(group, KEYS[name], [HASH[name]]).items()), set()
                    ).add(group[0][HASH[name]])
                assert all(len(h) == 1 for h in hashes.values()), (
                    f"{name}: equal groups, other hashes"
                )
                tables[name] = got


INVOICE = [
    {"region": "eu", "invoice_id": 1, "line_no": 1, "sku": "a", "qty": 1, "invoice_date": DAY0},
    {"region": "eu", "invoice_id": 1, "line_no": 2, "sku": "b", "qty": 2, "invoice_date": DAY0},
    {"region": "eu", "invoice_id": 2, "line_no": 1, "sku": "c", "qty": None, "invoice_date": DAY0},
    {"region": "eu", "invoice_id": 4, "line_no": 1, "sku": "d", "qty": 4, "invoice_date": DAY0},
]


class TestTrackedRuns:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            "invoices.sql": model_sql("src_invoices", "group_key='invoice_id'"),
            "invoices_bad.sql": model_sql("src_invoices_bad", "group_key='invoice_id'"),
            "missing_key.sql": model_sql(
                "src_missing_key", "group_key=['invoice_no', 'region'], content_hash_column='sku'"
            ),
            "events.sql": EVENTS,
        }

    def run_on(
        self,
        project: Any,
        model: str,
        source: list[dict[str, Any]],
        *flags: str,
        expect_pass: bool = True,
        **vars: Any,
    ) -> tuple[Any, str]:
        """Write the model's source as a new step and run the model on it."""
        number = next(STEPS)
        write_source(project, "src_" + model, source, number)
        args = ["run", "-s", model, *flags, "--vars", json.dumps({"tracked_step": number, **vars})]
        return run_dbt_and_capture(args, expect_pass=expect_pass)

    def lines(self, project: Any) -> list[tuple[Any, ...]]:
        return rows(
            project,
            f"select invoice_id, line_no, sku, qty from {project.test_schema}.invoices "
            "order by 1, 2",
        )

    def test_replaces_inserts_and_deletes_whole_groups(
        self, project: Any, table_format: str
    ) -> None:
        _, out = self.run_on(project, "invoices", INVOICE, **{EXEC: "2025-03-02"})
        assert "tracked " in out and "3 groups inserted" in out
        # invoice 1 loses a line, 2 is unchanged, 3 is new, 4 left the source
        changed = [INVOICE[0], INVOICE[2], {**INVOICE[0], "invoice_id": 3}]
        _, out = self.run_on(project, "invoices", changed, **{EXEC: "2025-03-03"})
        assert "1 group replaced, 1 inserted, 1 deleted (1 unchanged)" in out
        assert self.lines(project) == [(1, 1, "a", 1), (2, 1, "c", None), (3, 1, "a", 1)]
        # nothing changed: nothing written (no commit on Delta or Iceberg)
        commits = table_commits(project, "invoices", table_format)
        _, out = self.run_on(project, "invoices", changed, **{EXEC: "2025-03-04"})
        assert "no group changed (3 unchanged); nothing written" in out
        assert table_commits(project, "invoices", table_format) == commits
        # each run is recorded as a run (no intervals)
        assert state_rows(project, "invoices")[-3:] == [
            (f"2025-03-0{d} 00:00:00", f"2025-03-0{d} 00:00:00", "processed") for d in (2, 3, 4)
        ]
        # --full-refresh rebuilds from the query
        self.run_on(project, "invoices", INVOICE, "--full-refresh")
        assert self.lines(project) == [
            (1, 1, "a", 1),
            (1, 2, "b", 2),
            (2, 1, "c", None),
            (4, 1, "d", 4),
        ]
        # a reordered SELECT: the same groups keep their hashes, no value moves to another
        # column, and the one changed group is replaced
        reordered = model_sql("src_invoices", "group_key='invoice_id'").replace(
            ", ".join(COLUMNS), ", ".join(reversed(COLUMNS))
        )
        write_file(reordered, project.project_root, "models", "invoices.sql")
        late = [*INVOICE[:2], {**INVOICE[2], "qty": 5}, INVOICE[3]]
        _, out = self.run_on(project, "invoices", late)
        assert "1 group replaced, 0 inserted, 0 deleted (2 unchanged)" in out, out
        assert self.lines(project) == [
            (1, 1, "a", 1),
            (1, 2, "b", 2),
            (2, 1, "c", 5),
            (4, 1, "d", 4),
        ]

    def test_bad_input_is_refused_before_anything_is_written(self, project: Any) -> None:
        self.run_on(project, "invoices_bad", INVOICE)
        table = f"{project.test_schema}.invoices_bad"
        before = rows(project, f"select * from {table} order by 1, 2, 3")
        cases = [
            (
                [*INVOICE, {**INVOICE[3], "invoice_id": None}],
                "group_key (invoice_id) is NULL in 1 row of the query",
            ),
            (
                [*INVOICE, INVOICE[1]],
                '1 group holds the same row more than once (e.g. the group {"invoice_id":1})',
            ),
        ]
        for source, message in cases:
            _, out = self.run_on(project, "invoices_bad", source, expect_pass=False)
            assert (
                "Model 'invoices_bad' (tracked): " in out
                and message in out
                and "Nothing was written." in out
            ), out
            assert rows(project, f"select * from {table} order by 1, 2, 3") == before
        # a table built from nothing is checked alike (its groups counted from the stage alone)
        _, out = self.run_on(
            project, "invoices_bad", [*INVOICE, INVOICE[1]], "--full-refresh", expect_pass=False
        )
        assert cases[1][1] in out and "Nothing was written." in out, out
        assert rows(project, f"select count(*) from {table}") == [(0,)]
        assert not rows(
            project, f"show tables in {project.test_schema} like 'invoices_bad__vulcan_*'"
        )

    def test_instants_maps_and_nulls_in_a_group_s_content(
        self, project: Any, table_format: str
    ) -> None:
        """A timestamp, a map and NULLs in the rows: the hash does not depend on the session's
        time zone (no group changes in another zone), a changed map value replaces its group,
        and a row twice with NULLs in it is a row twice."""
        table = f"{project.test_schema}.events"

        def events(*flags: str, expect_pass: bool = True, **vars: Any) -> str:
            args = ["run", "-s", "events", *flags, "--vars", json.dumps(vars)]
            return run_dbt_and_capture(args, expect_pass=expect_pass)[1]

        out = events()
        assert "3 groups inserted" in out, out
        commits = table_commits(project, "events", table_format)
        with session_time_zone("America/New_York"):
            out = events()
        assert "no group changed (3 unchanged); nothing written" in out, out
        assert table_commits(project, "events", table_format) == commits
        out = events(color="red")
        assert "1 group replaced, 0 inserted, 0 deleted (2 unchanged)" in out, out
        assert rows(project, f"select attrs['color'] from {table} where id = 2") == [("red",)]
        out = events(twice=True, expect_pass=False)
        assert '1 group holds the same row more than once (e.g. the group {"id":3})' in out, out

    def test_config_checked_against_the_query(self, project: Any) -> None:
        _, out = self.run_on(project, "missing_key", INVOICE, expect_pass=False)
        assert "group_key: 'invoice_no' is not a column of the model's query" in out, out
        assert "content_hash_column: 'sku' is a column of the model's query" in out, out
        assert not rows(project, f"show tables in {project.test_schema} like 'missing_key'")


def month(invoices: range) -> list[dict[str, Any]]:
    """One invoice a day from DAY0 (invoice i on day i - 1); the even ones have two lines."""
    out = []
    for i in invoices:
        day = DAY0 + timedelta(days=i - 1)
        out.append(
            {
                "region": "eu",
                "invoice_id": i,
                "line_no": 1,
                "sku": "a",
                "qty": i,
                "invoice_date": day,
            }
        )
        if i % 2 == 0:
            out.append({**out[-1], "line_no": 2, "sku": "b", "qty": None})
    return out


class TestTrackedBuiltFromNothing:
    """A table built from nothing (created, --full-refresh, a full-history restatement) holds
    every group of the query, not only its window's; an incremental run keeps the window."""

    LAST = DAY0 + timedelta(days=29)  # invoice 30's day: the only one in the window
    EXEC = f"{LAST} 12:00:00"

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {
            # lookback 0: the window is the execution time's day
            "daily.sql": model_sql(
                "src_daily", "group_key='invoice_id', time_column='invoice_date'"
            ),
            # the same query without a window: the reference hashes
            "daily_all.sql": model_sql("src_daily", "group_key='invoice_id'"),
            # a query that reads its window only, with the time tokens
            "daily_tokens.sql": model_sql(
                "src_daily", "group_key='invoice_id', time_column='invoice_date'"
            )
            + "where invoice_date >= @start_ds\n",
        }

    def run_step(self, project: Any, source: list[dict[str, Any]], *flags: str) -> str:
        number = next(STEPS)
        write_source(project, "src_daily", source, number)
        run("run", "-s", "daily_all", vars={EXEC: self.EXEC, "tracked_step": number})
        args = ["run", "-s", "daily", *flags, "--vars"]
        args.append(json.dumps({EXEC: self.EXEC, "tracked_step": number}))
        return run_dbt_and_capture(args)[1]

    def check(self, project: Any, expected: list[dict[str, Any]], known: dict[Any, str]) -> None:
        """The table is `expected`, and each group carries one hash: the one the model without
        a window gave the same content (`known`: content -> hash, gathered over the runs)."""
        got = stored(project, "daily")
        assert canon(got, HASH["daily"]) == canon(expected, HASH["daily"])
        key, column = ["invoice_id"], HASH["daily"]
        for group in oracle.groups(stored(project, "daily_all"), key).values():
            known[frozenset(oracle.content(group, key, [column]).items())] = group[0][column]
        for k, group in oracle.groups(got, key).items():
            assert {r[column] for r in group} == {
                known[frozenset(oracle.content(group, key, [column]).items())]
            }, f"group {k}: not its content's one hash"

    def test_every_group_when_built_and_the_window_after(self, project: Any) -> None:
        known: dict[Any, str] = {}
        first = month(range(1, 31))
        out = self.run_step(project, first)
        assert "30 groups inserted" in out, out
        self.check(project, first, known)
        assert len(oracle.groups(stored(project, "daily"), ["invoice_id"])) == 30

        # --full-refresh: the table becomes the query, old groups included (1 changed, 2 gone)
        refreshed = [
            {**r, "qty": 100} if r["invoice_id"] == 1 else r for r in first if r["invoice_id"] != 2
        ]
        out = self.run_step(project, refreshed, "--full-refresh")
        assert "29 groups inserted" in out, out
        self.check(project, refreshed, known)

        # a full-history restatement: the next run rebuilds it all the same (3 changed, 4 gone)
        restate = json.dumps({"select": "daily", "start": str(self.LAST), "end": str(self.LAST)})
        _, out = run_dbt_and_capture(["run-operation", "vulcan_restate", "--args", restate])
        assert "was widened to the whole history" in out, out
        restated = [
            {**r, "sku": "z"} if r["invoice_id"] == 3 else r
            for r in refreshed
            if r["invoice_id"] != 4
        ]
        out = self.run_step(project, restated)
        assert "28 groups inserted" in out, out
        self.check(project, restated, known)

        # an incremental run: only the window's groups (30 changed, 31 new); 5 changed and 6
        # gone outside it are left as they are
        late = [
            *(
                {**r, "qty": 7} if r["invoice_id"] in (5, 30) else r
                for r in restated
                if r["invoice_id"] != 6
            ),
            {**first[0], "invoice_id": 31, "invoice_date": self.LAST},
        ]
        table = stored(project, "daily")
        out = self.run_step(project, late)
        assert "1 group replaced, 1 inserted, 0 deleted (0 unchanged)" in out, out
        expected = oracle.sync(
            table, late, ["invoice_id"], "invoice_date", in_window(self.LAST, 0), [HASH["daily"]]
        ).rows
        self.check(project, expected, known)
        invoices = {r["invoice_id"]: r for r in stored(project, "daily")}
        assert invoices[5]["qty"] == 5 and 6 in invoices and invoices[30]["qty"] == 7

    def test_the_tokens_span_all_time_when_built(self, project: Any) -> None:
        first = month(range(1, 31))
        number = next(STEPS)
        write_source(project, "src_daily", first, number)
        vars = {EXEC: self.EXEC, "tracked_step": number}
        _, out = run_dbt_and_capture(["run", "-s", "daily_tokens", "--vars", json.dumps(vars)])
        assert "30 groups inserted" in out, out
        assert "[sync groups 1970-01-01 00:00:00 - 2025-03-30 12:00:00]" in out, out
        assert canon(stored(project, "daily_tokens"), "_content_hash") == canon(
            first, "_content_hash"
        )
        # incremental: the tokens render the window; the groups before it stay
        late = [{**r, "qty": 0} for r in first]
        number = next(STEPS)
        write_source(project, "src_daily", late, number)
        vars = {EXEC: self.EXEC, "tracked_step": number}
        _, out = run_dbt_and_capture(["run", "-s", "daily_tokens", "--vars", json.dumps(vars)])
        assert "1 group replaced, 0 inserted, 0 deleted (0 unchanged)" in out, out
        got = {(r["invoice_id"], r["line_no"]): r["qty"] for r in stored(project, "daily_tokens")}
        assert got[(30, 1)] == 0 and got[(29, 1)] == 29 and len(got) == 45
