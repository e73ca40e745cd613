# ruff: noqa: E501 (the spec's tables, kept as printed)
"""Fixtures of the SCD type 2 tests: the spec's example tables, written as in the spec.

`vulcan-model-kinds.md`, section "SCD Type 2". A table is text in the spec's markdown layout;
`parse` turns it into typed rows, `load` (re)creates a source table from it. Timestamps are
UTC (the test session's time zone).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

# column types of the fixture tables
TYPES = {
    "id": "int",
    "name": "string",
    "price": "double",
    "updated_at": "timestamp",
    "valid_from": "timestamp",
    "valid_to": "timestamp",
    "some_value": "int",
    "ds": "date",
}


def _value(text: str, kind: str) -> Any:
    if text.upper() == "NULL":
        return None
    if kind == "int":
        return int(text)
    if kind == "double":
        return float(text)
    if kind == "timestamp":
        return datetime.fromisoformat(text)
    if kind == "date":
        return date.fromisoformat(text)
    return text


def parse(
    table: str, types: dict[str, str] | None = None
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """(column names, typed rows) of a markdown table; the header names the columns."""
    kinds = {**TYPES, **(types or {})}
    lines = [line.strip() for line in table.strip().splitlines() if line.strip()]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = []
    for line in lines[1:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if all(set(c) <= set("-: ") for c in cells):
            continue  # the |---|---| line
        rows.append(tuple(_value(c, kinds[h]) for c, h in zip(cells, header, strict=True)))
    return header, rows


def _literal(value: Any, kind: str) -> str:
    if value is None:
        return f"CAST(NULL AS {kind})"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return f"CAST('{value}' AS {kind})"


# the columns of each loaded table, by (schema, name)
_loaded: dict[tuple[str, str], list[str]] = {}


def load(project: Any, name: str, table: str, types: dict[str, str] | None = None) -> None:
    """Fill the parquet table `name` of the test schema with `table`'s rows.

    Created on first use, then overwritten in place (new columns added): under the Iceberg
    session catalog a dropped table's files outlive it, and a view is not replaced."""
    kinds = {**TYPES, **(types or {})}
    header, rows = parse(table, types)
    relation = f"{project.test_schema}.{name}"
    casts = ", ".join(f"CAST(NULL AS {kinds[h]}) AS {h}" for h in header)
    selects = [f"SELECT {casts} WHERE FALSE"]
    for row in rows:
        values = ", ".join(
            f"{_literal(v, kinds[h])} AS {h}" for v, h in zip(row, header, strict=True)
        )
        selects.append(f"SELECT {values}")
    query = " UNION ALL ".join(selects)
    known = _loaded.get((project.test_schema, name))
    if known is None:
        project.run_sql(f"create table {relation} using parquet as {query}")
        _loaded[(project.test_schema, name)] = header
        return
    added = [h for h in header if h not in known]
    if added:
        columns = ", ".join(f"{h} {kinds[h]}" for h in added)
        project.run_sql(f"alter table {relation} add columns ({columns})")
        _loaded[(project.test_schema, name)] = known + added
    project.run_sql(f"insert overwrite table {relation} by name {query}")


# ------------------------------------------------------------------ restaurant menu, by time

MENU_1 = """
| id | name             | price |      updated_at     |
| -- | ---------------- | :---: | :-----------------: |
| 1  | Chicken Sandwich | 10.99 | 2020-01-01 00:00:00 |
| 2  | Cheeseburger     |  8.99 | 2020-01-01 00:00:00 |
| 3  | French Fries     |  4.99 | 2020-01-01 00:00:00 |
"""

MENU_2 = """
| id | name             | price |      updated_at     |
| -- | ---------------- | :---: | :-----------------: |
| 1  | Chicken Sandwich | 12.99 | 2020-01-02 00:00:00 |
| 3  | French Fries     |  4.99 | 2020-01-01 00:00:00 |
| 4  | Milkshake        |  3.99 | 2020-01-02 00:00:00 |
"""

# The spec's final source lists "Chocolate Milkshake" with updated_at 2020-01-02, while its
# result table shows that version with updated_at 2020-01-03 (and valid_from 2020-01-03): by
# time, a version is only recognised by a newer updated_at, so the result table is only
# reachable with 2020-01-03 in the source. MENU_3 uses that value; MENU_3_LITERAL keeps the
# spec's source as printed (the rename is then not a new version: see TIME_LITERAL_3).
MENU_3 = """
| id | name                | price |      updated_at     |
| -- | ------------------- | :---: | :-----------------: |
| 1  | Chicken Sandwich    | 14.99 | 2020-01-03 00:00:00 |
| 2  | Cheeseburger        |  8.99 | 2020-01-03 00:00:00 |
| 3  | French Fries        |  4.99 | 2020-01-01 00:00:00 |
| 4  | Chocolate Milkshake |  3.99 | 2020-01-03 00:00:00 |
"""

