"""The fold that keeps a relation's state log short (state/fold.sql): when it folds, what it
appends and removes on each format, and why that is safe: the folded log, alone, beside the
rows it replaces (a run stopped between the append and the removal) or followed by later rows,
replays as the log it folds (the oracle: compact and RelationState of tests/oracle/state.py,
on hypothesis-generated logs)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.state import RelationState, StateRow, compact, values_sql
from tests.support.macro_harness import (
    CompilerError,
    FakeResult,
    Harness,
    appended_values,
    relation,
    squash,
)
from tests.support.state_logs import RECORDED, T0, by_key, logs

STATE = "vulcan_state.vulcan_intervals"
KEY = "s.daily"
DAY = timedelta(days=1)

_H = Harness()


def daily_log(count: int) -> list[StateRow]:
    """A daily model that ran once a day: one processed row per day."""
    return [
        StateRow(
            KEY,
            T0 + i * DAY,
            T0 + (i + 1) * DAY,
            "processed",
            "f1",
            f"inv-{i}",
            RECORDED + i * DAY,
            1,
            "model.p.daily",
            '{"time_type": "date"}',
        )
        for i in range(count)
    ]


def read_rows(log: list[StateRow]) -> list[dict[str, Any]]:
    """The rows as a run's read hands them over, each from its own parquet append."""
    rows = by_key(log).get(KEY, [])
    for row in rows:
        row["append_id"] = f"{row['invocation_id']}-20250601"
    return rows


def fold(
    log: list[StateRow],
    file_format: str = "parquet",
    limit: int | None = None,
    describe: list[tuple[Any, ...]] | None = None,
) -> tuple[bool, list[str]]:
    _H.statements.clear()
    _H.query_results.clear()
    target, var = _H.context["target"], _H.context["var"]
    _H.context["target"] = {**target, "state_file_format": file_format}
    if limit is not None:
        _H.context["var"] = lambda name, default=None: (
            limit if name == "vulcan_state_fold_rows" else default
        )
    if describe is not None:
        _H.query_results[f"describe table {STATE}"] = FakeResult(describe)
    try:
        folded = _H.call("vulcan_fold_state", KEY, read_rows(log), "daily")
    finally:
        _H.context["target"], _H.context["var"] = target, var
    return folded, list(_H.statements)


def folded_values(rows: list[StateRow]) -> str:
    """values_sql of the folded rows, as an append or a VALUES list writes them."""
    return squash(values_sql(compact(rows)))


PARTITIONED_DELTA = [
    ("relation", "string", None),
    ("model_id", "string", None),
    ("# Partition Information", "", ""),
    ("# col_name", "data_type", "comment"),
    ("relation", "string", None),
]
PARTITIONED_ICEBERG = [
    ("relation", "string", None),
    ("", "", ""),
    ("# Partitioning", "", ""),
    ("Part 0", "relation", ""),
]
UNPARTITIONED = [("relation", "string", None), ("details", "string", None)]


def test_a_short_log_is_not_folded() -> None:
    assert fold(daily_log(99)) == (False, [])
    # the default limit is 100 rows; 0 turns folding off
    assert fold(daily_log(100), limit=0) == (False, [])
    assert fold(daily_log(3), limit=3)[0]


def test_parquet_appends_the_compaction_then_drops_the_appends_read() -> None:
    log = daily_log(100)
    folded, statements = fold(log)
    assert folded
    append, drop = statements
    # the 100 days are one contiguous range: one row, carrying the latest run's fields
    assert appended_values(append) == folded_values(log)
    assert len(compact(log)) == 1
    assert drop.startswith(f"alter table {STATE} drop if exists partition (relation = 's.daily', ")
    assert drop.count("partition (") == 100
    assert "append_id = 'inv-0-20250601'" in drop and "append_id = 'inv-99-20250601'" in drop


def test_parquet_drops_at_most_500_appends_a_statement() -> None:
    log = daily_log(1001)
    folded, statements = fold(log)
    assert folded
    assert [s.count("partition (") for s in statements[1:]] == [500, 500, 1]


