"""The config keys are declared once (macros/config/config_keys.sql): what the validator
accepts, the adapter's config class and the reference's option tables
(docs/reference/config.md) all come from it."""

from __future__ import annotations

import importlib.util
from dataclasses import fields
from pathlib import Path

from dbt.adapters.vulcan import config_keys
from dbt.adapters.vulcan.impl import VulcanConfig
from tests.oracle.config import KIND_KEYS, REQUIRED_KEYS, validate
from tests.support.macro_harness import Harness

ROOT = Path(__file__).resolve().parents[4]


def _reference_script() -> object:
    spec = importlib.util.spec_from_file_location(
        "reference_config_tables", ROOT / "scripts" / "reference_config_tables.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reference_tables_are_generated_from_the_declaration() -> None:
    text = (ROOT / "docs" / "reference" / "config.md").read_text()
    assert _reference_script().rendered(text) == text, (  # type: ignore[attr-defined]
        "docs/reference/config.md's config tables differ from config_keys.sql: "
        "run `.venv/bin/python scripts/reference_config_tables.py`"
    )
    for section in config_keys.SECTIONS:
        assert f"<!-- config-table: {section} -->" in text
    # every key of the declaration is in the reference, in its section's table
    for key in config_keys.config_keys():
        assert f"| `{key.name}`" in text


def test_every_declared_key_is_accepted_by_its_kinds_and_refused_by_the_others() -> None:
    for key in config_keys.config_keys():
        for kind in config_keys.KINDS:
            accepted = kind in key.kinds or key.dbt
            assert (key.name in KIND_KEYS[kind] or key.dbt) == accepted, (key.name, kind)
    assert REQUIRED_KEYS["incremental_by_time_range"] == ("time_column", "start")
    assert REQUIRED_KEYS["scd_type_2_by_column"] == ("unique_key", "columns")


def test_the_adapter_config_class_has_every_key() -> None:
    names = {f.name for f in fields(VulcanConfig)}
    for key in config_keys.config_keys():
        assert set(key.names) <= names, key.name


def test_the_macro_and_python_read_the_same_table() -> None:
    h = Harness()
    rows = h.call("vulcan_config_keys")
    assert [r["name"] for r in rows] == [k.name for k in config_keys.config_keys()]
    assert tuple(h.call("vulcan_kinds")) == config_keys.KINDS


def test_a_key_of_another_kind_names_its_owner() -> None:
    import pytest

    from dbt.adapters.vulcan.timeutil import VulcanConfigError

    with pytest.raises(VulcanConfigError, match="belongs to incremental_by_unique_key"):
        validate("m", "incremental_by_partition", {"partition_by": "a", "merge_filter": "x"})
    # dbt's keys never are "of another kind": incremental_predicates on a time range is ignored
    cfg = validate(
        "m",
        "incremental_by_time_range",
        {"time_column": "d", "start": "2025-01-01", "incremental_predicates": ["x"]},
    )
    assert cfg.kind == "incremental_by_time_range"
