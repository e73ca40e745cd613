"""What one model run does: its batches, from config, the state log and the run's vars.

Used by the materializations (to run) and by the plan operation (to predict): both call
`plan_model`, so the prediction is exactly what the next run executes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from dbt.adapters.vulcan import column_checks
from dbt.adapters.vulcan.config import ModelConfig
from dbt.adapters.vulcan.intervals import (
    FAR_FUTURE,
    FAR_PAST,
    Interval,
    merge_ranges,
    plan_intervals,
)
from dbt.adapters.vulcan.state_cache import RelationState
from dbt.adapters.vulcan.timeutil import (
    EPOCH,
    VulcanConfigError,
    format_range,
    format_ts,
    parse_end,
    parse_time,
)


@dataclass(frozen=True)
class RunVars:
    """The CLI vars every kind shares, parsed (never pasted into SQL)."""

    execution_time: datetime
    start: datetime | None = None
    end: datetime | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any], default_execution_time: datetime) -> RunVars:
        errors: list[str] = []

        def get(key: str, parse: Any) -> datetime | None:
            value = raw.get(key)
            if value in (None, ""):
                return None
            try:
                parsed: datetime = parse(value, key)
                return parsed
            except VulcanConfigError as exc:
                errors.append(str(exc))
                return None

        execution_time = get("vulcan_execution_time", parse_time) or default_execution_time
        start = get("vulcan_start", parse_time)
        end = get("vulcan_end", parse_end)
        # a var given but invalid is reported once, above, not also as missing
        given = {key: raw.get(key) not in (None, "") for key in ("vulcan_start", "vulcan_end")}
        if given["vulcan_start"] and not given["vulcan_end"]:
            errors.append("vulcan_end: required when vulcan_start is given")
        if given["vulcan_end"] and not given["vulcan_start"]:
            errors.append("vulcan_start: required when vulcan_end is given")
        if start is not None and end is not None and start >= end:
            errors.append(f"vulcan_start: {raw.get('vulcan_start')!r} is not before vulcan_end")
        if errors:
            raise VulcanConfigError("Invalid --vars:\n" + "\n".join(f"  - {e}" for e in errors))
        return cls(execution_time=execution_time, start=start, end=end)


@dataclass
class Batch:
    index: int
    count: int
    start: datetime
    end: datetime
    intervals: int
    label: str
    dirty: bool
    tracked: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "count": self.count,
            "start": format_ts(self.start),
            "end": format_ts(self.end),
            "intervals": self.intervals,
            "label": self.label,
            "dirty": self.dirty,
            "tracked": self.tracked,
        }


@dataclass
class ModelPlan:
    batches: list[Batch]
    expected: list[Interval]
    missing: list[Interval]
    processed: list[Interval]
    fingerprint: str
    previous_fingerprint: str | None
    execution_time: datetime
    time_type: str | None
    first_interval: Interval
    has_state: bool = False
    rebuild: bool = False

    @property
    def fingerprint_changed(self) -> bool:
        return (
            self.previous_fingerprint is not None and self.previous_fingerprint != self.fingerprint
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "batches": [b.as_dict() for b in self.batches],
            "intervals": sum(b.intervals for b in self.batches),
            "expected": len(self.expected),
            "missing": [[format_ts(s), format_ts(e)] for s, e in merge_ranges(self.missing)],
            "fingerprint": self.fingerprint,
            "previous_fingerprint": self.previous_fingerprint,
            "fingerprint_changed": self.fingerprint_changed,
            "execution_time": format_ts(self.execution_time),
            "time_type": self.time_type,
            "has_state": self.has_state,
            "rebuild": self.rebuild,
            "all_time": [format_ts(FAR_PAST), format_ts(FAR_FUTURE)],
            "first_interval": [format_ts(s) for s in self.first_interval],
        }


def contract_signature(node: Any) -> list[list[Any]] | None:
    """An enforced dbt contract's part of the fingerprint: [[name, data_type], ...] in the
    contract's order, else None (utils/contract.sql, vulcan_contract_signature)."""
    node_config = _node_get(node, "config") or {}
    contract = _node_get(node_config, "contract") or {}
    if _node_get(contract, "enforced") is not True:
        return None
    columns = _node_get(node, "columns") or {}
    return [
        [_node_get(column, "name") or name, _node_get(column, "data_type")]
        for name, column in columns.items()
    ]


def _node_get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, Mapping) else getattr(obj, key, None)


