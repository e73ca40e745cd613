"""The oracle of the engine's checks (macros/engine/: column checks, schema change, the SQL
string literal): the Python reference the Jinja is checked against; never run.

A model's config checked against its query's columns, before anything is created, written
or recorded. The columns come from the one read of the query's schema a run already makes
(the analyzer's schema of the compiled SQL: `get_column_schema_from_query`, no Spark job on
the session method), on the runs that create the table or follow a change of the model's
definition. A run of an unchanged model on its existing table reads no schema and checks
nothing: the run that created or changed it did (the model's fingerprint covers its code and
key config).

Checked: the time column (present, and a time: an int/bigint column needs an explicit
`time_data_type`), the partition columns of a new table, and for incremental_by_unique_key the
columns its key, `merge_filter` and `when_matched` name, against the query's columns (`source.`)
and the columns the table has when the batches run (`target.`). Every problem is reported at
once. `schema_change`: what a run does when the table's columns and the query's differ
(on_additive_change / on_destructive_change).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dbt.adapters.vulcan.timemacros import is_day_format, sorts_as_text, to_python_format
from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.oracle.config import TIME_RANGE, ModelConfig

if TYPE_CHECKING:
    from tests.oracle.unique_key import UpsertSpec

__all__ = [
    "SchemaChange",
    "check",
    "message",
    "partition_key",
    "schema_change",
    "sql_string",
    "table_after_change",
    "time_column_type",
    "time_type_from_columns",
]


def sql_string(value: str) -> str:
    """A Spark SQL string literal (Spark treats backslash as an escape character)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


# Spark column types that are times, and the time_data_type each is read as
_TIME_TYPES = {"date": "date", "timestamp": "timestamp", "timestamp_ntz": "timestamp_ntz"}
_NUMBERS = ("tinyint", "smallint", "int", "integer", "bigint", "decimal", "float", "double")
_EPOCH_TYPES = ("int", "bigint", "epoch", "epoch_millis")
_EPOCH_HINT = (
    "time_data_type: int, bigint or epoch (epoch seconds) or epoch_millis (epoch milliseconds)"
)


def time_column_type(cfg: ModelConfig, columns: Mapping[str, str]) -> tuple[str | None, str | None]:
    """(the time_data_type of the model's time column, None) from the query's Spark column
    types, or (None, the problem). Numbers are never taken for times unasked: an int/bigint
    column needs an explicit time_data_type (epoch seconds or milliseconds)."""
    assert cfg.time_column is not None
    column = cfg.time_column
    lowered = {name.lower(): dtype.lower() for name, dtype in columns.items()}
    dtype = lowered.get(column.lower())
    if dtype is None:
        return None, (
            f"time_column: {column!r} is not a column of the model's query; its columns are: "
            f"{', '.join(columns)}"
        )
    base = dtype.split("(")[0].strip()
    number = base in _NUMBERS
    declared = cfg.time_data_type
    if declared:
        if number and declared not in _EPOCH_TYPES:
            return None, (
                f"time_column: {column!r} has type {dtype} but time_data_type is {declared!r}; "
                f"a numeric time column holds epochs: set {_EPOCH_HINT}"
            )
        if base in _TIME_TYPES and declared in _EPOCH_TYPES:
            return None, (
                f"time_column: {column!r} has type {dtype} but time_data_type is {declared!r} "
                "(epoch numbers); remove time_data_type or set it to date, timestamp or "
                "timestamp_ntz"
            )
        return declared, None
    if number:
        return None, (
            f"time_column: {column!r} has type {dtype}, which is not a time; a number is read "
            f"as a time only when told how: set {_EPOCH_HINT}"
        )
    if base == "string":
        return "string", None
    if base in _TIME_TYPES:
        return _TIME_TYPES[base], None
    return None, (
        f"time_column: {column!r} has type {dtype}, which is not a time; a time column is a "
        "date, timestamp or timestamp_ntz column, a string column (with its format, e.g. "
        "time_column: ['day', '%Y%m%d']) or an int/bigint epoch column (with "
        f"{_EPOCH_HINT})"
    )


def partition_key(config: Mapping[str, Any]) -> str:
    """The key the model's partition columns were given with (for messages)."""
    if config.get("partitioned_by") is None and config.get("partition_by") is not None:
        return "partition_by"
    return "partitioned_by"


def _partition_problems(cfg: ModelConfig, names: Sequence[str], key: str) -> list[str]:
    lowered = {n.lower() for n in names}
    skip = cfg.time_column.lower() if cfg.kind == TIME_RANGE and cfg.time_column else None
    problems = [
        f"{key}: {column!r} is not a column of the model's query, so a new table cannot be "
        f"partitioned by it; its columns are: {', '.join(names)}"
        for column in cfg.partition_cols
        if column.lower() not in lowered and column.lower() != skip  # time_column: above
    ]
    partitions = {c.lower() for c in cfg.partition_cols}
    if names and lowered <= partitions:
        # Spark refuses a table whose every column is a partition column
        by_time = skip is not None and cfg.partition_by_time_column and skip in partitions
        label = "partition_by_time_column" if by_time and partitions == {skip} else key
        fix = "set partition_by_time_column: false" if by_time else "partition by fewer columns"
        problems.append(
            f"{label}: every column of the query ({', '.join(names)}) would be a partition "
            "column of the new table, and Spark needs at least one that is not: add a column "
            f"to the query, or {fix}"
        )
    return problems


