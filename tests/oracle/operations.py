"""The oracle of the run-operations (macros/operations/): which models a selection names, what
plan / status / history report and what vulcan_restate records. The Python reference the
Jinja is checked against (tests/unit/macros/operations/test_operation_macros.py); never run.

The macros gather the dbt graph's nodes and which tables exist, decide and format; here the
same decisions in Python. `build_reports` plans each model with planning.plan_model, the
oracle of the Jinja planning the materializations and `vulcan_plan` share.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from dbt.adapters.vulcan.timeutil import (
    VulcanConfigError,
    format_range,
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


def _ranges(intervals: Iterable[Interval], date_grain: bool) -> str:
    merged = merge_ranges(intervals)
    if not merged:
        return "none"
    return ", ".join(format_range(s, e, date_grain) for s, e in merged)


# the status of a kind without `start`: its runs are recorded, not intervals
UNTRACKED = "not tracked (each run computes the whole query; no start)"


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


def format_plan(reports: list[ModelReport], execution_time: datetime) -> str:
    lines = [f"vulcan plan (execution time {format_ts(execution_time)})", ""]
    errors = [r for r in reports if r.error]
    backfill = [r for r in reports if not r.error and r.tracked and r.batches]
    if backfill:
        lines.append("Models needing backfill (missing dates):")
        for i, r in enumerate(backfill):
            branch = "└──" if i == len(backfill) - 1 else "├──"
            due = [(_ts(b["start"]), _ts(b["end"])) for b in r.batches]
            lines.append(f"{branch} {r.name}: {_ranges(due, r.date_grain)}")
    else:
        lines.append("No missing intervals: every tracked model is up to date.")
    rebuilds = [r for r in reports if not r.error and (not r.exists or r.full_restatement)]
    if rebuilds:
        lines += ["", "Models the next run builds from scratch:"]
        for r in rebuilds:
            why = "table missing" if not r.exists else "full-history restatement pending"
            lines.append(f"  {r.name} ({r.kind}): {why}")
    changed = [r for r in reports if r.changed]
    if changed:
        lines += ["", "Models changed since their intervals were recorded:"]
        lines += [
            f"  {r.name}: processed intervals are kept; restate to recompute" for r in changed
        ]
    lines += ["", "Details:"]
    for r in reports:
        if r.error:
            continue
        lines.append(f"  {r.name} [{r.kind}]")
        if not r.tracked:
            lines.append(
                "    not interval-tracked (no start): the next run processes the query once"
            )
            continue
        lines.append(f"    processed: {_ranges(r.processed, r.date_grain)}")
        lines.append(f"    missing:   {_ranges(r.missing, r.date_grain)}")
        if r.pending_restatements:
            lines.append(f"    restated, pending: {_ranges(r.pending_restatements, r.date_grain)}")
        count = len(r.batches)
        lines.append(f"    next run: {count} batch{'es' if count != 1 else ''}")
        lines += [f"      [{b['index']}/{b['count']}] {b['label']}" for b in r.batches]
    for r in errors:
        lines += ["", f"Error in {r.name}: {r.error}"]
    return "\n".join(lines)


def format_status(
    reports: list[ModelReport],
    states: Mapping[str, RelationState],
    nodes: list[Any],
    since: datetime | None,
    until: datetime | None,
) -> str:
    lines = ["vulcan status"]
    by_name = {str(_get(n, "name")): n for n in nodes}
    for r in reports:
        lines.append("")
        lines.append(f"{r.name} [{r.kind}]")
        if r.error:
            lines.append(f"  error: {r.error}")
            continue
        state = states.get(relation_key(by_name[r.name]), RelationState(()))
        window_low = since or FAR_PAST
        window_high = until or FAR_FUTURE
        covered = [
            (max(s, window_low), min(e, window_high))
            for s, e in r.processed
            if e > window_low and s < window_high
        ]
        gaps = _gaps(covered) if covered else []
        if r.tracked:
            lines.append(f"  coverage: {_ranges(covered, r.date_grain)}")
            lines.append(f"  gaps:     {_ranges(gaps, r.date_grain)}")
            lines.append(f"  missing:  {_ranges(r.missing, r.date_grain)}")
        else:
            lines.append(f"  intervals: {UNTRACKED}")
        latest = state.latest
        if latest is not None:
            lines.append(
                f"  last run: {latest.recorded_at.isoformat(sep=' ', timespec='seconds')} "
                f"(invocation {latest.invocation_id})"
            )
        else:
            lines.append("  last run: never")
    return "\n".join(lines)


def _gaps(covered: list[Interval]) -> list[Interval]:
    merged = merge_ranges(covered)
    return [(merged[i][1], merged[i + 1][0]) for i in range(len(merged) - 1)]


def format_history(nodes: list[Any], states: Mapping[str, RelationState], limit: int) -> str:
    lines = ["vulcan history"]
    for node in nodes:
        state = states.get(relation_key(node), RelationState(()))
        lines += ["", f"{_get(node, 'name')}"]
        runs: dict[str, list[Any]] = {}
        for row in sorted(state.rows, key=lambda r: (r.recorded_at, r.seq)):
            runs.setdefault(row.invocation_id, []).append(row)
        recent = sorted(runs.items(), key=lambda kv: kv[1][-1].recorded_at, reverse=True)
        if not recent:
            lines.append("  no runs recorded")
        for invocation, rows in recent[:limit]:
            when = rows[-1].recorded_at.isoformat(sep=" ", timespec="seconds")
            processed = [r.interval for r in rows if r.kind == PROCESSED and r.start < r.end]
            ran = [r.start for r in rows if r.kind == PROCESSED and r.start >= r.end]
            removed = [r.interval for r in rows if r.kind != PROCESSED]
            what = []
            if processed:
                what.append(f"processed {_ranges(processed, True)} ({len(processed)} batches)")
            for at in ran:  # an untracked kind's run (an empty range at its execution time)
                when_run = at.isoformat(sep=" ", timespec="seconds")
                what.append(f"ran the whole query (execution time {when_run})")
            if removed:
                label = (
                    "restated" if any(row_details(r).get("restate") for r in rows) else "removed"
                )
                what.append(f"{label} {_ranges(removed, True)}")
            lines.append(f"  {when}  {invocation}  {'; '.join(what)}")
    return "\n".join(lines)


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
