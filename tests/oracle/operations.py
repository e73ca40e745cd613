"""The oracle of the run-operations (macros/operations/): which models a selection names (dbt's
graph operators over the whole dbt graph, in DAG order), what plan / status / history report
and what vulcan_restate records. The Python reference the Jinja is checked against
(tests/unit/macros/operations/test_operation_macros.py); never run.

The macros gather the dbt graph's nodes and which tables exist, decide and format; here the
same decisions in Python, as data (what each report says): the wording of the reports is the
Jinja's alone, checked by example in the unit tests. `build_reports` plans each model with
planning.plan_model, the oracle of the Jinja planning the materializations and `vulcan_plan`
share.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from dbt.adapters.vulcan.timeutil import (
    VulcanConfigError,
    format_ts,
    parse_end,
    parse_time,
)
from tests.oracle import config as model_config
from tests.oracle.planning import (
    FAR_FUTURE,
    FAR_PAST,
    RunVars,
    contract_signature,
    plan_model,
)
from tests.oracle.planning import restatement_range as widen_restatement
from tests.oracle.schedule import Interval
from tests.oracle.state import PROCESSED, REMOVED, RelationState, merge_ranges, row_details


def full_history_only(kind: str) -> bool:
    """Kinds that can only be restated as a whole (their rows are not tied to intervals):
    every kind but incremental_by_time_range."""
    return kind != model_config.TIME_RANGE


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def node_kind(node: Any) -> str | None:
    config = _get(node, "config", {}) or {}
    kind = _get(config, "materialized")
    return kind if kind in model_config.KINDS else None


def relation_key(node: Any, own_catalog: str | None = None) -> str:
    """A model's key in the state log: `schema.alias` in the target's own catalog
    (`own_catalog`; type: spark has none), `catalog.schema.alias` in any other."""
    alias = _get(node, "alias") or _get(node, "name")
    key = f"{_get(node, 'schema')}.{alias}".lower()
    catalog = _get(node, "database")
    if catalog and str(catalog).lower() != (own_catalog or "").lower():
        return f"{catalog}.{key}".lower()
    return key


@dataclass
class Selection:
    """What a `select` selects: the dbt-vulcan models in DAG order and the unique ids of those
    a term's name or tag matched itself (the others were reached through a graph operator)."""

    nodes: list[Any]
    named: set[str]


def _term(term: str) -> tuple[bool, str | None, str, str | None]:
    """A term's parts (`@`, the ancestors' depth, the name or `tag:<tag>`, the descendants'
    depth): a depth is None without its `+`, '' for every level, else digits."""
    at = term.startswith("@") and len(term) > 1
    rest = term[1:] if at else term
    up = None
    digits = len(rest) - len(rest.lstrip("0123456789"))
    if rest[digits : digits + 1] == "+" and len(rest) > digits + 1:
        up, rest = rest[:digits], rest[digits + 1 :]
    down = None
    body = rest.rstrip("0123456789")
    if body.endswith("+") and len(body) > 1:
        down, rest = rest[len(body) :], body[:-1]
    return at, up, rest, down


def _reach(start: Iterable[str], edges: Mapping[str, set[str]], depth: str | None) -> set[str]:
    """`start` and the nodes `edges` lead to from it in at most `depth` steps ('': any)."""
    limit = int(depth) if depth else None
    seen = set(start)
    frontier = set(seen)
    steps = 0
    while frontier and (limit is None or steps < limit):
        frontier = {o for n in frontier for o in edges.get(n, ()) if o not in seen}
        seen |= frontier
        steps += 1
    return seen