def table_after_change(
    cfg: ModelConfig, table: Sequence[tuple[str, str]], query: Sequence[tuple[str, str]]
) -> list[str]:
    """The names of an existing table's (name, Spark type) columns once the run's schema change
    against the query's columns is applied (schema_change, below): the query's after a
    rewrite, the table's plus the added ones after ADD COLUMNS, else (nothing changes, or the
    change is refused) the table's."""
    change = schema_change(cfg, list(table), list(query))
    names = [name for name, _ in table]
    if change.errors:
        return names
    if change.rewrite:
        return [name for name, _ in query]
    if change.add_columns:
        lowered = {n.lower() for n in names}
        for name, _ in query:
            if name.lower() not in lowered:
                names.append(name)
                lowered.add(name.lower())
    return names


def check(
    cfg: ModelConfig,
    columns: Sequence[tuple[str, str]],
    new_table: bool,
    upsert: UpsertSpec | None = None,
    key: str = "partitioned_by",
    table: Sequence[tuple[str, str]] | None = None,
) -> None:
    """Raise one VulcanConfigError naming every problem of the config against the query's
    (name, Spark type) columns. `new_table`: the run creates the table (its partition columns
    are checked; the table then has the query's columns). `upsert`: the unique key's spec,
    checked against the query (source) and the columns the table has when the batches run
    (target): a new table's, and an existing one's after the run's schema change, are the
    query's, unless the existing table keeps columns of its own under on_*_change 'ignore':
    then they are `table` (the existing table's (name, Spark type) columns) as the schema
    change leaves them (table_after_change), not checked when `table` is None (the
    materialization reads the table only when upsert.names_table). `key`: the config key the
    partition columns came from."""
    names = [name for name, _ in columns]
    problems: list[str] = []
    if cfg.time_column:
        time_type, problem = time_column_type(cfg, dict(columns))
        problems += [problem] if problem else []
        problems += grain_problems(cfg, time_type)
    if new_table:
        problems += _partition_problems(cfg, names, key)
    if upsert is not None:
        target: list[str] | None = names
        if not new_table and "ignore" in (cfg.on_additive_change, cfg.on_destructive_change):
            target = None if table is None else table_after_change(cfg, table, columns)
        problems += upsert.column_problems(names, target)
    if problems:
        raise VulcanConfigError(message(cfg, problems))


_FINER_THAN_DAY = ("five_minute", "quarter_hour", "half_hour", "hour")


def grain_problems(cfg: ModelConfig, time_type: str | None) -> list[str]:
    """A time range model whose time column holds days (a date, or a string with a date-only
    format) under an interval unit finer than a day: refused (each batch would replace whole
    days while recording only its own intervals)."""
    py_fmt = to_python_format(cfg.time_format)
    with_time = not is_day_format(py_fmt)
    if (
        cfg.kind == "incremental_by_time_range"
        and time_type == "string"
        and with_time
        and cfg.file_format == "delta"
        and not sorts_as_text(py_fmt)
    ):
        return [
            f"time_column: format {cfg.time_format!r} does not sort as text, so a range of it "
            "is compared as parsed times, which a Delta REPLACE WHERE cannot take. Use a "
            "format that sorts as text (year, month, day, hour, ... in that order, e.g. "
            "'yyyy-MM-dd HH:mm'), or file_format parquet or iceberg"
        ]
    if (
        cfg.kind != "incremental_by_time_range"
        or cfg.interval_unit not in _FINER_THAN_DAY
        or time_type not in ("date", "string")
    ):
        return []
    if time_type == "string" and with_time:
        return []
    held = "type date" if time_type == "date" else f"format {cfg.time_format!r}"
    return [
        f"time_column: {cfg.time_column!r} holds days ({held}) but the interval unit "
        f"is {cfg.interval_unit} (cron {cfg.cron!r}): each batch would replace whole "
        f"days while recording only its {cfg.interval_unit} intervals. Use a timestamp time "
        'column (or a string format with the hour), or a daily schedule (cron: "@daily" or '
        "interval_unit: day)"
    ]


def message(cfg: ModelConfig, problems: Sequence[str]) -> str:
    lines = "\n".join(f"  - {p}" for p in problems)
    return (
        f"Invalid config for model '{cfg.model}' ({cfg.kind}), {len(problems)} problem(s):\n{lines}"
    )


