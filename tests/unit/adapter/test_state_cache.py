"""The `vulcan` adapter's state rows of one invocation (state_cache.py): one read for the whole
selection, the invocation's appends kept, a rewritten relation read again; against a log held
in memory that every read queries the way the read's SQL does."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dbt.adapters.vulcan.state_cache import StateCache, in_prefix, parse_values


def sql_string(value: str) -> str:
    """As macros/text/sql_string.sql writes a string literal."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


class Log:
    """The state table: rows, and the reads made of it."""

    def __init__(self) -> None:
        self.rows: list[tuple[Any, ...]] = []
        self.reads: list[tuple[list[str], list[str]]] = []

    def select(self, keys: list[str], prefixes: list[str]) -> list[tuple[Any, ...]]:
        return [r for r in self.rows if r[0] in keys or any(p < r[0] < p + "~" for p in prefixes)]

    def read(self, keys: list[str], prefixes: list[str]) -> list[tuple[Any, ...]]:
        self.reads.append((list(keys), list(prefixes)))
        return self.select(keys, prefixes)


def row(key: str, n: int) -> tuple[Any, ...]:
    return (
        key,
        "model.p.m",
        "2024-01-01 00:00:00",
        "2024-01-02 00:00:00",
        "processed",
        "f",
        "i",
        "t",
        n,
        "",
    )


def test_the_first_read_covers_the_selection_and_later_ones_read_nothing() -> None:
    log, cache = Log(), StateCache()
    log.rows = [row("s.a", 1), row("s.b", 1), row("s.c", 1), row("s.c__v1", 1), row("s.d", 1)]
    wide = (["s.a", "s.b", "s.c"], ["s.c__"])
    got = cache.rows("st", "inv", ["s.a"], [], log.read, *wide)
    assert got == [row("s.a", 1)]
    assert log.reads == [(["s.a", "s.b", "s.c"], ["s.c__"])]
    assert cache.wide_read_done("st", "inv")
    assert cache.rows("st", "inv", ["s.b", "s.c"], ["s.c__"], log.read) == [
        row("s.b", 1),
        row("s.c", 1),
        row("s.c__v1", 1),
    ]
    assert len(log.reads) == 1
    # outside the selection: read, for what is asked only
    assert cache.rows("st", "inv", ["s.d"], [], log.read, *wide) == [row("s.d", 1)]
    assert log.reads[1] == (["s.d"], [])


def test_appends_are_kept_and_a_rewritten_relation_is_read_again() -> None:
    log, cache = Log(), StateCache()
    log.rows = [row("s.a", 1)]
    cache.rows("st", "inv", ["s.a"], [], log.read, ["s.a", "s.b"], [])
    for new in (row("s.a", 2), row("s.b", 1), row("s.z", 1)):
        log.rows.append(new)
        cache.appended("st", "inv", [new])
    assert cache.rows("st", "inv", ["s.a", "s.b"], [], log.read) == [
        row("s.a", 1),
        row("s.a", 2),
        row("s.b", 1),
    ]
    assert len(log.reads) == 1
    # a fold: the relation's rows replaced in the table
    log.rows = [r for r in log.rows if r[0] != "s.a"] + [row("s.a", 9)]
    cache.rewritten("st", "inv", "s.a")
    assert cache.rows("st", "inv", ["s.a"], [], log.read) == [row("s.a", 9)]
    assert log.reads[-1] == (["s.a"], [])
    # another invocation starts over
    assert not cache.wide_read_done("st", "inv2")
    cache.rows("st", "inv2", ["s.b"], [], log.read)
    assert log.reads[-1] == (["s.b"], [])


def test_a_prefix_is_the_reads_range() -> None:
    assert in_prefix("s.m__v1", "s.m__")
    assert not in_prefix("s.m__", "s.m__")
    assert not in_prefix("s.mx", "s.m__")
    cache, log = StateCache(), Log()
    log.rows = [row("s.m__v1", 1), row("s.m__v2__dev", 1), row("s.m_x", 1)]
    cache.rows("st", "inv", [], ["s.m__"], log.read)
    # a longer prefix inside a covered one is covered
    assert cache.rows("st", "inv", [], ["s.m__v2"], log.read) == [row("s.m__v2__dev", 1)]
    assert len(log.reads) == 1
    # one whose range reaches past the covered one's end is not
    log.rows.append(row("s.m__~!", 1))
    assert cache.rows("st", "inv", [], ["s.m__~"], log.read) == [row("s.m__~!", 1)]
    assert len(log.reads) == 2
    # a key rewritten inside a covered range: the range is read again
    cache.rewritten("st", "inv", "s.m__v1")
    cache.rows("st", "inv", [], ["s.m__"], log.read)
    assert len(log.reads) == 3


def test_an_appends_values_come_back_as_written() -> None:
    texts = ["plain", "it's", "back\\slash", '{"a": "b\\"c", "d": [1, 2]}', "", "ünïcode"]
    values = ",\n".join(
        "(" + ", ".join([sql_string(t), sql_string("x"), str(n)]) + ")" for n, t in enumerate(texts)
    )
    assert parse_values(values) == [(t, "x", n) for n, t in enumerate(texts)]


KEYS = ["s.a", "s.b", "s.b__v1", "s.b__v2", "s.c", "s.c__v1__dev", "s.c__~!", "s.c__~"]
PREFIXES = ["s.b__", "s.c__", "s.c__v1", "s.c__~"]

operation = st.one_of(
    st.tuples(
        st.just("read"),
        st.lists(st.sampled_from(KEYS), max_size=3),
        st.lists(st.sampled_from(PREFIXES), max_size=2),
    ),
    st.tuples(st.just("append"), st.lists(st.sampled_from(KEYS), min_size=1, max_size=3)),
    st.tuples(st.just("rewrite"), st.sampled_from([*KEYS, None])),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(KEYS), st.integers(0, 3)), max_size=8),
    st.lists(st.sampled_from(KEYS), max_size=4),
    st.lists(st.sampled_from(PREFIXES), max_size=2),
    st.lists(operation, max_size=25),
)
def test_every_answer_equals_a_read_of_the_table(
    stored: list[tuple[str, int]],
    wide_keys: list[str],
    wide_prefixes: list[str],
    operations: list[Any],
) -> None:
    """Whatever the order of reads, appends and rewrites, the cache answers what a read of the
    table would return (as a multiset: the log's replay orders rows itself)."""
    log, cache = Log(), StateCache()
    log.rows = [row(k, n) for k, n in stored]
    counter = 100
    for op in operations:
        if op[0] == "read":
            got = cache.rows("st", "inv", op[1], op[2], log.read, wide_keys, wide_prefixes)
            assert sorted(got) == sorted(log.select(op[1], op[2]))
        elif op[0] == "append":
            new = []
            for key in op[1]:
                counter += 1
                new.append(row(key, counter))
            log.rows.extend(new)
            cache.appended("st", "inv", new)
        else:
            key = op[1]
            # a fold: the relation's rows become one row (every relation's: a compaction)
            kept = [r for r in log.rows if key is not None and r[0] != key]
            touched = sorted({r[0] for r in log.rows if key is None or r[0] == key})
            counter += 1
            log.rows = kept + [row(k, counter) for k in touched]
            cache.rewritten("st", "inv", key)
