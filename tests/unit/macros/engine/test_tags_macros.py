"""Macro rendering of Unity Catalog tags (engine/tags.sql): the tags read from the model's
`databricks_tags` and its columns', the refusal where no Unity Catalog is, the layout that
records them, and what is set on a table just created or changed since the log recorded it
(dbt-databricks' own `apply_tags` / `apply_column_tags`, stubbed here: Unity Catalog does not
run on this machine)."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from tests.support.macro_harness import CompilerError, Harness, relation, shared_harness

TAGS = {"team": "finance", "tier": "1"}


def cfg(**changes: Any) -> dict[str, Any]:
    base = {
        "model": "orders",
        "kind": "incremental_by_unique_key",
        "file_format": "delta",
        "partition_cols": [],
        "databricks_tags": {},
    }
    return {**base, **changes}


def model(columns: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": "orders", "unique_id": "model.p.orders", "columns": columns or {}}


@pytest.fixture(params=["vulcan", "databricks"])
def h(request: pytest.FixtureRequest) -> Iterator[Harness]:
    harness = shared_harness(request.param).reset()
    before = dict(harness.context)
    calls: list[tuple[str, Any]] = []
    harness.context["apply_tags"] = lambda rel, tags: calls.append(("table", tags)) or ""
    harness.context["apply_column_tags"] = lambda rel, tags: (
        calls.append(("columns", tags["set_column_tags"])) or ""
    )
    harness.context["model"] = model()
    harness.calls = calls  # type: ignore[attr-defined]
    yield harness
    harness.context.clear()
    harness.context.update(before)


def test_no_tags_reads_nothing(h: Harness) -> None:
    h.context["model"] = model({"id": {"name": "id", "description": "x"}})
    assert h.call("vulcan_tags", cfg()) == {}
    assert "tags" not in h.call("vulcan_layout", cfg())


def test_the_model_s_and_its_columns_tags(h: Harness) -> None:
    h.context["model"] = model(
        {
            "id": {"name": "id", "databricks_tags": {"pii": None, "level": 2}},
            "amount": {"name": "amount", "description": "no tags"},
        }
    )
    wanted = {"table": TAGS, "columns": {"id": {"pii": "", "level": "2"}}}
    assert h.call("vulcan_tags", cfg(databricks_tags=TAGS)) == wanted
    assert h.call("vulcan_layout", cfg(databricks_tags=TAGS))["tags"] == wanted
    # a column's tags alone
    assert h.call("vulcan_tags", cfg())["table"] == {}


def test_bad_column_tags_name_the_model_the_column_and_the_value(h: Harness) -> None:
    h.context["model"] = model({"id": {"name": "id", "databricks_tags": ["pii"]}})
    with pytest.raises(CompilerError) as raised:
        h.call("vulcan_tags", cfg())
    text = str(raised.value)
    assert "Invalid config for model 'orders' (incremental_by_unique_key)" in text
    assert "columns.id.databricks_tags: ['pii'] is not a mapping of tag names to values" in text


def test_tags_are_refused_where_there_is_no_unity_catalog(h: Harness) -> None:
    tags = h.call("vulcan_tags", cfg(databricks_tags=TAGS))
    unity = SimpleNamespace(database="main")
    if h.adapter_type != "databricks":
        with pytest.raises(CompilerError, match="type: vulcan has no Unity Catalog"):
            h.call("vulcan_check_tags", cfg(databricks_tags=TAGS), tags, unity)
        return
    for catalog in (None, "hive_metastore", "HIVE_METASTORE"):
        with pytest.raises(CompilerError) as raised:
            h.call("vulcan_check_tags", cfg(), tags, SimpleNamespace(database=catalog))
        text = str(raised.value)
        assert "Model 'orders' (incremental_by_unique_key): databricks_tags " in text
        assert "Tags are only supported for Unity Catalog" in text
        assert "hive_metastore" in text.lower() and "Nothing was run" in text
    h.call("vulcan_check_tags", cfg(), tags, unity)  # a Unity Catalog catalog: no error


def test_a_created_table_gets_every_tag_a_later_run_only_what_changed(h: Harness) -> None:
    if h.adapter_type != "databricks":
        with pytest.raises(CompilerError, match="need type: databricks"):
            h.call("vulcan_apply_tags", relation(), {"table": TAGS, "columns": {}}, {})
        return
    calls = h.calls  # type: ignore[attr-defined]
    wanted = {"table": TAGS, "columns": {"id": {"pii": "yes"}, "amount": {"unit": "eur"}}}
    h.call("vulcan_apply_tags", relation(), wanted, {})  # created: everything
    assert calls == [("table", TAGS), ("columns", wanted["columns"])]
    calls.clear()
    h.call("vulcan_apply_tags", relation(), wanted, wanted)  # recorded as wanted: nothing
    assert calls == []
    had = {"table": {"team": "finance", "old": "x"}, "columns": {"id": {"pii": "no"}}}
    h.call("vulcan_apply_tags", relation(), wanted, had)
    # set only, as dbt-databricks: `old` stays on the table; `tier` added, `pii` changed
    assert calls == [
        ("table", {"tier": "1"}),
        ("columns", {"id": {"pii": "yes"}, "amount": {"unit": "eur"}}),
    ]
