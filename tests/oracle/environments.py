"""The oracle of the virtual layer (macros/environments/): a model's version and the physical
table an environment chooses for it. The Python reference the Jinja is checked against
(tests/unit/macros/environments/); never run.

A node is a mapping as dbt's graph holds it: unique_id, resource_type, name, raw_code,
config (dbt-vulcan's keys directly or under `meta`), depends_on.nodes, checksum, and for a
source, source_name.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

KINDS = (
    "incremental_by_time_range",
    "incremental_by_unique_key",
    "incremental_by_partition",
    "incremental_unmanaged",
    "scd_type_2_by_time",
    "scd_type_2_by_column",
    "tracked",
)
# the config keys a version hashes: the kind, the keys that shape the rows, the table's layout
VERSION_KEYS = (
    "materialized",
    "time_column",
    "time_format",
    "time_data_type",
    "unique_key",
    "when_matched",
    "merge_filter",
    "group_key",
    "content_hash_column",
    "valid_from_name",
    "valid_to_name",
    "updated_at_name",
    "columns",
    "invalidate_hard_deletes",
    "updated_at_as_valid_from",
    "execution_time_as_valid_from",
    "file_format",
    "partition_by",
    "partitioned_by",
    "partition_by_time_column",
    "location_root",
    "forward_only",
)


def _md5(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()


def config(node: Mapping[str, Any]) -> dict[str, Any]:
    """The node's config with dbt-vulcan's keys found under `meta` too (a key set directly
    wins)."""
    values = dict(node.get("config") or {})
    meta = values.get("meta")
    if isinstance(meta, Mapping):
        for key, value in meta.items():
            if key not in values and value is not None:
                values[key] = value
    return values


def is_virtual(node: Mapping[str, Any]) -> bool:
    return node.get("resource_type") == "model" and config(node).get("materialized") in KINDS


def _forward_only(cfg: Mapping[str, Any]) -> bool:
    value = cfg.get("forward_only")
    return value is True or str(value).lower() == "true"


def identity(node: Mapping[str, Any]) -> tuple[list[Any], bool]:
    """What of the node itself its version hashes, and whether it is forward_only."""
    if node.get("resource_type") == "source":
        return ["source", str(node["source_name"]).lower(), str(node["name"]).lower()], False
    if not is_virtual(node):
        checksum = str((node.get("checksum") or {}).get("checksum") or "")
        return [node["resource_type"], str(node["name"]).lower(), checksum], False
    cfg = config(node)
    shaping = {k: str(cfg[k]) for k in VERSION_KEYS if cfg.get(k) is not None}
    parts: list[Any] = [shaping, None]  # no enforced contract in these nodes
    forward_only = _forward_only(cfg)
    if not forward_only:
        parts.append(str(node.get("raw_code") or "").strip())
    return parts, forward_only


def identity_hash(node: Mapping[str, Any]) -> str:
    return _md5(json.dumps(identity(node)[0]))[:10]


def version(unique_id: str, graph: Mapping[str, Mapping[str, Any]]) -> str:
    """The version of node `unique_id` of `graph` ({unique_id: node}, sources too)."""
    memo: dict[str, str] = {}

    def walk(uid: str) -> str:
        if uid in memo:
            return memo[uid]
        node = graph[uid]
        parts, forward_only = identity(node)
        parents: list[str] = []
        if not forward_only:
            for pid in sorted(set((node.get("depends_on") or {}).get("nodes") or [])):
                parents.append(walk(pid) if pid in graph else pid)
        memo[uid] = _md5(json.dumps([parts, parents]))[:10]
        return memo[uid]

    return walk(unique_id)


@dataclass(frozen=True)
class Choice:
    """Which physical table an environment uses for a model."""

    own: bool  # a table of this environment only
    reuse: bool  # prod's table, read only


def resolve(
    unique_id: str,
    graph: Mapping[str, Mapping[str, Any]],
    *,
    is_prod: bool,
    window: bool,
    prod_uses: Sequence[str],
    changed_forward_only: Sequence[str] = (),
    deferred: bool = False,
) -> Choice:
    """The choice for a model: `prod_uses`, the models whose version prod's view points at;
    `window`, a dev window is set; `changed_forward_only`, the forward_only models whose SQL
    prod's table has not run; `deferred`, dbt's --defer had the model read another version of
    a parent."""
    done: dict[str, Choice] = {}

    def parents(uid: str) -> list[str]:
        found: dict[str, None] = {}
        seen: set[str] = set()
        todo = list((graph[uid].get("depends_on") or {}).get("nodes") or [])
        for pid in todo:
            if pid in seen:
                continue
            seen.add(pid)
            node = graph.get(pid)
            if node is None or node.get("resource_type") != "model":
                continue
            if is_virtual(node):
                found[pid] = None
            else:
                todo.extend((node.get("depends_on") or {}).get("nodes") or [])
        return sorted(found)

    def walk(uid: str) -> Choice:
        if uid in done:
            return done[uid]
        node = graph[uid]
        cfg = config(node)
        own = False
        if not is_prod:
            if uid in prod_uses:
                own = uid in changed_forward_only and _forward_only(cfg)
            elif deferred and uid == unique_id:
                own = True  # its rows come from outside its version's lineage
            elif cfg.get("materialized") == "incremental_unmanaged":
                own = True  # its table is its own run history
            elif (
                window
                and cfg.get("start") is not None
                and (
                    cfg.get("materialized") != "incremental_by_time_range"
                    or "{{ this }}" in str(node.get("raw_code") or "")
                )
            ):
                own = True
            else:
                own = any(walk(p).own for p in parents(uid))
        done[uid] = Choice(own=own, reuse=uid in prod_uses and not own and not is_prod)
        return done[uid]

    return walk(unique_id)


def current_table(shown: str | None, newest: Sequence[tuple[str, int]]) -> str:
    """Which of a version's two tables is its table now: `newest`, each table's key and the
    time of its newest log row (0 without one), its own table first. A run that only reads
    prod's table takes the one prod's view shows (`shown`); a run that writes, the one whose
    log is newer, its first on a tie: a rebuild writes the table no view shows, so the newer
    log is the latest rebuild's."""
    if shown is not None:
        return shown
    (first, first_at), (aside, aside_at) = newest
    return aside if aside_at > first_at else first
