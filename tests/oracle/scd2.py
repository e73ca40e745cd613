"""The oracle of the SCD type 2 kinds (`scd_type_2_by_time`, `scd_type_2_by_column`;
macros/kinds/scd2/): their SQL, the Python reference the Jinja is checked against
(tests/unit/macros/kinds/scd2/test_scd2_macros.py); never run.

One run (or one batch of a history backfill) compares the model's query (the *source*, one row
per key) with the *current* rows of the table (`valid_to IS NULL`) and decides per key:

========================= =================================================================
key is ...                what happens
========================= =================================================================
in both, changed          current row closed at the change time; source row inserted from it
in both, unchanged        nothing (the stored row keeps every value, even non-watched ones)
only in the source        inserted: from 1970-01-01 on the first load (table empty), else
                          from the change time, but never before the key's last `valid_to`
only in the table         with `invalidate_hard_deletes`: closed at the detection time (by
                          column with `updated_at_name`: the batch's latest change time)
========================= =================================================================

*Changed*: by time, a strictly newer `updated_at`; by column, any watched column differs
(NULL-safe: NULL -> value and value -> NULL are changes). *Change time*: by time, the row's
`updated_at`; by column, the detection time, or the row's `updated_at_name` column when set (a
source that already holds history, e.g. daily snapshots). *Detection time*: the run's execution
time; a batch that is followed by later batches of the same run (a history backfill) is
detected at its interval's end. A closed row keeps all its stored values: only `valid_to`
changes (an old version's NULLs are never filled from the new version).

Duplicate keys in one run's source: the row with the latest `updated_at` wins (by time, and by
column with `updated_at_name`); several rows sharing the latest `updated_at`, or any duplicate
key by column without `updated_at_name`, fail the write with an error naming model, key and an
example value, before anything is written.

Writes: `changes_sql` + `merge_sql` (Delta, Iceberg: only the changed keys are touched) and
`rewrite_sql` (the table's complete new content, for a staged rewrite of parquet tables).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dbt.adapters.vulcan.timemacros import time_literal
from dbt.adapters.vulcan.timeutil import EPOCH, VulcanConfigError, parse_time
from tests.oracle.config import SCD2_BY_COLUMN, SCD2_BY_TIME, ModelConfig
from tests.oracle.engine import sql_string
from tests.oracle.unique_key import parse_keys

__all__ = ["Scd2Model", "detection_time", "quote"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QUOTED = re.compile(r"`(?:[^`]|``)+`")
_SQL_TYPES = {"timestamp": "TIMESTAMP", "timestamp_ntz": "TIMESTAMP_NTZ", "date": "DATE"}


def quote(name: str) -> str:
    """A Spark identifier in backticks."""
    return "`" + name.replace("`", "``") + "`"


def _plain_name(key: str) -> str | None:
    """The column name when a unique_key entry is a plain (optionally quoted) column."""
    text = key.strip()
    if _IDENTIFIER.fullmatch(text):
        return text
    if _QUOTED.fullmatch(text):
        return text[1:-1].replace("``", "`")
    return None


def detection_time(execution_time: str, batch: Mapping[str, Any]) -> datetime:
    """When a batch's changes and hard deletes are seen: the run's execution time, except for
    a batch followed by later batches of the same run (a history backfill), seen at its end."""
    executed = parse_time(execution_time, "vulcan_execution_time")
    if batch.get("tracked", True) and int(batch["index"]) < int(batch["count"]):
        return min(parse_time(batch["end"], "batch end"), executed)
    return executed


@dataclass(frozen=True)
class Scd2Model:
    """An SCD type 2 model's columns and options, checked against its query's columns."""

    model: str
    kind: str
    columns: tuple[str, ...]  # the query's columns, in order
    column_types: tuple[str, ...]
    keys: tuple[str, ...]  # SQL expressions over the query's columns
    key_labels: tuple[str, ...]
    valid_from: str
    valid_to: str
    valid_type: str  # timestamp | timestamp_ntz | date
    updated_at: str | None
    watched: tuple[str, ...]  # by column: the compared columns
    invalidate_hard_deletes: bool
    updated_at_as_valid_from: bool
    execution_time_as_valid_from: bool

    # ------------------------------------------------------------------------------ build

    @classmethod
    def build(cls, cfg: ModelConfig, query_columns: Sequence[tuple[str, str]]) -> Scd2Model:
        """Check the config against the query's (name, type) columns; every problem at once."""
        names = [name for name, _ in query_columns]
        by_lower = {name.lower(): name for name in names}
        problems: list[str] = []

        def resolve(name: str, key: str) -> str:
            found = by_lower.get(name.lower())
            if found is None:
                problems.append(
                    f"{key}: {name!r} is not a column of the model's query; its columns are: "
                    f"{', '.join(names)}"
                )
                return name
            return found

        keys: list[str] = []
        labels: list[str] = []
        key_columns: set[str] = set()
        for entry in cfg.unique_key:
            plain = _plain_name(entry)
            if plain is None:  # an expression over the query's columns
                parsed, key_problems = parse_keys([entry])
                problems.extend(key_problems)
                missing = [c for k in parsed for c in k.columns() if c.lower() not in by_lower]
                if missing:
                    problems.append(
                        f"unique_key: {entry.strip()!r} names {', '.join(missing)}, which is "
                        f"not a column of the model's query; its columns are: {', '.join(names)}"
                    )
                keys.append(entry.strip())
                labels.append(entry.strip())
                continue
            column = resolve(plain, "unique_key")
            key_columns.add(column.lower())
            keys.append(quote(column))
            labels.append(column)
        if not keys:
            problems.append("unique_key: required (a column, an expression or a list of them)")

        valid_from, valid_to = cfg.valid_from_name, cfg.valid_to_name
        if valid_from.lower() == valid_to.lower():
            problems.append(
                f"valid_to_name: {valid_to!r} is also the valid_from_name; give them two names"
            )
        for option, name in (("valid_from_name", valid_from), ("valid_to_name", valid_to)):
            if name.lower() in by_lower:
                problems.append(
                    f"{option}: the model's query already has a column {name!r}; rename it in "
                    f"the query or set {option} to another name"
                )

        updated_at = (
            resolve(cfg.updated_at_name, "updated_at_name") if cfg.updated_at_name else None
        )
        watched: list[str] = []
        if cfg.kind == SCD2_BY_COLUMN:
            if cfg.columns is None:  # '*': every column but the keys and the change time
                skip = key_columns | ({updated_at.lower()} if updated_at else set())
                watched = [n for n in names if n.lower() not in skip]
            else:
                watched = [resolve(c, "columns") for c in cfg.columns]
        elif cfg.kind != SCD2_BY_TIME:
            problems.append(f"kind: {cfg.kind!r} is not an SCD type 2 kind")
        if problems:
            lines = "\n".join(f"  - {p}" for p in problems)
            raise VulcanConfigError(
                f"Invalid config for model '{cfg.model}' ({cfg.kind}), "
                f"{len(problems)} problem(s):\n{lines}"
            )
        return cls(
            model=cfg.model,
            kind=cfg.kind,
            columns=tuple(names),
            column_types=tuple(dtype for _, dtype in query_columns),
            keys=tuple(keys),
            key_labels=tuple(labels),
            valid_from=valid_from,
            valid_to=valid_to,
            valid_type=cfg.time_data_type or "timestamp",
            updated_at=updated_at,
            watched=tuple(watched),
            invalidate_hard_deletes=cfg.invalidate_hard_deletes,
            updated_at_as_valid_from=cfg.updated_at_as_valid_from,
            execution_time_as_valid_from=cfg.execution_time_as_valid_from,
        )

    # ---------------------------------------------------------------------- small pieces

    @property
    def sql_type(self) -> str:
        return _SQL_TYPES[self.valid_type]

    def table_columns(self) -> list[dict[str, str]]:
        """The table's columns: the query's, then valid_from and valid_to."""
        out = [
            {"name": n, "dtype": t} for n, t in zip(self.columns, self.column_types, strict=True)
        ]
        valid_type = self.valid_type
        out += [{"name": self.valid_from, "dtype": valid_type}]
        out += [{"name": self.valid_to, "dtype": valid_type}]
        return out

    def _literal(self, value: datetime) -> str:
        return time_literal(value, self.valid_type)

    def _cast(self, expr: str) -> str:
        return f"CAST({expr} AS {self.sql_type})"

    def _key_names(self, prefix: str = "") -> list[str]:
        return [f"{prefix}_vulcan_k{i}" for i in range(len(self.keys))]

    def _key_select(self) -> str:
        return ", ".join(f"{expr} AS _vulcan_k{i}" for i, expr in enumerate(self.keys))

    def _duplicate_check(self) -> str:
        """A predicate that fails the statement on a duplicate key (lazy `raise_error`)."""
        example = ", ".join(f"coalesce(cast({k} AS STRING), 'NULL')" for k in self._key_names())
        keys = ", ".join(self.key_labels)
        if self.updated_at is not None:
            what = f" and the same latest {self.updated_at}"
            fix = "; keep one row per key and change time in the model's query"
        else:
            what = ""
            fix = "; SCD type 2 by column needs one row per key per run: deduplicate the query"
        head = sql_string(f"Model '{self.model}' ({self.kind}): ")
        middle = sql_string(f" rows of the query share unique_key ({keys}) = (")
        tail = sql_string(f"){what}{fix}")
        message = (
            f"concat({head}, cast(_vulcan_dups AS STRING), {middle}, "
            f"concat_ws(', ', {example}), {tail})"
        )
        return (
            f"CASE WHEN _vulcan_dups > 1 THEN CAST(raise_error({message}) AS BOOLEAN) ELSE TRUE END"
        )

    # ----------------------------------------------------------------------- the decision

    def _decided(
        self, target: str, source_sql: str, detected_at: datetime, history: bool, empty: bool
    ) -> str:
        """A query with one row per source row and per stored row (all of them with `history`,
        else only current ones, plus closed ones when hard deletes need their last valid_to),
        each with its decision: _vulcan_close/_vulcan_close_at for stored rows,
        _vulcan_insert/_vulcan_valid_from for source rows. One shuffle: every step is a
        window over the key.

        `empty`: the table is known to be empty (created by this run, first batch)."""
        q = quote
        cols = [q(c) for c in self.columns]
        vf, vt = q(self.valid_from), q(self.valid_to)
        null = f"CAST(NULL AS {self.sql_type})"
        detected = self._literal(detected_at)
        upd = q(self.updated_at) if self.updated_at else None
        src, cur = "_vulcan_is_source", f"(NOT _vulcan_is_source AND {vt} IS NULL)"

        # the stored rows this run reads
        if empty:
            stored = ""
        else:
            where = ""
            if not history:
                where = "" if self.invalidate_hard_deletes else f"\n  WHERE {vt} IS NULL"
            stored = (
                f"\n  UNION ALL\n  SELECT {', '.join(cols)}, {vf}, {vt}, FALSE, "
                f"{self._key_select()}\n  FROM {target} AS vulcan_table{where}"
            )

        # what a source row is compared with: the key's current row
        compared = list(self.watched)
        if self.kind == SCD2_BY_TIME and self.updated_at is not None:
            compared = [self.updated_at]
        fields = ", ".join(f"'c{i}', {q(c)}" for i, c in enumerate(compared))
        current = f"max(IF({cur}, named_struct({fields}), NULL)) OVER w" if compared else "NULL"

        latest = ""
        if upd is not None:
            latest = f"\n    max(IF({src}, {upd}, NULL)) OVER w AS _vulcan_latest,"
            dups = f"count(IF({src} AND {upd} <=> _vulcan_latest, 1, NULL)) OVER w"
            winner = f"{src} AND {upd} <=> _vulcan_latest"
        else:
            dups = "_vulcan_source_rows"
            winner = src

        if self.kind == SCD2_BY_TIME:
            assert upd is not None
            old = "_vulcan_current.c0"
            changed = f"({upd} > {old} OR ({old} IS NULL AND {upd} IS NOT NULL))"
        elif compared:
            changed = (
                "NOT ("
                + " AND ".join(f"{q(c)} <=> _vulcan_current.c{i}" for i, c in enumerate(compared))
                + ")"
            )
        else:
            changed = "FALSE"
        change_time = f"coalesce({self._cast(upd)}, {detected})" if upd else detected

        epoch = self._literal(EPOCH)
        if self.kind == SCD2_BY_TIME and self.updated_at_as_valid_from and upd is not None:
            first_from = f"coalesce({self._cast(upd)}, {epoch})"
        elif self.kind == SCD2_BY_COLUMN and self.execution_time_as_valid_from:
            first_from = "_vulcan_change_time"
        else:
            first_from = epoch
        if empty:
            first_load = "TRUE"
        else:
            first_load = f"(SELECT count(*) FROM (SELECT 1 FROM {target} LIMIT 1)) = 0"

        deleted_at = detected
        if self.kind == SCD2_BY_COLUMN and upd is not None and self.invalidate_hard_deletes:
            # a history source: a key missing from a snapshot is gone as of that snapshot
            latest_seen = f"SELECT max({self._cast(upd)}) FROM vulcan_rows WHERE {src}"
            deleted_at = f"coalesce(({latest_seen}), {detected})"
        invalidate = str(self.invalidate_hard_deletes).upper()

        return f"""WITH vulcan_rows AS (
  SELECT {", ".join(cols)}, {null} AS {vf}, {null} AS {vt}, TRUE AS _vulcan_is_source,
    {self._key_select()}
  FROM (
{source_sql}
  ) AS vulcan_query{stored}
),
vulcan_keyed AS (
  SELECT *,
    count(IF({src}, 1, NULL)) OVER w AS _vulcan_source_rows,{latest}
    count(IF({cur}, 1, NULL)) OVER w > 0 AS _vulcan_in_target,
    max(IF({cur}, {vf}, NULL)) OVER w AS _vulcan_current_from,
    {current} AS _vulcan_current,
    max(IF(NOT {src}, {vt}, NULL)) OVER w AS _vulcan_last_to
  FROM vulcan_rows
  WINDOW w AS (PARTITION BY {", ".join(self._key_names())})
),
vulcan_counted AS (
  SELECT *, {dups} AS _vulcan_dups
  FROM vulcan_keyed
  WINDOW w AS (PARTITION BY {", ".join(self._key_names())})
),
vulcan_compared AS (
  SELECT *,
    {winner} AND {self._duplicate_check()} AS _vulcan_winner,
    _vulcan_in_target AND coalesce({changed}, FALSE) AS _vulcan_changed,
    {change_time} AS _vulcan_change_time
  FROM vulcan_counted
),
vulcan_propagated AS (
  SELECT *,
    count(IF(_vulcan_winner, 1, NULL)) OVER w > 0 AS _vulcan_key_in_source,
    max(IF(_vulcan_winner AND _vulcan_changed, _vulcan_change_time, NULL)) OVER w
      AS _vulcan_key_changed_at
  FROM vulcan_compared
  WINDOW w AS (PARTITION BY {", ".join(self._key_names())})
),
vulcan_decided AS (
  SELECT *,
    {cur} AND (
      _vulcan_key_changed_at IS NOT NULL OR (NOT _vulcan_key_in_source AND {invalidate})
    ) AS _vulcan_close,
    greatest(
      CASE WHEN _vulcan_key_in_source THEN _vulcan_key_changed_at ELSE {deleted_at} END,
      _vulcan_current_from
    ) AS _vulcan_close_at,
    _vulcan_winner AND (NOT _vulcan_in_target OR _vulcan_changed) AS _vulcan_insert,
    CASE
      WHEN _vulcan_in_target THEN greatest(_vulcan_change_time, _vulcan_current_from)
      WHEN {first_load} THEN {first_from}
      ELSE greatest(_vulcan_change_time, _vulcan_last_to)
    END AS _vulcan_valid_from
  FROM vulcan_propagated
)"""

    # ------------------------------------------------------------------------ statements

    def create_sql(self, schema_sql: str) -> str:
        """A query with the table's columns, for creating the empty table."""
        cols = ", ".join(quote(c) for c in self.columns)
        null = f"CAST(NULL AS {self.sql_type})"
        return (
            f"SELECT {cols}, {null} AS {quote(self.valid_from)}, {null} AS {quote(self.valid_to)}"
            f"\nFROM (\n{schema_sql}\n) AS vulcan_schema"
        )

    def changes_sql(
        self, target: str, source_sql: str, detected_at: datetime, empty: bool = False
    ) -> str:
        """The rows a MERGE applies: one 'close' row per current row to close (its key and
        _vulcan_close_at) and one 'insert' row per new version (its columns as _vulcan_c<i>,
        and _vulcan_valid_from)."""
        keys = ", ".join(self._key_names())
        data = ", ".join(f"{quote(c)} AS _vulcan_c{i}" for i, c in enumerate(self.columns))
        decided = self._decided(target, source_sql, detected_at, history=False, empty=empty)
        return f"""{decided}
SELECT IF(_vulcan_is_source, 'insert', 'close') AS _vulcan_action, {keys},
  _vulcan_close_at, _vulcan_valid_from, {data}
FROM vulcan_decided
WHERE _vulcan_close OR _vulcan_insert"""

    def merge_sql(self, target: str, changes: str) -> str:
        """One MERGE of `changes` (a relation, or `(<changes_sql>)`): closes the current rows
        of changed and deleted keys and inserts the new versions. Only current rows of changed
        keys are matched (their files rewritten)."""
        on = " AND ".join(
            f"{self._target_key(i)} <=> vulcan_changes.{k}" for i, k in enumerate(self._key_names())
        )
        insert_cols = ", ".join(
            [quote(c) for c in self.columns] + [quote(self.valid_from), quote(self.valid_to)]
        )
        insert_values = ", ".join(
            [f"vulcan_changes._vulcan_c{i}" for i in range(len(self.columns))]
            + ["vulcan_changes._vulcan_valid_from", f"CAST(NULL AS {self.sql_type})"]
        )
        vt = quote(self.valid_to)
        return f"""MERGE INTO {target} AS vulcan_target
USING {changes} AS vulcan_changes
ON vulcan_changes._vulcan_action = 'close' AND vulcan_target.{vt} IS NULL AND {on}
WHEN MATCHED THEN UPDATE SET vulcan_target.{vt} = vulcan_changes._vulcan_close_at
WHEN NOT MATCHED AND vulcan_changes._vulcan_action = 'insert'
  THEN INSERT ({insert_cols}) VALUES ({insert_values})"""

    def _target_key(self, i: int) -> str:
        """Key `i` evaluated on the MERGE target (the source side has only _vulcan_ columns)."""
        expr = self.keys[i]
        plain = _plain_name(expr)
        return f"vulcan_target.{quote(plain)}" if plain is not None else expr

    def rewrite_sql(
        self, target: str, source_sql: str, detected_at: datetime, empty: bool = False
    ) -> str:
        """The table's complete new content, in its column order: every stored row (closed
        where due) and the new versions."""
        cols = ", ".join(quote(c) for c in self.columns)
        vf, vt = quote(self.valid_from), quote(self.valid_to)
        decided = self._decided(target, source_sql, detected_at, history=True, empty=empty)
        return f"""{decided}
SELECT {cols},
  IF(_vulcan_is_source, _vulcan_valid_from, {vf}) AS {vf},
  CASE WHEN _vulcan_is_source THEN CAST(NULL AS {self.sql_type})
    WHEN _vulcan_close THEN _vulcan_close_at ELSE {vt} END AS {vt}
FROM vulcan_decided
WHERE NOT _vulcan_is_source OR _vulcan_insert"""