def time_type_from_columns(cfg: ModelConfig, columns: Mapping[str, str]) -> str:
    """The time_data_type of the model's time column, from its Spark type (rules:
    time_column_type; an int/bigint column needs an explicit time_data_type)."""
    time_type, problem = time_column_type(cfg, columns)
    if problem is not None or time_type is None:
        raise VulcanConfigError(message(cfg, [str(problem)]))
    return time_type


@dataclass
class SchemaChange:
    changed: bool = False
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    add_columns: list[str] = field(default_factory=list)
    rewrite: bool = False
    rewrite_select: str = ""
    projection: list[str] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "changed": self.changed,
            "errors": self.errors,
            "warnings": self.warnings,
            "add_columns": self.add_columns,
            "rewrite": self.rewrite,
            "rewrite_select": self.rewrite_select,
            "projection": self.projection,
        }


def schema_change(
    cfg: ModelConfig, table: list[tuple[str, str]], query: list[tuple[str, str]]
) -> SchemaChange:
    """Compare the table's columns with the query's and decide per on_*_change."""
    table_types = {n.lower(): (n, t.lower()) for n, t in table}
    query_types = {n.lower(): (n, t.lower()) for n, t in query}
    # compared in lower case, written as described (a struct's field names keep their case)
    table_sql = {n.lower(): type_sql(t) for n, t in table}
    query_sql = {n.lower(): type_sql(t) for n, t in query}
    added = [query_types[k] for k in query_types if k not in table_types]
    removed = [table_types[k] for k in table_types if k not in query_types]
    retyped = [
        (query_types[k][0], table_types[k][1], query_types[k][1])
        for k in query_types
        if k in table_types and table_types[k][1] != query_types[k][1]
    ]
    change = SchemaChange(changed=bool(added or removed or retyped))
    if not change.changed:
        return change
    where = f"Model '{cfg.model}'"
    additive = ", ".join(f"{n} {t}" for n, t in added)
    destructive = ", ".join(
        [f"dropped {n}" for n, _ in removed] + [f"{n}: {a} -> {b}" for n, a, b in retyped]
    )
    project_table = False
    if added:
        action = cfg.on_additive_change
        text = f"{where}: additive schema change (new columns: {additive})"
        if action == "error":
            change.errors.append(
                f"{text}; on_additive_change is 'error' (allowed: allow, warn, ignore)"
            )
        elif action == "ignore":
            project_table = True
        else:
            if action == "warn":
                change.warnings.append(text)
            change.add_columns = [f"{quote(n)} {query_sql[n.lower()]}" for n, _ in added]
    if removed or retyped:
        action = cfg.on_destructive_change
        text = f"{where}: destructive schema change ({destructive})"
        if action == "error":
            change.errors.append(
                f"{text}; on_destructive_change is 'error' (allowed: allow, warn, ignore)"
            )
        elif action == "ignore":
            project_table = True
        else:
            if action == "warn":
                change.warnings.append(text)
            change.rewrite = True
    if change.rewrite:
        # the new schema: the query's columns, existing values cast, new columns NULL
        parts = []
        for key, (name, _) in query_types.items():
            value = quote(table_types[key][0]) if key in table_types else "null"
            parts.append(f"cast({value} as {query_sql[key]}) as {quote(name)}")
        change.rewrite_select = ", ".join(parts)
        change.add_columns = []
    elif project_table:
        names = [n for n, _ in table]
        if change.add_columns:
            names += [n for n, _ in added]
        change.projection = [
            quote(n)
            if n.lower() in query_types
            else f"cast(null as {table_sql[n.lower()]}) as {quote(n)}"
            for n in names
        ]
    return change


def quote(name: str) -> str:
    """A Spark identifier in backquotes, backquotes doubled (vulcan_quote_identifier)."""
    return "`" + name.replace("`", "``") + "`"


def type_sql(dtype: str) -> str:
    """A type as Spark describes it, as SQL: a struct's field names (printed bare, each running
    to its first colon) in backquotes (macros/text/sql_string.sql: vulcan_type_sql)."""
    text = dtype.strip()
    if "struct<" not in text.lower():
        return text
    out: list[str] = []
    opened: list[bool] = []  # per open `<`: whether it opened a struct
    name: str | None = None
    word = ""
    parens = 0
    for ch in text:
        if name is not None:
            if ch == ":":
                out.append(quote(name) + ":")
                name = None
            elif ch == ">" and not name:
                opened.pop()
                out.append(ch)
                name = None
            else:
                name += ch
        elif ch == "<":
            opened.append(word.strip().lower() == "struct")
            out.append(ch)
            word = ""
            if opened[-1]:
                name = ""
        elif ch == ">":
            if opened:
                opened.pop()
            out.append(ch)
            word = ""
        elif ch == "," and parens == 0 and opened and opened[-1]:
            out.append(ch)
            word = ""
            name = ""
        else:
            parens += {"(": 1, ")": -1}.get(ch, 0)
            out.append(ch)
            word = "" if ch in ",:()" else word + ch
    return "".join(out)