def fingerprint(raw_code: str, cfg: ModelConfig, contract: list[list[Any]] | None = None) -> str:
    """A hash of what decides a model's rows: its code, the keys that shape its output and an
    enforced contract's columns and types (only then: a model without one keeps its hash)."""
    shaping: dict[str, Any] = {
        "kind": cfg.kind,
        "time_column": cfg.time_column,
        "time_format": cfg.time_format,
        "time_data_type": cfg.time_data_type,
        "unique_key": cfg.unique_key,
        "when_matched": cfg.when_matched,
        "merge_filter": cfg.merge_filter,
    }
    if contract is not None:
        shaping["contract"] = contract
    text = raw_code.strip() + "\n" + json.dumps(shaping, sort_keys=True)
    # md5: what dbt's Jinja can compute (local_md5), so the package's plan gives the same hash
    return hashlib.md5(text.encode()).hexdigest()[:16]


def first_interval(cfg: ModelConfig) -> Interval:
    """The model's first interval (from `start`, or 1970-01-01): the time tokens of the query
    whose columns a run reads."""
    start = parse_time(cfg.start, "start") if cfg.start else EPOCH
    return start, cfg.schedule().add(start)


def plan_model(
    cfg: ModelConfig,
    raw_code: str,
    state: RelationState,
    run_vars: RunVars,
    rebuild: bool,
    contract: list[list[Any]] | None = None,
) -> ModelPlan:
    """Batches of one run. `rebuild`: the table is (re)created, so all history is due.

    A pending full-history restatement (vulcan_restate on a kind that only supports it) turns
    the run into a rebuild."""
    rebuild = rebuild or state.pending_full_restatement
    schedule = cfg.schedule()
    if cfg.start is None:
        return _untracked_plan(cfg, raw_code, state, run_vars, rebuild, contract)
    start = parse_time(cfg.start, "start")
    end = parse_time(cfg.end, "end") if cfg.end else None
    processed = [] if rebuild else state.processed
    touched = [] if rebuild else state.touched
    explicit = None
    if run_vars.start is not None and run_vars.end is not None and not rebuild:
        explicit = (run_vars.start, run_vars.end)
    planned = plan_intervals(
        schedule,
        start,
        end,
        run_vars.execution_time,
        allow_partials=cfg.allow_partials,
        lookback=cfg.lookback,
        batch_size=cfg.batch_size,
        processed=processed,
        explicit_range=explicit,
    )
    date_grain = schedule.unit.is_date_grain
    batches = []
    for i, (b_start, b_end) in enumerate(planned.batches, start=1):
        count = sum(1 for iv in planned.to_run if b_start <= iv[0] and iv[1] <= b_end)
        batches.append(
            Batch(
                index=i,
                count=len(planned.batches),
                start=b_start,
                end=b_end,
                intervals=count,
                label=format_range(b_start, b_end, date_grain),
                dirty=any(s < b_end and e > b_start for s, e in touched),
            )
        )
    previous = None if rebuild else (state.latest.fingerprint if state.latest else None)
    time_type = cfg.time_data_type or state.details.get("time_type")
    return ModelPlan(
        batches=batches,
        expected=planned.expected,
        missing=planned.missing,
        processed=processed,
        fingerprint=fingerprint(raw_code, cfg, contract),
        previous_fingerprint=previous,
        execution_time=run_vars.execution_time,
        time_type=time_type if isinstance(time_type, str) else None,
        first_interval=first_interval(cfg),
        has_state=bool(state.rows),
        rebuild=rebuild,
    )


def _untracked_plan(
    cfg: ModelConfig,
    raw_code: str,
    state: RelationState,
    run_vars: RunVars,
    rebuild: bool,
    contract: list[list[Any]] | None = None,
) -> ModelPlan:
    """A kind run without `start`: one batch over all time up to now, nothing recorded.

    Its time tokens span 1970-01-01 .. the end of the last complete interval."""
    end = cfg.schedule().due_end(run_vars.execution_time, allow_partials=True)
    batch = Batch(
        index=1,
        count=1,
        start=EPOCH,
        end=end,
        intervals=0,
        label=format_range(EPOCH, end, cfg.schedule().unit.is_date_grain),
        dirty=False,
        tracked=False,
    )
    previous = None if rebuild else (state.latest.fingerprint if state.latest else None)
    return ModelPlan(
        batches=[batch],
        expected=[],
        missing=[],
        processed=[],
        fingerprint=fingerprint(raw_code, cfg, contract),
        previous_fingerprint=previous,
        execution_time=run_vars.execution_time,
        time_type=cfg.time_data_type,
        first_interval=first_interval(cfg),
        has_state=bool(state.rows),
        rebuild=rebuild,
    )


def time_type_from_columns(cfg: ModelConfig, columns: Mapping[str, str]) -> str:
    """The time_data_type of the model's time column, from its Spark type (rules:
    column_checks.time_column_type; an int/bigint column needs an explicit time_data_type)."""
    time_type, problem = column_checks.time_column_type(cfg, columns)
    if problem is not None or time_type is None:
        raise VulcanConfigError(column_checks.message(cfg, [str(problem)]))
    return time_type


