"""The `vulcan` adapter: dbt-spark plus the SQLMesh/Vulcan model kinds.

The adapter itself stays thin. The kinds, the planning, the state log and the operations are
the package's Jinja (dbt/include/vulcan/macros), the same in both modes. The Python of a run
is what the macros reach through the `@available` methods below, each handed the settings the
run validated in Jinja (macros/config/, once per model run): the safety analysis of a model's
SQL (safety, with the time tokens of timemacros), Python models (python_models, with the
schedule's first interval), the state table's creation and the stage tables a stopped run
left. The Python reference the macros are tested
against, tests/oracle/, is never imported here.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import field, make_dataclass
from typing import Any, TypeAlias

from dbt.adapters.base import available
from dbt.adapters.events.logging import AdapterLogger
from dbt.adapters.spark.impl import SparkAdapter, SparkConfig
from dbt_common.exceptions import CompilationError, DbtRuntimeError

from dbt.adapters.vulcan import config_keys, group_commit, jinja_cache, python_models, state_cache
from dbt.adapters.vulcan.connections import VulcanConnectionManager
from dbt.adapters.vulcan.timeutil import VulcanConfigError, now_utc

logger = AdapterLogger("Vulcan")

# Every model config key dbt-vulcan reads, for dbt's config machinery: from the one declaration
# (macros/config/config_keys.sql; README documents each).
VulcanConfig = make_dataclass(
    "VulcanConfig",
    [
        (name, Any, field(default=None))
        for key in config_keys.config_keys()
        for name in key.names
        if name not in SparkConfig.__dataclass_fields__
    ],
    bases=(SparkConfig,),
)


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


STAGE_SUFFIXES = ("__vulcan_stage_", "__vulcan_changes_", "__vulcan_groups_", "__vulcan_audit_")


def is_stage_of(table: str, name: str) -> bool:
    """Whether `name` is a stage table of `table` (Spark identifiers are case-insensitive)."""
    table, name = table.lower(), name.lower()
    return any(
        name.startswith(table + suffix) and name[len(table + suffix) :].isalnum()
        for suffix in STAGE_SUFFIXES
    )


class VulcanAdapter(SparkAdapter):
    ConnectionManager: TypeAlias = VulcanConnectionManager  # type: ignore[assignment]
    AdapterSpecificConfigs = VulcanConfig  # type: ignore[assignment]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # every macro compiled once, not once a process (jinja_cache; VULCAN_JINJA_CACHE=off)
        jinja_cache.install()
        self._vulcan_now = now_utc()
        self._python_models = python_models.PythonModels()
        self._state = state_cache.StateCache()
        self._appends = group_commit.AppendQueues()

    @classmethod
    def type(cls) -> str:
        return "vulcan"

    @available.parse(lambda *a, **k: [])
    def get_column_schema_from_query(self, sql: str) -> list[Any]:
        """A query's columns with Spark's type names (`date`, `decimal(10,2)`) for every
        connection method. In the embedded SparkSession the query is only analysed
        (`spark.sql(sql).schema`): no statement, no Spark job; the kinds read their query's
        columns through the macro vulcan_query_columns, which comes here for the session.
        Over thrift, http and odbc the cursor describes columns with type codes only
        (`DATE_TYPE`, `DECIMAL_TYPE` without precision), so for dbt's own callers (a
        contract's check) the query is described by Spark (`DESCRIBE QUERY`), as the macro
        does for the kinds in both modes."""
        credentials = self.config.credentials
        if credentials.method == "session":
            session = python_models.spark_session(credentials.server_side_parameters)
            return [
                self.Column.create(field.name, field.dataType.simpleString())
                for field in session.sql(sql).schema.fields
            ]
        _, cursor = self.connections.add_select_query(f"describe query {sql}")
        return [
            self.Column.create(str(name), str(dtype))
            for name, dtype, *_ in cursor.fetchall()
            if name and not str(name).startswith("#")
        ]

    # --- config ---------------------------------------------------------------------------

    @available
    def vulcan_stale_stages(self, relation: Any) -> list[Any]:
        """The stage tables of `relation` (`<table>__vulcan_stage_<run>`,
        `<table>__vulcan_changes_<run>`) that a stopped run left in its schema, from dbt's
        relation cache when the schema is cached (no statement)."""
        return [
            found
            for found in self.list_relations(relation.database, relation.schema)
            if is_stage_of(str(relation.identifier), str(found.identifier))
        ]

    @available
    def vulcan_check_safety(self, cfg: Mapping[str, Any], compiled_sql: str) -> list[str]:
        """Static safety analysis of the model SQL (tokens still in it), before any write:
        raise for patterns that differ on a time slice, return the warnings. `cfg`: the
        settings the run validated (macros/config/), handed over as they are."""
        from dbt.adapters.vulcan import safety

        name = str(cfg.get("model", "?"))
        time_column = cfg.get("time_column")
        if not time_column:
            return []
        try:
            # the time column itself was checked against the query's columns (column checks)
            findings = safety.analyze(
                compiled_sql,
                str(time_column),
                list(cfg.get("safety_overrides") or []),
                interval_unit=str(cfg.get("interval_unit") or "day"),
                week_start=int(cfg.get("week_start") or 0),
            )
        except VulcanConfigError as exc:
            raise CompilationError(f"Model '{name}': {exc}") from None
        refusal, warnings = safety.verdict(name, findings)
        if refusal is not None:
            raise CompilationError(refusal)
        return warnings

    @available
    def vulcan_ts_bounds(self, compiled_sql: str, time_column: str) -> list[str]:
        """The `@start_ts` / `@end_ts` tokens that bound the time column in the model SQL
        (sqlglot: safety.ts_bounds); the warning is worded in Jinja, as in the package
        (macros/safety/ts_bounds.sql)."""
        from dbt.adapters.vulcan import safety

        return safety.ts_bounds(compiled_sql, str(time_column))

    # --- state ----------------------------------------------------------------------------

    @available
    def vulcan_create_state_table(self, create_sqls: list[str]) -> str:
        """Create the state table, retrying a CREATE that lost a race with another dbt thread
        or process."""
        self._create_state_table(create_sqls)
        return ""

    def _create_state_table(self, create_sqls: list[str], attempts: int = 3) -> bool:
        """Run the CREATE ... IF NOT EXISTS statements of the state table; True when they
        succeeded at once. Two dbt processes creating it at the same moment race: the
        metastore or Delta refuses the loser's CREATE, which then succeeds on a retry (it
        exists by then), and the caller reads the table instead of assuming it empty."""
        for attempt in range(attempts):
            try:
                for sql in create_sqls:
                    self.execute(sql)
                return attempt == 0
            except DbtRuntimeError:
                if attempt == attempts - 1:
                    raise
                time.sleep(0.5 * (attempt + 1))
        return False

    @available
    def vulcan_state_wide_read_done(self, state: str, invocation: str) -> bool:
        """Whether this invocation read the state rows of its whole selection already."""
        return self._state.wide_read_done(state, invocation)

    @available
    def vulcan_state_rows(
        self,
        state: str,
        invocation: str,
        keys: list[str],
        prefixes: list[str],
        sql_of: Any,
        refresh: str | None,
        wide: Mapping[str, list[str]] | None,
    ) -> list[tuple[Any, ...]]:
        """The state rows of `keys` and `prefixes` (state/log.sql): from this invocation's
        rows when they cover them, else read (the SQL from `sql_of(keys, none, prefixes)`,
        after `refresh`), on the invocation's first read with the whole selection's (`wide`).
        The rows as the cursor gives them: no result table infers their types."""

        def read(all_keys: list[str], all_prefixes: list[str]) -> list[tuple[Any, ...]]:
            if refresh:
                self.execute(refresh)
            _, cursor = self.connections.add_select_query(str(sql_of(all_keys, None, all_prefixes)))
            return [tuple(row) for row in cursor.fetchall()]

        wide = wide or {}
        return self._state.rows(
            state,
            invocation,
            list(keys),
            list(prefixes),
            read,
            list(wide.get("keys") or []),
            list(wide.get("prefixes") or []),
        )

    @available
    def vulcan_state_append(
        self,
        state: str,
        invocation: str,
        head: str,
        body: str,
        values_sql: str,
        append_id: str | None,
    ) -> str:
        """Appends `values_sql` to the state log (state/record_intervals.sql renders the
        INSERT's `head` and this append's `body`), committed with the appends other threads
        make meanwhile (group_commit.py); once committed, its rows are kept with the rows
        this invocation read."""
        together = self._appends.of(state).append(head, body, self.execute)
        if together > 1:
            logger.debug(f"state append committed with {together - 1} other(s) in one statement")
        rows = state_cache.parse_values(values_sql)
        if append_id:
            rows = [(*row, append_id) for row in rows]
        self._state.appended(state, invocation, rows)
        return ""

    @available
    def vulcan_state_rewritten(self, state: str, invocation: str, key: str | None) -> str:
        """Relation `key`'s log (every relation's when none) was rewritten: read it again."""
        self._state.rewritten(state, invocation, key)
        return ""

    @available
    def vulcan_python_batch_query(
        self, model: Any, compiled_code: str, batch: Mapping[str, Any], execution_time: str
    ) -> str:
        """A Python model's batch query: `select * from <the view of the DataFrame it returned
        for the batch>` (the batch SQL of a SQL model is built in Jinja, utils/time_tokens.sql)."""
        where = f" in batch {batch['label']}"
        return self._python_query(model, compiled_code, batch, execution_time, where)

    @available
    def vulcan_python_schema_query(
        self, model: Any, compiled_code: str, first_interval: list[str], execution_time: str
    ) -> str:
        """A Python model's query for its first interval (the plan's `first_interval`, as the
        run planned it), to read its columns (it runs the model once)."""
        start, end = first_interval
        first = {"start": start, "end": end}
        where = f" reading its columns (first interval, from {start[:16]})"
        return self._python_query(model, compiled_code, first, execution_time, where)

    # --- Python models (python_models.py) --------------------------------------------------

    def _python_query(
        self, model: Any, code: str, batch: Mapping[str, Any], execution_time: str, where: str
    ) -> str:
        context = python_models.BatchContext.of(batch["start"], batch["end"], execution_time)
        session = python_models.spark_session(self.config.credentials.server_side_parameters)
        try:
            return self._python_models.query(
                str(_get(model, "unique_id", "")),
                str(_get(model, "name", "?")),
                code,
                str(_get(model, "original_file_path", "model.py")),
                session,
                context,
                where,
            )
        except python_models.PythonModelError as exc:
            raise DbtRuntimeError(str(exc)) from None

    @available
    def vulcan_python_release(self, model: Any) -> None:
        """Drop the temporary views of a Python model's DataFrames."""
        session = python_models.spark_session(self.config.credentials.server_side_parameters)
        self._python_models.release(str(_get(model, "unique_id", "")), session.catalog.dropTempView)

    @available
    def vulcan_python_check(self, model: Any) -> str:
        """Refuse a Python model that cannot run as configured (when it is compiled)."""
        materialized = str(_get(_get(model, "config", {}) or {}, "materialized", "") or "")
        method = str(self.config.credentials.method)
        problem = python_models.check_model(str(_get(model, "name", "?")), materialized, method)
        if problem is not None:
            raise CompilationError(problem)
        return ""

    def submit_python_job(self, parsed_model: dict[str, Any], compiled_code: str) -> Any:
        """dbt-spark submits Python models to Databricks; under the session method they run in
        the embedded SparkSession (the `table` materialization's script)."""
        if self.config.credentials.method != "session":
            return super().submit_python_job(parsed_model, compiled_code)
        session = python_models.spark_session(self.config.credentials.server_side_parameters)
        name = str(_get(parsed_model, "name", "?"))
        path = str(_get(parsed_model, "original_file_path", "model.py"))
        try:
            python_models.run_script(name, compiled_code, path, session)
        except python_models.PythonModelError as exc:
            raise DbtRuntimeError(str(exc)) from None
        return self.generate_python_submission_response(None)