MENU_3_LITERAL = MENU_3.replace(
    "| Chocolate Milkshake |  3.99 | 2020-01-03 00:00:00 |",
    "| Chocolate Milkshake |  3.99 | 2020-01-02 00:00:00 |",
)

# Deletes section: Cheeseburger comes back with its original updated_at
MENU_3_BACK = MENU_3.replace(
    "| Cheeseburger        |  8.99 | 2020-01-03 00:00:00 |",
    "| Cheeseburger        |  8.99 | 2020-01-01 00:00:00 |",
)

TIME_1 = """
| id | name             | price |      updated_at     |      valid_from     | valid_to |
| -- | ---------------- | :---: | :-----------------: | :-----------------: | :------: |
| 1  | Chicken Sandwich | 10.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 |   NULL   |
| 2  | Cheeseburger     |  8.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 |   NULL   |
| 3  | French Fries     |  4.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 |   NULL   |
"""

# invalidate_hard_deletes: true, run at 2020-01-02 11:00:00
TIME_HARD_2 = """
| id | name             | price |      updated_at     |      valid_from     |       valid_to      |
| -- | ---------------- | :---: | :-----------------: | :-----------------: | :-----------------: |
| 1  | Chicken Sandwich | 10.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 | 2020-01-02 00:00:00 |
| 1  | Chicken Sandwich | 12.99 | 2020-01-02 00:00:00 | 2020-01-02 00:00:00 |         NULL        |
| 2  | Cheeseburger     |  8.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 | 2020-01-02 11:00:00 |
| 3  | French Fries     |  4.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 |         NULL        |
| 4  | Milkshake        |  3.99 | 2020-01-02 00:00:00 | 2020-01-02 00:00:00 |         NULL        |
"""

TIME_HARD_3 = """
| id | name                | price |      updated_at     |      valid_from     |       valid_to      |
| -- | ------------------- | :---: | :-----------------: | :-----------------: | :-----------------: |
| 1  | Chicken Sandwich    | 10.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 | 2020-01-02 00:00:00 |
| 1  | Chicken Sandwich    | 12.99 | 2020-01-02 00:00:00 | 2020-01-02 00:00:00 | 2020-01-03 00:00:00 |
| 1  | Chicken Sandwich    | 14.99 | 2020-01-03 00:00:00 | 2020-01-03 00:00:00 |         NULL        |
| 2  | Cheeseburger        |  8.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 | 2020-01-02 11:00:00 |
| 2  | Cheeseburger        |  8.99 | 2020-01-03 00:00:00 | 2020-01-03 00:00:00 |         NULL        |
| 3  | French Fries        |  4.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 |         NULL        |
| 4  | Milkshake           |  3.99 | 2020-01-02 00:00:00 | 2020-01-02 00:00:00 | 2020-01-03 00:00:00 |
| 4  | Chocolate Milkshake |  3.99 | 2020-01-03 00:00:00 | 2020-01-03 00:00:00 |         NULL        |
"""

# Deletes: back with its original updated_at, valid_from is the deleted row's valid_to
TIME_BACK_3 = """
| id | name                | price |      updated_at     |      valid_from     |       valid_to      |
| -- | ------------------- | :---: | :-----------------: | :-----------------: | :-----------------: |
| 1  | Chicken Sandwich    | 10.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 | 2020-01-02 00:00:00 |
| 1  | Chicken Sandwich    | 12.99 | 2020-01-02 00:00:00 | 2020-01-02 00:00:00 | 2020-01-03 00:00:00 |
| 1  | Chicken Sandwich    | 14.99 | 2020-01-03 00:00:00 | 2020-01-03 00:00:00 |         NULL        |
| 2  | Cheeseburger        |  8.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 | 2020-01-02 11:00:00 |
| 2  | Cheeseburger        |  8.99 | 2020-01-01 00:00:00 | 2020-01-02 11:00:00 |         NULL        |
| 3  | French Fries        |  4.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 |         NULL        |
| 4  | Milkshake           |  3.99 | 2020-01-02 00:00:00 | 2020-01-02 00:00:00 | 2020-01-03 00:00:00 |
| 4  | Chocolate Milkshake |  3.99 | 2020-01-03 00:00:00 | 2020-01-03 00:00:00 |         NULL        |
"""