def partitions_in_range(
    partitions: list[str], cfg: ModelConfig, time_type: str, start: str, end: str
) -> list[dict[str, str]]:
    """Partitions (from SHOW PARTITIONS) whose time value lies in [start, end)."""
    from urllib.parse import unquote

    from dbt.adapters.vulcan.timemacros import to_python_format

    low, high = parse_time(start, "start"), parse_time(end, "end")
    out: list[dict[str, str]] = []
    assert cfg.time_column is not None
    for spec in partitions:
        values = dict(
            (unquote(k), unquote(v))
            for k, _, v in (part.partition("=") for part in spec.split("/"))
        )
        raw = next((v for k, v in values.items() if k.lower() == cfg.time_column.lower()), None)
        if raw is None or raw == "__HIVE_DEFAULT_PARTITION__":
            continue
        try:
            if time_type == "string":
                value = datetime.strptime(raw, to_python_format(cfg.time_format))
            elif time_type in ("int", "bigint", "epoch"):
                value = datetime.utcfromtimestamp(int(raw))
            elif time_type == "epoch_millis":
                value = datetime.utcfromtimestamp(int(raw) / 1000)
            else:
                value = parse_time(raw, cfg.time_column)
        except (ValueError, VulcanConfigError):
            continue
        if low <= value < high:
            out.append(values)
    return out


def partition_spec_sql(values: Mapping[str, str]) -> str:
    """`partition (k = 'v', ...)` for ALTER TABLE ... DROP, every value escaped."""
    from dbt.adapters.vulcan.state_cache import sql_string

    return "partition (" + ", ".join(f"`{k}` = {sql_string(v)}" for k, v in values.items()) + ")"


@dataclass
class SchemaChange:
    changed: bool = False
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    add_columns: list[str] = field(default_factory=list)
    rewrite: bool = False
    rewrite_select: str = ""
    projection: list[str] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "changed": self.changed,
            "errors": self.errors,
            "warnings": self.warnings,
            "add_columns": self.add_columns,
            "rewrite": self.rewrite,
            "rewrite_select": self.rewrite_select,
            "projection": self.projection,
        }


def schema_change(
    cfg: ModelConfig, table: list[tuple[str, str]], query: list[tuple[str, str]]
) -> SchemaChange:
    """Compare the table's columns with the query's and decide per on_*_change."""
    table_types = {n.lower(): (n, t.lower()) for n, t in table}
    query_types = {n.lower(): (n, t.lower()) for n, t in query}
    added = [query_types[k] for k in query_types if k not in table_types]
    removed = [table_types[k] for k in table_types if k not in query_types]
    retyped = [
        (query_types[k][0], table_types[k][1], query_types[k][1])
        for k in query_types
        if k in table_types and table_types[k][1] != query_types[k][1]
    ]
    change = SchemaChange(changed=bool(added or removed or retyped))
    if not change.changed:
        return change
    where = f"Model '{cfg.model}'"
    additive = ", ".join(f"{n} {t}" for n, t in added)
    destructive = ", ".join(
        [f"dropped {n}" for n, _ in removed] + [f"{n}: {a} -> {b}" for n, a, b in retyped]
    )
    project_table = False
    if added:
        action = cfg.on_additive_change
        text = f"{where}: additive schema change (new columns: {additive})"
        if action == "error":
            change.errors.append(
                f"{text}; on_additive_change is 'error' (allowed: allow, warn, ignore)"
            )
        elif action == "ignore":
            project_table = True
        else:
            if action == "warn":
                change.warnings.append(text)
            change.add_columns = [f"`{n}` {t}" for n, t in added]
    if removed or retyped:
        action = cfg.on_destructive_change
        text = f"{where}: destructive schema change ({destructive})"
        if action == "error":
            change.errors.append(
                f"{text}; on_destructive_change is 'error' (allowed: allow, warn, ignore)"
            )
        elif action == "ignore":
            project_table = True
        else:
            if action == "warn":
                change.warnings.append(text)
            change.rewrite = True
    if change.rewrite:
        # the new schema: the query's columns, existing values cast, new columns NULL
        parts = []
        for key, (name, dtype) in query_types.items():
            if key in table_types:
                parts.append(f"cast(`{table_types[key][0]}` as {dtype}) as `{name}`")
            else:
                parts.append(f"cast(null as {dtype}) as `{name}`")
        change.rewrite_select = ", ".join(parts)
        change.add_columns = []
    elif project_table:
        names = [n for n, _ in table]
        if change.add_columns:
            names += [n for n, _ in added]
        change.projection = [
            f"`{n}`"
            if n.lower() in query_types
            else f"cast(null as {table_types[n.lower()][1]}) as `{n}`"
            for n in names
        ]
    return change
