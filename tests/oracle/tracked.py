"""The oracle of the tracked kind (macros/kinds/tracked/): what a run leaves in the table.

Rows are mappings of column to value. A group is the rows sharing the `group_key` values; its
content is the multiset of its rows' other columns. A run replaces the groups whose content
differs, inserts the new ones and deletes the table's groups the query lacks; with a window
(a test of a group's time: its latest row's `time_column`), only the query's groups in the
window count, and the table's groups outside it stay. A table built from nothing (`created`:
new, --full-refresh, a full-history restatement) gets every group of the query: the window
applies to incremental runs only."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Row = Mapping[str, Any]
Key = tuple[Any, ...]


class TrackedInputError(ValueError):
    """A query the kind refuses: a NULL key, or a row twice in one group."""


@dataclass(frozen=True)
class Sync:
    rows: list[dict[str, Any]]
    inserted: int
    replaced: int
    deleted: int
    unchanged: int


def groups(rows: Sequence[Row], key: Sequence[str]) -> dict[Key, list[Row]]:
    out: dict[Key, list[Row]] = {}
    for row in rows:
        out.setdefault(tuple(row[k] for k in key), []).append(row)
    return out


def content(rows: Sequence[Row], key: Sequence[str], ignore: Sequence[str] = ()) -> Counter[Any]:
    """A group's content: its rows without the key (and `ignore`d columns), as a multiset."""
    skip = set(key) | set(ignore)
    return Counter(tuple(sorted((c, v) for c, v in row.items() if c not in skip)) for row in rows)


def check(rows: Sequence[Row], key: Sequence[str]) -> None:
    nulls = sum(1 for row in rows if any(row[k] is None for k in key))
    if nulls:
        raise TrackedInputError(f"group_key is NULL in {nulls} row(s)")
    for k, group in groups(rows, key).items():
        if any(n > 1 for n in content(group, key).values()):
            raise TrackedInputError(f"group {k} holds the same row more than once")


def sync(
    table: Sequence[Row],
    query: Sequence[Row],
    key: Sequence[str],
    time_column: str | None = None,
    in_window: Callable[[Any], bool] | None = None,
    ignore: Sequence[str] = (),
    created: bool = False,
) -> Sync:
    """The table after one run over `query` (`ignore`: columns of the table the content leaves
    out, as its hash column; `created`: the run builds the table from nothing, so `table` is
    not read and the window does not apply)."""
    check(query, key)
    if created:
        table, in_window = [], None
    source = groups(query, key)
    if time_column is not None and in_window is not None:
        source = {k: g for k, g in source.items() if in_window(max(r[time_column] for r in g))}
    stored = groups(table, key)
    kept: list[dict[str, Any]] = []
    deleted = 0
    for k, group in stored.items():
        if k in source:
            continue
        outside = (
            time_column is not None
            and in_window is not None
            and not in_window(max(r[time_column] for r in group))
        )
        if outside:
            kept += [dict(r) for r in group]
        else:
            deleted += 1
    inserted = sum(1 for k in source if k not in stored)
    replaced = sum(
        1
        for k, g in source.items()
        if k in stored and content(g, key) != content(stored[k], key, ignore)
    )
    rows = kept + [dict(r) for g in source.values() for r in g]
    unchanged = len(source) - inserted - replaced
    return Sync(rows, inserted, replaced, deleted, unchanged)
