"""The model config keys, read from their one declaration: the table of
`dbt/include/vulcan/macros/config/config_keys.sql` (`vulcan_config_keys()`: JSON data that the
macro reads with `fromjson`), which the macros use in both modes. This module renders that
macro once (plain Jinja, no dbt context) and derives what Python needs: the keys of each kind,
the required ones, dbt's own keys, and the option tables of the reference
(docs/reference/config.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from jinja2.sandbox import SandboxedEnvironment

import dbt.include.vulcan as vulcan_project

SOURCE = Path(vulcan_project.PACKAGE_PATH) / "macros" / "config" / "config_keys.sql"


@dataclass(frozen=True)
class ConfigKey:
    name: str
    kinds: tuple[str, ...]
    section: str
    type: str
    default: str
    meaning: str
    aliases: tuple[str, ...] = ()
    required_by: tuple[str, ...] = ()
    dbt: bool = False
    modes: str = "both"
    default_by_kind: dict[str, str] = field(default_factory=dict)
    # what the validator reads (see the declaration's header): how the value is checked, the
    # allowed choices, the minimum of an int, and the setting's normalized default
    check: str | None = None
    allowed: tuple[str, ...] = ()
    allowed_by_kind: dict[str, tuple[str, ...]] = field(default_factory=dict)
    minimum: int | None = None
    value: Any = None
    value_by_kind: dict[str, Any] = field(default_factory=dict)
    value_by_adapter: dict[str, Any] = field(default_factory=dict)
    checked_on: tuple[str, ...] = ()
    dbt_node_value: Any = None

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


class _Returned(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


def _return(value: Any) -> None:
    raise _Returned(value)


def _macro_value(name: str) -> Any:
    """What the declaration's macro `name` returns, rendered with plain Jinja."""
    env = SandboxedEnvironment(extensions=["jinja2.ext.do"])
    module = env.from_string(
        SOURCE.read_text(), globals={"return": _return, "fromjson": json.loads}
    ).module
    try:
        getattr(module, name)()
    except _Returned as returned:
        return returned.value
    raise RuntimeError(f"{SOURCE}: {name} returned nothing")  # pragma: no cover


KINDS: tuple[str, ...] = tuple(_macro_value("vulcan_kinds"))
# dbt's own keys outside the table that are never refused (nor suggested for a typo)
DBT_OTHER_KEYS: tuple[str, ...] = tuple(_macro_value("vulcan_dbt_other_keys"))


def _kinds(value: Any) -> tuple[str, ...]:
    return KINDS if value == "all" else tuple(value)


@cache
def config_keys() -> tuple[ConfigKey, ...]:
    """Every key of the declaration, in its order."""
    rows = _macro_value("vulcan_config_keys")
    keys = []
    for row in rows:
        kinds = _kinds(row["kinds"])
        unknown = set(kinds) - set(KINDS)
        if unknown:
            raise RuntimeError(f"{SOURCE}: key {row['name']}: unknown kinds {sorted(unknown)}")
        keys.append(
            ConfigKey(
                name=row["name"],
                kinds=kinds,
                section=row["section"],
                type=row["type"],
                default=row["default"],
                meaning=row["meaning"],
                aliases=tuple(row.get("aliases", ())),
                required_by=tuple(row.get("required_by", ())),
                dbt=bool(row.get("dbt", False)),
                modes=row.get("modes", "both"),
                default_by_kind=dict(row.get("default_by_kind", {})),
                check=row.get("check"),
                allowed=tuple(row.get("allowed", ())),
                allowed_by_kind={k: tuple(v) for k, v in row.get("allowed_by_kind", {}).items()},
                minimum=row.get("min"),
                value=row.get("value"),
                value_by_kind=dict(row.get("value_by_kind", {})),
                value_by_adapter=dict(row.get("value_by_adapter", {})),
                checked_on=_kinds(row["checked_on"]) if "checked_on" in row else (),
                dbt_node_value=row.get("dbt_node_value"),
            )
        )
    return tuple(keys)


def key(name: str) -> ConfigKey:
    """The declared key `name`."""
    return next(k for k in config_keys() if k.name == name)


def kind_keys() -> dict[str, set[str]]:
    """dbt-vulcan's own keys (and aliases) each kind accepts; dbt's keys are not listed: a kind
    that does not use one ignores it."""
    return {
        kind: {n for key in config_keys() if kind in key.kinds and not key.dbt for n in key.names}
        for kind in KINDS
    }


def required_keys() -> dict[str, tuple[str, ...]]:
    return {
        kind: tuple(key.name for key in config_keys() if kind in key.required_by) for kind in KINDS
    }


def dbt_keys() -> set[str]:
    """dbt's (and dbt-spark's) keys that dbt-vulcan honours, with their aliases, and dbt's
    other keys that are never refused."""
    return {n for key in config_keys() if key.dbt for n in key.names} | set(DBT_OTHER_KEYS)


_SHORT = {
    "incremental_by_time_range": "time range",
    "incremental_by_unique_key": "unique key",
    "incremental_by_partition": "partition",
    "incremental_unmanaged": "unmanaged",
    "scd_type_2_by_time": "SCD2 by time",
    "scd_type_2_by_column": "SCD2 by column",
    "tracked": "tracked",
}


def option_table(section: str) -> str:
    """The option table of one section of docs/reference/config.md ('every', a kind,
    'scd_type_2'); outside 'every', a column names the kinds that accept each key."""
    every = section == "every"
    head = "| option | type | default | meaning |" + ("" if every else " kinds |")
    lines = [head, "| --- | --- | --- | --- |" + ("" if every else " --- |")]
    for key in config_keys():
        if key.section != section:
            continue
        shown = " / ".join(f"`{n}`" for n in key.names)
        meaning = key.meaning
        if key.modes == "adapter":
            meaning += " (`vulcan` adapter only)"
        row = f"| {shown} | {key.type} | {key.default} | {meaning} |"
        if not every:
            row += " " + ", ".join(_SHORT[k] for k in key.kinds) + " |"
        lines.append(row)
    return "\n".join(lines)


SECTIONS = ("every", KINDS[0], KINDS[1], "scd_type_2", "tracked")