def selection(nodes: Iterable[Any], select: str | list[str] | None) -> Selection:
    """The dbt-vulcan models `select` selects (as `dbt ls --select`): model names and
    `tag:<tag>` with dbt's graph operators (`+`, `N+`, `+N`, `@`) over every node's
    depends_on.nodes, then only the dbt-vulcan models kept; all of them when `select` is
    empty. DAG order: by level (the most dbt-vulcan models on one chain of dependencies above
    a model), then name and unique id."""
    graph = list(nodes)
    ids = {str(_get(n, "unique_id")) for n in graph}
    vulcan = {
        str(_get(n, "unique_id")): n
        for n in graph
        if _get(n, "resource_type") == "model" and node_kind(n)
    }
    parents: dict[str, set[str]] = {}
    children: dict[str, set[str]] = {i: set() for i in ids}
    for n in graph:
        uid = str(_get(n, "unique_id"))
        parents[uid] = {p for p in (_get(_get(n, "depends_on") or {}, "nodes") or []) if p in ids}
        for p in parents[uid]:
            children[p].add(uid)

    if select is None or select == "" or select == []:
        terms: list[str] = []
    else:
        terms = select.split() if isinstance(select, str) else [str(t) for t in select]
    chosen: set[str] = set()
    named: set[str] = set()
    unknown: list[str] = []
    for term in terms:
        at, up, base, down = _term(term)
        if at and (up is not None or down is not None):
            raise VulcanConfigError(f"select: '@' and '+' cannot be combined in {term}")
        if base.startswith("tag:"):
            found = [n for n in graph if base[4:] in (_get(n, "tags") or [])]
        else:
            found = [n for n in graph if _get(n, "name") == base]
        start = {str(_get(n, "unique_id")) for n in found}
        reached = set(start)
        if at:
            reached |= _reach(_reach(start, children, ""), parents, "")
        if up is not None:
            reached |= _reach(start, parents, up)
        if down is not None:
            reached |= _reach(start, children, down)
        kept = reached & vulcan.keys()
        if not kept:
            unknown.append(term)
        chosen |= kept
        named |= start & vulcan.keys()
    if unknown:
        names = ", ".join(sorted(str(_get(n, "name")) for n in vulcan.values())) or "(none)"
        raise VulcanConfigError(
            f"select: no dbt-vulcan model matches {', '.join(unknown)}; models: {names}"
        )

    levels: dict[str, int] = {}

    def level(uid: str) -> int:
        if uid not in levels:
            levels[uid] = max(
                (level(p) + (p in vulcan) for p in parents[uid]),
                default=0,
            )
        return levels[uid]

    picked = [vulcan[i] for i in (chosen if terms else vulcan)]
    picked.sort(
        key=lambda n: (
            level(str(_get(n, "unique_id"))),
            str(_get(n, "name")),
            str(_get(n, "unique_id")),
        )
    )
    return Selection(picked, named)


def select_nodes(nodes: Iterable[Any], select: str | list[str] | None) -> list[Any]:
    """The dbt-vulcan models `select` selects (selection's nodes)."""
    return selection(nodes, select).nodes


@dataclass
class ModelReport:
    name: str
    kind: str
    tracked: bool
    date_grain: bool = True
    processed: list[Interval] = field(default_factory=list)
    missing: list[Interval] = field(default_factory=list)
    batches: list[Mapping[str, Any]] = field(default_factory=list)
    pending_restatements: list[Interval] = field(default_factory=list)
    full_restatement: bool = False
    changed: bool = False
    exists: bool = True
    error: str | None = None


def build_reports(
    nodes: list[Any],
    states: Mapping[str, RelationState],
    exists: Mapping[str, bool],
    run_vars: RunVars,
) -> list[ModelReport]:
    reports = []
    for node in nodes:
        kind = node_kind(node) or "?"
        name = str(_get(node, "name"))
        state = states.get(relation_key(node), RelationState(()))
        try:
            cfg = model_config.settings(node, kind)
        except VulcanConfigError as exc:
            reports.append(ModelReport(name=name, kind=kind, tracked=False, error=str(exc)))
            continue
        present = bool(exists.get(str(_get(node, "unique_id")), False))
        plan = plan_model(
            cfg,
            str(_get(node, "raw_code", "")),
            state,
            run_vars,
            not present,
            contract_signature(node),
        )
        tracked = cfg.start is not None
        reports.append(
            ModelReport(
                name=name,
                kind=kind,
                tracked=tracked,
                date_grain=cfg.schedule().unit.is_date_grain,
                processed=state.processed,
                missing=plan.missing if tracked else [],
                batches=[b.as_dict() for b in plan.batches],
                pending_restatements=state.pending_restatements,
                # the next run rebuilds for it, unless forward_only keeps the history
                full_restatement=state.pending_full_restatement and not cfg.forward_only,
                changed=plan.fingerprint_changed,
                exists=present,
            )
        )
    return reports


@dataclass
class StatusFacts:
    """What vulcan_status shows for one model (the text is the Jinja's alone)."""

    name: str
    error: str | None
    covered: list[Interval]
    gaps: list[Interval]
    missing: list[Interval]
    last_run: datetime | None
    invocation: str | None


def status_facts(
    reports: list[ModelReport],
    states: Mapping[str, RelationState],
    nodes: list[Any],
    since: datetime | None,
    until: datetime | None,
) -> list[StatusFacts]:
    """Per report: its processed ranges within since .. until, the gaps between them, the
    missing intervals and the latest run."""
    by_name = {str(_get(n, "name")): n for n in nodes}
    facts = []
    for r in reports:
        state = states.get(relation_key(by_name[r.name]), RelationState(()))
        low, high = since or FAR_PAST, until or FAR_FUTURE
        covered = merge_ranges(
            (max(s, low), min(e, high)) for s, e in r.processed if e > low and s < high
        )
        gaps = [(covered[i][1], covered[i + 1][0]) for i in range(len(covered) - 1)]
        latest = state.latest if not r.error else None
        facts.append(
            StatusFacts(
                r.name,
                r.error,
                covered,
                gaps,
                merge_ranges(r.missing),
                None if latest is None else latest.recorded_at,
                None if latest is None else latest.invocation_id,
            )
        )
    return facts