# the spec's final source as printed: updated_at did not move, so no new version of id 4
TIME_LITERAL_3 = """
| id | name                | price |      updated_at     |      valid_from     |       valid_to      |
| -- | ------------------- | :---: | :-----------------: | :-----------------: | :-----------------: |
| 1  | Chicken Sandwich    | 10.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 | 2020-01-02 00:00:00 |
| 1  | Chicken Sandwich    | 12.99 | 2020-01-02 00:00:00 | 2020-01-02 00:00:00 | 2020-01-03 00:00:00 |
| 1  | Chicken Sandwich    | 14.99 | 2020-01-03 00:00:00 | 2020-01-03 00:00:00 |         NULL        |
| 2  | Cheeseburger        |  8.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 | 2020-01-02 11:00:00 |
| 2  | Cheeseburger        |  8.99 | 2020-01-03 00:00:00 | 2020-01-03 00:00:00 |         NULL        |
| 3  | French Fries        |  4.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 |         NULL        |
| 4  | Milkshake           |  3.99 | 2020-01-02 00:00:00 | 2020-01-02 00:00:00 |         NULL        |
"""

# invalidate_hard_deletes: false (default): a missing row stays valid; when it comes back with
# a newer updated_at, the old row ends where the new one starts
TIME_SOFT_2 = """
| id | name             | price |      updated_at     |      valid_from     |       valid_to      |
| -- | ---------------- | :---: | :-----------------: | :-----------------: | :-----------------: |
| 1  | Chicken Sandwich | 10.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 | 2020-01-02 00:00:00 |
| 1  | Chicken Sandwich | 12.99 | 2020-01-02 00:00:00 | 2020-01-02 00:00:00 |         NULL        |
| 2  | Cheeseburger     |  8.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 |         NULL        |
| 3  | French Fries     |  4.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 |         NULL        |
| 4  | Milkshake        |  3.99 | 2020-01-02 00:00:00 | 2020-01-02 00:00:00 |         NULL        |
"""

TIME_SOFT_3 = """
| id | name                | price |      updated_at     |      valid_from     |       valid_to      |
| -- | ------------------- | :---: | :-----------------: | :-----------------: | :-----------------: |
| 1  | Chicken Sandwich    | 10.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 | 2020-01-02 00:00:00 |
| 1  | Chicken Sandwich    | 12.99 | 2020-01-02 00:00:00 | 2020-01-02 00:00:00 | 2020-01-03 00:00:00 |
| 1  | Chicken Sandwich    | 14.99 | 2020-01-03 00:00:00 | 2020-01-03 00:00:00 |         NULL        |
| 2  | Cheeseburger        |  8.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 | 2020-01-03 00:00:00 |
| 2  | Cheeseburger        |  8.99 | 2020-01-03 00:00:00 | 2020-01-03 00:00:00 |         NULL        |
| 3  | French Fries        |  4.99 | 2020-01-01 00:00:00 | 1970-01-01 00:00:00 |         NULL        |
| 4  | Milkshake           |  3.99 | 2020-01-02 00:00:00 | 2020-01-02 00:00:00 | 2020-01-03 00:00:00 |
| 4  | Chocolate Milkshake |  3.99 | 2020-01-03 00:00:00 | 2020-01-03 00:00:00 |         NULL        |
"""

# ---------------------------------------------------------------- restaurant menu, by column
# runs at 2020-01-01 11:00, 2020-01-02 11:00 and 2020-01-03 11:00; watches name and price

COLUMN_1 = """
| id | name             | price |      valid_from     | valid_to |
| -- | ---------------- | :---: | :-----------------: | :------: |
| 1  | Chicken Sandwich | 10.99 | 1970-01-01 00:00:00 |   NULL   |
| 2  | Cheeseburger     |  8.99 | 1970-01-01 00:00:00 |   NULL   |
| 3  | French Fries     |  4.99 | 1970-01-01 00:00:00 |   NULL   |
"""

COLUMN_HARD_2 = """
| id | name             | price |      valid_from     |       valid_to      |
| -- | ---------------- | :---: | :-----------------: | :-----------------: |
| 1  | Chicken Sandwich | 10.99 | 1970-01-01 00:00:00 | 2020-01-02 11:00:00 |
| 1  | Chicken Sandwich | 12.99 | 2020-01-02 11:00:00 |         NULL        |
| 2  | Cheeseburger     |  8.99 | 1970-01-01 00:00:00 | 2020-01-02 11:00:00 |
| 3  | French Fries     |  4.99 | 1970-01-01 00:00:00 |         NULL        |
| 4  | Milkshake        |  3.99 | 2020-01-02 11:00:00 |         NULL        |
"""

