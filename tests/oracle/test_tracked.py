"""The tracked kind's oracle on random group histories: a run mirrors the query's groups,
is idempotent, with a window leaves the table's groups outside it as they were, and a table
built from nothing gets every group whatever the window."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.oracle import tracked

KEY = ["k"]
ROWS = st.lists(
    st.fixed_dictionaries(
        {
            "k": st.integers(1, 5),
            "v": st.one_of(st.none(), st.integers(0, 3)),
            "t": st.integers(0, 9),
        }
    ),
    max_size=12,
).map(lambda rows: [dict(r) for i, r in enumerate(rows) if r not in rows[:i]])


def canon(rows: Sequence[Mapping[str, Any]]) -> list[Any]:
    return sorted(repr(sorted(r.items())) for r in rows)


@given(ROWS, ROWS)
def test_without_a_window_the_table_becomes_the_query(table: Any, query: Any) -> None:
    result = tracked.sync(table, query, KEY)
    assert canon(result.rows) == canon(query)
    again = tracked.sync(result.rows, query, KEY)
    assert (again.inserted, again.replaced, again.deleted) == (0, 0, 0)
    assert again.unchanged == len(tracked.groups(query, KEY))


@given(ROWS, ROWS)
def test_a_window_keeps_the_groups_outside_it(table: Any, query: Any) -> None:
    def inside(t: int) -> bool:
        return t >= 5

    result = tracked.sync(table, query, KEY, "t", inside)
    got = tracked.groups(result.rows, KEY)
    for key, group in tracked.groups(query, KEY).items():
        if inside(max(r["t"] for r in group)):
            assert canon(got[key]) == canon(group)
    for key, group in tracked.groups(table, KEY).items():
        in_query = key in tracked.groups(query, KEY) and inside(
            max(r["t"] for r in tracked.groups(query, KEY)[key])
        )
        if not in_query and not inside(max(r["t"] for r in group)):
            assert canon(got[key]) == canon(group)
        if not in_query and inside(max(r["t"] for r in group)):
            assert key not in got


@given(ROWS, ROWS)
def test_a_table_built_from_nothing_gets_every_group_whatever_the_window(
    table: Any, query: Any
) -> None:
    result = tracked.sync(table, query, KEY, "t", lambda t: t >= 5, created=True)
    assert canon(result.rows) == canon(query)
    assert result.inserted == len(tracked.groups(query, KEY))
    assert (result.replaced, result.deleted, result.unchanged) == (0, 0, 0)


def test_bad_input_is_refused() -> None:
    with pytest.raises(tracked.TrackedInputError, match="NULL in 1 row"):
        tracked.sync([], [{"k": None, "v": 1}], KEY)
    with pytest.raises(tracked.TrackedInputError, match="same row more than once"):
        tracked.sync([], [{"k": 1, "v": 1}, {"k": 1, "v": 1}], KEY)