@dataclass
class HistoryRun:
    """One run (the rows of one dbt invocation) as vulcan_history shows it."""

    at: datetime
    invocation: str
    processed: list[Interval]
    batches: int
    ran: list[datetime]
    removed: list[Interval]
    restated: bool


def history_runs(
    nodes: list[Any], states: Mapping[str, RelationState], limit: int
) -> list[tuple[str, list[HistoryRun]]]:
    """Per model, its runs latest first, at most `limit`."""
    models = []
    for node in nodes:
        state = states.get(relation_key(node), RelationState(()))
        runs: dict[str, list[Any]] = {}
        for row in sorted(state.rows, key=lambda r: (r.recorded_at, r.seq)):
            runs.setdefault(row.invocation_id, []).append(row)
        recent = sorted(runs.items(), key=lambda kv: kv[1][-1].recorded_at, reverse=True)
        shown = []
        for invocation, rows in recent[:limit]:
            processed = [r.interval for r in rows if r.kind == PROCESSED and r.start < r.end]
            shown.append(
                HistoryRun(
                    at=rows[-1].recorded_at,
                    invocation=invocation,
                    processed=merge_ranges(processed),
                    batches=len(processed),
                    # an untracked kind's run: an empty range at its execution time
                    ran=[r.start for r in rows if r.kind == PROCESSED and r.start >= r.end],
                    removed=merge_ranges(r.interval for r in rows if r.kind == REMOVED),
                    restated=any(row_details(r).get("restate") for r in rows),
                )
            )
        models.append((str(_get(node, "name")), shown))
    return models


@dataclass
class Restatement:
    relation: str
    name: str
    start: str | None
    end: str | None
    full: bool
    warning: str | None
    skipped: str | None = None


def restatements(
    nodes: list[Any], start: object, end: object, named: Iterable[str] | None = None
) -> list[Restatement]:
    """What vulcan_restate records for each selected model (every refusal raised first).
    `named`: the unique ids the selection named (None: all); a model with
    disable_restatement reached only through a graph operator is skipped (no range), one
    that is named is refused. So is a model with forward_only of a kind that only supports
    full-history restatement (the next run would rebuild the history it keeps); a time range
    with forward_only is restated by range (nothing is rebuilt)."""
    direct = None if named is None else set(named)
    if start is None or end is None:
        raise VulcanConfigError("vulcan_restate: both start and end are required (dates)")
    low = parse_time(start, "start")
    high = parse_end(end, "end")
    if low >= high:
        raise VulcanConfigError(f"start: {start!r} is not before end {end!r}")
    out = []
    problems = []
    for node in nodes:
        kind = node_kind(node)
        if kind is None:  # not a dbt-vulcan kind: nothing to restate
            continue
        name = str(_get(node, "name"))
        try:
            cfg = model_config.settings(node, kind)
        except VulcanConfigError as exc:
            problems.append(str(exc))
            continue
        if cfg.disable_restatement and direct is not None and _get(node, "unique_id") not in direct:
            out.append(
                Restatement(
                    relation_key(node), name, None, None, False, None, "disable_restatement"
                )
            )
            continue
        if cfg.forward_only and full_history_only(kind) and not cfg.disable_restatement:
            if direct is not None and _get(node, "unique_id") not in direct:
                out.append(
                    Restatement(relation_key(node), name, None, None, False, None, "forward_only")
                )
            else:
                problems.append(
                    f"forward_only: true does not allow restating model '{name}' ({kind}): it "
                    "only supports full-history restatement, which rebuilds the table and "
                    "would erase the history forward_only keeps; set forward_only false to "
                    "allow it"
                )
            continue
        try:
            model_start = parse_time(cfg.start, "start") if cfg.start else None
            (s, e), warning = widen_restatement(
                cfg.schedule(),
                low,
                high,
                model_start,
                full_history_only(kind),
                cfg.disable_restatement,
                f"model '{name}' ({kind})",
            )
        except VulcanConfigError as exc:
            problems.append(str(exc))
            continue
        out.append(
            Restatement(
                relation=relation_key(node),
                name=name,
                start=format_ts(s),
                end=format_ts(e),
                full=full_history_only(kind),
                warning=warning,
            )
        )
    if problems:
        raise VulcanConfigError(
            "vulcan_restate refused:\n" + "\n".join(f"  - {p}" for p in problems)
        )
    return out


def _ts(text: str) -> datetime:
    return parse_time(text, "interval", bounded=False)