COLUMN_HARD_3 = """
| id | name                | price |      valid_from     |       valid_to      |
| -- | ------------------- | :---: | :-----------------: | :-----------------: |
| 1  | Chicken Sandwich    | 10.99 | 1970-01-01 00:00:00 | 2020-01-02 11:00:00 |
| 1  | Chicken Sandwich    | 12.99 | 2020-01-02 11:00:00 | 2020-01-03 11:00:00 |
| 1  | Chicken Sandwich    | 14.99 | 2020-01-03 11:00:00 |         NULL        |
| 2  | Cheeseburger        |  8.99 | 1970-01-01 00:00:00 | 2020-01-02 11:00:00 |
| 2  | Cheeseburger        |  8.99 | 2020-01-03 11:00:00 |         NULL        |
| 3  | French Fries        |  4.99 | 1970-01-01 00:00:00 |         NULL        |
| 4  | Milkshake           |  3.99 | 2020-01-02 11:00:00 | 2020-01-03 11:00:00 |
| 4  | Chocolate Milkshake |  3.99 | 2020-01-03 11:00:00 |         NULL        |
"""

# invalidate_hard_deletes: false: Cheeseburger stays valid and comes back unchanged
COLUMN_SOFT_3 = """
| id | name                | price |      valid_from     |       valid_to      |
| -- | ------------------- | :---: | :-----------------: | :-----------------: |
| 1  | Chicken Sandwich    | 10.99 | 1970-01-01 00:00:00 | 2020-01-02 11:00:00 |
| 1  | Chicken Sandwich    | 12.99 | 2020-01-02 11:00:00 | 2020-01-03 11:00:00 |
| 1  | Chicken Sandwich    | 14.99 | 2020-01-03 11:00:00 |         NULL        |
| 2  | Cheeseburger        |  8.99 | 1970-01-01 00:00:00 |         NULL        |
| 3  | French Fries        |  4.99 | 1970-01-01 00:00:00 |         NULL        |
| 4  | Milkshake           |  3.99 | 2020-01-02 11:00:00 | 2020-01-03 11:00:00 |
| 4  | Chocolate Milkshake |  3.99 | 2020-01-03 11:00:00 |         NULL        |
"""

# ------------------------------------------------ processing a source with historical data

SNAPSHOTS = """
| id | some_value |     ds     |
| -- | ---------- | :--------: |
| 1  | 1          | 2025-01-01 |
| 1  | 2          | 2025-01-02 |
| 1  | 3          | 2025-01-03 |
| 1  | 3          | 2025-01-04 |
"""

HISTORY = """
| id | some_value |     ds     |     valid_from      |      valid_to       |
| -- | ---------- | :--------: | :-----------------: | :-----------------: |
| 1  | 1          | 2025-01-01 | 1970-01-01 00:00:00 | 2025-01-02 00:00:00 |
| 1  | 2          | 2025-01-02 | 2025-01-02 00:00:00 | 2025-01-03 00:00:00 |
| 1  | 3          | 2025-01-03 | 2025-01-03 00:00:00 |         NULL        |
"""

# with invalidate_hard_deletes: key 2 is missing from the 2025-01-03 snapshot, back on 01-04
SNAPSHOTS_DELETES = """
| id | some_value |     ds     |
| -- | ---------- | :--------: |
| 1  | 1          | 2025-01-01 |
| 2  | 10         | 2025-01-01 |
| 1  | 2          | 2025-01-02 |
| 2  | 10         | 2025-01-02 |
| 1  | 3          | 2025-01-03 |
| 1  | 3          | 2025-01-04 |
| 2  | 10         | 2025-01-04 |
"""

HISTORY_DELETES = """
| id | some_value |     ds     |     valid_from      |      valid_to       |
| -- | ---------- | :--------: | :-----------------: | :-----------------: |
| 1  | 1          | 2025-01-01 | 1970-01-01 00:00:00 | 2025-01-02 00:00:00 |
| 1  | 2          | 2025-01-02 | 2025-01-02 00:00:00 | 2025-01-03 00:00:00 |
| 1  | 3          | 2025-01-03 | 2025-01-03 00:00:00 |         NULL        |
| 2  | 10         | 2025-01-01 | 1970-01-01 00:00:00 | 2025-01-03 00:00:00 |
| 2  | 10         | 2025-01-04 | 2025-01-04 00:00:00 |         NULL        |
"""
