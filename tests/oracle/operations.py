"""The oracle of the run-operations (macros/operations/): which models a selection names, what
plan / status / history report and what vulcan_restate records. The Python reference the
Jinja is checked against (tests/unit/macros/operations/test_operation_macros.py); never run.

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
from tests.oracle.state import PROCESSED, RelationState, merge_ranges, row_details

# kinds that can only be restated as a whole (their rows are not tied to intervals)
FULL_HISTORY_ONLY = (
    model_config.UNIQUE_KEY,
    model_config.PARTITION,
    model_config.UNMANAGED,
    model_config.SCD2_BY_TIME,
    model_config.SCD2_BY_COLUMN,
)


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def node_kind(node: Any) -> str | None:
    config = _get(node, "config", {}) or {}
    kind = _get(config, "materialized")
    return kind if kind in model_config.KINDS else None


def relation_key(node: Any) -> str:
    alias = _get(node, "alias") or _get(node, "name")
    return f"{_get(node, 'schema')}.{alias}".lower()


def select_nodes(nodes: Iterable[Any], select: str | list[str] | None) -> list[Any]:
    """The dbt-vulcan models matching `select`: model names and `tag:<tag>` (all when None)."""
    candidates = sorted(
        (n for n in nodes if _get(n, "resource_type") == "model" and node_kind(n)),
        key=lambda n: str(_get(n, "name")),
    )
    if select is None or select == "" or select == []:
        return candidates
    terms = select.split() if isinstance(select, str) else [str(t) for t in select]
    chosen: list[Any] = []
    unknown: list[str] = []
    for term in terms:
        if term.startswith("tag:"):
            tag = term[4:]
            matched = [n for n in candidates if tag in (_get(n, "tags") or [])]
        else:
            matched = [n for n in candidates if _get(n, "name") == term]
        if not matched:
            unknown.append(term)
        chosen += [n for n in matched if n not in chosen]
    if unknown:
        names = ", ".join(str(_get(n, "name")) for n in candidates) or "(none)"
        raise VulcanConfigError(
            f"select: no dbt-vulcan model matches {', '.join(unknown)}; models: {names}"
        )
    return chosen


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
                full_restatement=state.pending_full_restatement,
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
                    removed=merge_ranges(r.interval for r in rows if r.kind != PROCESSED),
                    restated=any(row_details(r).get("restate") for r in rows),
                )
            )
        models.append((str(_get(node, "name")), shown))
    return models


@dataclass
class Restatement:
    relation: str
    name: str
    start: str
    end: str
    full: bool
    warning: str | None


def restatements(nodes: list[Any], start: object, end: object) -> list[Restatement]:
    """What vulcan_restate records for each selected model (every refusal raised first)."""
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
            model_start = parse_time(cfg.start, "start") if cfg.start else None
            (s, e), warning = widen_restatement(
                cfg.schedule(),
                low,
                high,
                model_start,
                kind in FULL_HISTORY_ONLY,
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
                full=kind in FULL_HISTORY_ONLY,
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
