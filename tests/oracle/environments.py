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

import sqlglot
import sqlglot.errors
from sqlglot import expressions as exp

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


@dataclass(frozen=True)
class Shown:
    """What prod's view of a model shows, as its pointer row records it."""

    version: str
    lineage: str
    shape: str  # the hash of the row-shaping keys
    parents: str  # the hash of the parents' lineages
    sql: str  # the version's SQL as written


@dataclass(frozen=True)
class Versioned:
    version: str
    lineage: str  # what the children hash for it
    shape: str
    parents: str


def versions(
    graph: Mapping[str, Mapping[str, Any]],
    prod: Mapping[str, Shown] | None = None,
    recorded: Mapping[tuple[str, str], str] | None = None,
) -> dict[str, Versioned]:
    """Every node's version and lineage: `prod`, what prod's view shows of each model;
    `recorded`, the lineage a pointer row recorded for (model, version). A version's lineage is
    the one recorded for it, else prod's version's lineage when the change from it is
    non-breaking (the same keys and parents, only columns added: is_non_breaking), else the
    version itself."""
    prod, recorded = prod or {}, recorded or {}
    memo: dict[str, Versioned] = {}

    def walk(uid: str) -> Versioned:
        if uid in memo:
            return memo[uid]
        node = graph[uid]
        parts, forward_only = identity(node)
        parents: list[str] = []
        if not forward_only:
            for pid in sorted(set((node.get("depends_on") or {}).get("nodes") or [])):
                parents.append(walk(pid).lineage if pid in graph else pid)
        v = _md5(json.dumps([parts, parents]))[:10]
        shape, parents_hash = _md5(json.dumps(parts[:2]))[:10], _md5(json.dumps(parents))[:10]
        lineage = v
        shown = prod.get(uid)
        if not is_virtual(node) or forward_only:
            pass
        elif (uid, v) in recorded:
            lineage = recorded[(uid, v)]
        elif (
            shown is not None
            and shown.version != v
            and (shown.shape, shown.parents) == (shape, parents_hash)
            and is_non_breaking(shown.sql, str(node.get("raw_code") or ""))
        ):
            lineage = shown.lineage
        memo[uid] = Versioned(v, lineage, shape, parents_hash)
        return memo[uid]

    for uid in graph:
        walk(uid)
    return memo


def version(unique_id: str, graph: Mapping[str, Mapping[str, Any]]) -> str:
    """The version of node `unique_id` of `graph` ({unique_id: node}, sources too), with no
    state (every lineage its version)."""
    return versions(graph)[unique_id].version


_GENERATORS = (
    exp.Explode,
    exp.ExplodeOuter,
    exp.Posexplode,
    exp.PosexplodeOuter,
    exp.Inline,
    exp.Stack,
)
_GENERATOR_NAMES = {"json_tuple", "inline_outer"}


def is_non_breaking(old: str, new: str) -> bool:
    """Whether `new` only adds columns to the outermost SELECT of `old`, read by sqlglot (Spark):
    both plain SELECTs (no set operation, no DISTINCT), the same query once the select lists
    are taken out, the old columns in order among the new, and no new column a star, a
    generator, or (in a query without GROUP BY) an aggregate outside a window."""
    try:
        a, b = sqlglot.parse_one(old, read="spark"), sqlglot.parse_one(new, read="spark")
    except sqlglot.errors.ParseError:
        return False
    if not (isinstance(a, exp.Select) and isinstance(b, exp.Select)):
        return False
    if a.args.get("distinct") or b.args.get("distinct"):
        return False
    olds = [e.sql("spark", comments=False) for e in a.expressions]
    added, i = [], 0
    for e in b.expressions:
        if i < len(olds) and e.sql("spark", comments=False) == olds[i]:
            i += 1
        else:
            added.append(e)
    if i != len(olds):
        return False
    bodies = []
    for query in (a, b):
        body = query.copy()
        body.set("expressions", [exp.column("_columns")])
        bodies.append(body.sql("spark", comments=False))
    if bodies[0] != bodies[1]:
        return False
    grouped = b.args.get("group") is not None
    for e in added:
        if e.is_star or e.find(*_GENERATORS):
            return False
        if any(f.name.lower() in _GENERATOR_NAMES for f in e.find_all(exp.Anonymous)):
            return False
        if not grouped and any(
            agg.find_ancestor(exp.Window) is None for agg in e.find_all(exp.AggFunc)
        ):
            return False
    return True


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