@pytest.mark.parametrize(
    ("file_format", "describe"), [("delta", PARTITIONED_DELTA), ("iceberg", PARTITIONED_ICEBERG)]
)
def test_delta_and_iceberg_overwrite_the_relation_s_partition_in_one_commit(
    file_format: str, describe: list[tuple[Any, ...]]
) -> None:
    log = daily_log(100)
    folded, statements = fold(log, file_format, describe=describe)
    assert folded
    describe_sql, overwrite = statements
    assert describe_sql == f"describe table {STATE}"
    # the folded rows and the rows recorded after the newest row read (its time in full:
    # the stored text compares as the time it writes)
    newest = (RECORDED + 99 * DAY).strftime("%Y-%m-%d %H:%M:%S.%f")
    kept = (
        "model_id, interval_start, interval_end, row_type, fingerprint, invocation_id, "
        "recorded_at, seq, details"
    )
    assert overwrite == (
        f"insert overwrite table {STATE} partition (relation = 's.daily') "
        f"select {kept} from values {folded_values(log)} as vulcan_rows(relation, {kept}) "
        f"union all select {kept} from {STATE} where relation = 's.daily' "
        f"and recorded_at > '{newest}'"
    )


def test_a_log_that_replays_to_nothing_keeps_only_later_rows() -> None:
    removed = replace(daily_log(1)[0], kind="removed")
    _, statements = fold([removed, removed], "delta", limit=2, describe=PARTITIONED_DELTA)
    assert statements[1] == (
        f"insert overwrite table {STATE} partition (relation = 's.daily') select model_id, "
        "interval_start, interval_end, row_type, fingerprint, invocation_id, recorded_at, seq, "
        f"details from {STATE} where relation = 's.daily' "
        f"and recorded_at > '{RECORDED.strftime('%Y-%m-%d %H:%M:%S.%f')}'"
    )


def test_stored_times_compare_as_text_as_they_do_as_times() -> None:
    """The overwrite keeps rows by comparing the stored text with the newest time written in
    full: a time stored without its (zero) microseconds compares as that time."""
    newest = datetime(2025, 6, 1, 8, 30, 0, 500000).strftime("%Y-%m-%d %H:%M:%S.%f")
    for stored, later in [
        ("2025-06-01 08:30:00", False),
        ("2025-06-01 08:30:00.500000", False),
        ("2025-06-01 08:30:00.500001", True),
        ("2025-06-01 08:30:01", True),
        ("2025-06-01 08:29:59.999999", False),
    ]:
        assert (stored > newest) is later, stored


@pytest.mark.parametrize("file_format", ["delta", "iceberg"])
def test_a_state_table_from_before_the_partitioning_is_not_folded(file_format: str) -> None:
    folded, statements = fold(daily_log(100), file_format, describe=UNPARTITIONED)
    assert (folded, statements) == (False, [f"describe table {STATE}"])


def test_a_pending_restatement_is_not_folded_away() -> None:
    log = daily_log(100)
    restated = StateRow(
        KEY,
        T0,
        T0 + DAY,
        "removed",
        "f1",
        "inv-r",
        RECORDED + 200 * DAY,
        1,
        "model.p.daily",
        '{"restate": true, "full": false}',
    )
    assert fold([*log, restated]) == (False, [])
    # recomputed since: nothing pending, folded
    again = replace(log[0], recorded_at=RECORDED + 201 * DAY, invocation_id="inv-again")
    assert fold([*log, restated, again])[0]
    full = replace(
        restated,
        start=T0 - 400 * DAY,
        end=T0 + 400 * DAY,
        details='{"restate": true, "full": true}',
    )
    assert fold([*log, full]) == (False, [])


def test_a_fragmented_log_that_would_not_halve_is_not_folded() -> None:
    # every other day: 100 ranges that compaction cannot merge
    log = [
        replace(r, start=T0 + 2 * i * DAY, end=T0 + (2 * i + 1) * DAY)
        for i, r in enumerate(daily_log(100))
    ]
    assert fold(log) == (False, [])


def later(rows: list[StateRow], after: list[StateRow]) -> list[StateRow]:
    """`rows` recorded after every row of `after` (a later run's)."""
    shift = (max((r.recorded_at for r in after), default=RECORDED) - RECORDED) + timedelta(days=1)
    return [replace(r, recorded_at=r.recorded_at + shift, seq=r.seq + 1000) for r in rows]


def summary(rows: list[StateRow]) -> tuple[Any, ...]:
    state = RelationState(tuple(rows))
    latest = state.latest
    return (
        state.processed,
        state.pending_restatements,
        state.pending_full_restatement,
        # what a plan takes from the latest processed row (its bounds are the range's now)
        None if latest is None else (latest.fingerprint, latest.details, latest.model_id),
    )


@settings(max_examples=200, deadline=None)
@given(read=logs([KEY], max_rows=20), after=logs([KEY], max_rows=8), crashed=st.booleans())
def test_the_folded_log_replays_as_the_log_it_folds(
    read: list[StateRow], after: list[StateRow], crashed: bool
) -> None:
    """What the fold writes (and, on parquet, a run stopped before the removal leaves the rows
    it replaces beside it), followed by any later rows, replays as the unfolded log: the same
    intervals, pending restatements and latest processed row. The fold is refused while a
    restatement, a write or a stage is pending (it would be lost)."""
    state = RelationState(tuple(read))
    if (
        state.pending_restatements
        or state.pending_full_restatement
        or state.pending_writes
        or state.pending_stages
    ):
        assert fold(read, limit=1) == (False, [])
        return
    folded = compact(read)
    rest = later(after, read)
    kept = [*read, *folded] if crashed else folded
    assert summary([*kept, *rest]) == summary([*read, *rest])
    # and the Jinja fold appends exactly these rows, when it folds
    done, statements = fold(read, limit=1)
    if done and folded:
        assert appended_values(statements[0]) == squash(values_sql(folded))
    elif done:
        # a log that replays to nothing: nothing appended, what was read dropped
        assert all(s.startswith(f"alter table {STATE} drop") for s in statements)


@pytest.mark.parametrize("value", ["abc", -1, "1.5", True, [3], "1" * 10])
def test_a_bad_limit_is_refused_naming_the_var(value: Any) -> None:
    var = _H.context["var"]
    _H.context["var"] = lambda name, default=None: (
        value if name == "vulcan_state_fold_rows" else default
    )
    try:
        with pytest.raises(
            CompilerError, match=r"vulcan_state_fold_rows: .* is not a whole number"
        ):
            _H.call("vulcan_fold_state", KEY, [], "daily")
    finally:
        _H.context["var"] = var


def test_a_rebuild_does_not_fold() -> None:
    _H.statements.clear()
    assert _H.call("vulcan_fold_state", KEY, read_rows(daily_log(200)), "daily", True) is False
    assert _H.statements == []
    # the limit may come as text (an environment variable's)
    var = _H.context["var"]
    _H.context["var"] = lambda name, default=None: (
        "150" if name == "vulcan_state_fold_rows" else default
    )
    try:
        assert _H.call("vulcan_state_fold_rows") == 150
    finally:
        _H.context["var"] = var


def test_a_settled_write_is_folded_with_its_own_append() -> None:
    """A run that settles a stopped run's write (engine/write_check.sql) and then folds: the
    settling rows are among those folded, so the fold drops their append too (parquet: a
    partition per append), and nothing of them is left beside the folded rows."""
    log = daily_log(5)
    writing = replace(
        log[-1],
        start=T0 + 5 * DAY,
        end=T0 + 6 * DAY,
        kind="writing",
        invocation_id="inv-w",
        recorded_at=RECORDED + 5 * DAY,
        details='{"write_mark": {"stage": "daily__vulcan_stage"}}',
    )
    rows = read_rows([*log, writing])
    _H.statements.clear()
    target, var = _H.context["target"], _H.context["var"]
    _H.context["target"] = {**target, "state_file_format": "parquet"}
    _H.context["var"] = lambda name, default=None: (
        3 if name == "vulcan_state_fold_rows" else default
    )
    try:
        cfg = {"model": "daily", "file_format": "parquet"}
        _H.call("vulcan_settle_writes", relation("s", "daily"), cfg, rows, [])
        [settle] = list(_H.statements)
        # the write had not committed: abandoned, in an append of its own, named before
        assert rows[-1]["row_type"] == "abandoned"
        appended = rows[-1]["append_id"]
        assert appended and appended != rows[-2]["append_id"]
        assert f"'{appended}' from values" in squash(settle)
        assert _H.call("vulcan_fold_state", KEY, rows, "daily")
    finally:
        _H.context["target"], _H.context["var"] = target, var
    drops = " ".join(_H.statements[2:])
    # every append read, and the settle's
    assert drops.count("partition (") == 7
    assert f"append_id = '{appended}'" in drops
