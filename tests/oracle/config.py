"""The oracle of the config validator (macros/config/validate.sql, which runs in both modes):
every problem of a model's config collected and reported at once, the message naming the
model, each offending key and what is allowed; the result the plain, normalized dict the
macros read (`ModelConfig.as_dict()`). The keys come from their one declaration
(macros/config/config_keys.sql, through dbt/adapters/vulcan/config_keys.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from dbt.adapters.vulcan import config_keys
from dbt.adapters.vulcan.config_keys import KINDS
from dbt.adapters.vulcan.timemacros import TIME_DATA_TYPES, to_python_format
from dbt.adapters.vulcan.timeutil import VulcanConfigError, format_ts, parse_end, parse_time
from tests.oracle.schedule import Schedule

TIME_RANGE, UNIQUE_KEY, PARTITION, UNMANAGED, SCD2_BY_TIME, SCD2_BY_COLUMN, TRACKED = KINDS

FILE_FORMATS = config_keys.key("file_format").allowed
CHANGE_ACTIONS = config_keys.key("on_destructive_change").allowed

# which keys each kind accepts and requires: from the one declaration (config_keys.sql)
KIND_KEYS: dict[str, set[str]] = config_keys.kind_keys()
REQUIRED_KEYS: dict[str, tuple[str, ...]] = config_keys.required_keys()
ALL_VULCAN_KEYS = set().union(*KIND_KEYS.values())
# dbt's keys: honoured where they apply, never "a key of another kind"; with more of dbt's
# own that a typo must not be mistaken for (config_keys.sql's vulcan_dbt_other_keys)
_DBT_KEYS = config_keys.dbt_keys()


# config values dbt-core gives every node whether the user set them or not (microbatch's
# `lookback` is 1 by default; dbt-vulcan's `lookback` is 0 unless set)
DBT_NODE_DEFAULTS: dict[str, Any] = {
    key.name: key.dbt_node_value
    for key in config_keys.config_keys()
    if key.dbt_node_value is not None
}


def kind_owner(key: str) -> list[str]:
    """The kinds that accept `key`."""
    return [kind for kind in KINDS if key in KIND_KEYS[kind]]


@dataclass
class ModelConfig:
    """A validated, normalized model config, handed to the macros as a dict."""

    model: str
    kind: str
    file_format: str = "parquet"
    time_column: str | None = None
    time_format: str | None = None
    time_data_type: str | None = None
    partition_by_time_column: bool = True
    partition_cols: list[str] = field(default_factory=list)
    # Delta's liquid clustering and Z-ordering, as dbt-databricks configures them
    liquid_clustered_by: list[str] = field(default_factory=list)
    auto_liquid_cluster: bool = False
    zorder: list[str] = field(default_factory=list)
    skip_optimize: bool = False
    location_root: str | None = None
    databricks_tags: dict[str, str] = field(default_factory=dict)
    start: str | None = None
    end: str | None = None
    cron: str = "0 0 * * *"
    interval_unit: str = "day"
    week_start: int = 0
    allow_partials: bool = False
    lookback: int = 0
    batch_size: int | None = None
    forward_only: bool = False
    wait_for_upstream: bool = True
    ignore_upstream: list[str] = field(default_factory=list)
    ready_when: str | None = None
    ready_intervals: str | None = None
    on_destructive_change: str = "error"
    on_additive_change: str = "allow"
    disable_restatement: bool = False
    unique_key: list[str] = field(default_factory=list)
    when_matched: list[str] = field(default_factory=list)
    merge_filter: str | None = None
    skip_unchanged_rows: bool = True
    # SCD type 2
    valid_from_name: str = "valid_from"
    valid_to_name: str = "valid_to"
    updated_at_name: str | None = None
    updated_at_as_valid_from: bool = False
    invalidate_hard_deletes: bool = False
    columns: list[str] | None = None  # None means '*': every non-key column
    execution_time_as_valid_from: bool = False
    # tracked
    group_key: list[str] = field(default_factory=list)
    content_hash_column: str = "_content_hash"
    # every kind
    grains: list[str] = field(default_factory=list)
    audits: list[Any] = field(default_factory=list)
    # as given: the audits' parser (macros/audits/audit_parse.sql) checks it with the audits
    grains_audit: Any = None
    safety_overrides: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def schedule(self) -> Schedule:
        return Schedule.build(self.cron, self.interval_unit, self.week_start, self.allow_partials)


class _Collector:
    def __init__(self) -> None:
        self.errors: list[str] = []

    def check(self, key: str, fn: Any, *args: Any) -> Any:
        """Run a validating function; record its VulcanConfigError instead of raising."""
        try:
            return fn(*args)
        except VulcanConfigError as exc:
            text = str(exc)
            self.errors.append(text if key in text else f"{key}: {text}")
            return None

    def add(self, message: str) -> None:
        self.errors.append(message)


def _as_bool(value: Any, key: str, errors: _Collector, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    errors.add(f"{key}: {value!r} is not a boolean (true or false)")
    return default


def _as_int(value: Any, key: str, errors: _Collector, minimum: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        errors.add(f"{key}: {value!r} is not an integer >= {minimum}")
        return None
    try:
        number = int(value)
    except ValueError:
        errors.add(f"{key}: {value!r} is not an integer >= {minimum}")
        return None
    if number < minimum:
        errors.add(f"{key}: {number} is not an integer >= {minimum}")
        return None
    return number


def _as_list(value: Any, key: str, errors: _Collector) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return [v for v in value if v.strip()]
    errors.add(f"{key}: {value!r} is not a column name or a list of column names")
    return []


def _as_names(value: Any, key: str, errors: _Collector) -> list[str]:
    """Model names: one name or a list of names, lower case."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value.strip().lower()] if value.strip() else []
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return [v.strip().lower() for v in value if v.strip()]
    errors.add(f"{key}: {value!r} is not a model name or a list of model names")
    return []


def _choice(
    value: Any, key: str, allowed: tuple[str, ...], default: str, errors: _Collector
) -> str:
    if value is None:
        return default
    if isinstance(value, str) and value.lower() in allowed:
        return value.lower()
    errors.add(f"{key}: {value!r} is not one of: {', '.join(allowed)}")
    return default


def _time_column(value: Any, errors: _Collector) -> tuple[str | None, str | None]:
    """`time_column` is a name, [name, format] or {column: name, format: fmt}."""
    if isinstance(value, str) and value.strip():
        return value.strip(), None
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(v, str) for v in value)
    ):
        return value[0], value[1]
    if isinstance(value, Mapping) and isinstance(value.get("column"), str):
        fmt = value.get("format")
        return value["column"], fmt if isinstance(fmt, str) else None
    errors.add(
        f"time_column: {value!r} is not a column name, [column, format] or "
        "{column: ..., format: ...}"
    )
    return None, None


def _unknown_keys(kind: str, config: Mapping[str, Any], errors: _Collector) -> None:
    allowed = KIND_KEYS[kind]
    for key in sorted(config):
        if key in allowed or key in _DBT_KEYS or config[key] is None:  # unset keys are None
            continue
        owners = kind_owner(key)
        if owners:
            errors.add(
                f"{key}: not an option of {kind} (it belongs to {', '.join(owners)}); "
                f"allowed here: {', '.join(sorted(allowed))}"
            )
            continue
        close = closest_key(key, sorted(allowed | _DBT_KEYS))
        if close is not None:
            errors.add(f"{key}: unknown config key; did you mean `{close}`?")


def closest_key(key: str, candidates: list[str]) -> str | None:
    """The typo rule (macros/text/repr.sql computes the same): the candidate nearest to
    `key` by edit distance (insert, delete or replace a character, or swap two adjacent ones),
    if it is at most 1, or at most 2 for a key of 8 characters or more; ties go to the first
    candidate in the given order. (dbt's own `grants`, on every node, is 2 edits from `grains`:
    a 6-character key must not get 2.)"""
    limit = 2 if len(key) >= 8 else 1
    best: tuple[int, str] | None = None
    for candidate in candidates:
        distance = edit_distance(key, candidate, limit)
        if distance <= limit and candidate != key and (best is None or distance < best[0]):
            best = (distance, candidate)
    return best[1] if best else None


def edit_distance(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance between `a` and `b`, or `limit + 1` once it is
    known to exceed `limit` (rows of the table never decrease their minimum)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i]
        for j in range(1, len(b) + 1):
            best = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                best = min(best, before[j - 2] + 1)
            row.append(best)
        if min(row) > limit:
            return limit + 1
        before, previous = previous, row
    return min(previous[-1], limit + 1)


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


# the keys a model may give under `meta`: dbt-vulcan's own (dbt's, as location_root, stay out)
OWN_KEYS = frozenset(n for k in config_keys.config_keys() if not k.dbt for n in k.names)


def node_config(node: Any) -> dict[str, Any]:
    """A node's config as the user wrote it. dbt-core gives every node values of its own for
    some keys dbt-vulcan reads differently (`lookback: 1`, microbatch's default); such a value
    is dropped unless the model, a properties file or dbt_project.yml set it (it is then in
    the node's unrendered config). dbt-vulcan's own keys may also be given under `meta`."""
    config = _get(node, "config", {}) or {}
    if not isinstance(config, Mapping):
        config = config.to_dict() if hasattr(config, "to_dict") else dict(config)
    config = dict(config)
    set_by_user = {
        **(_get(node, "unrendered_config", {}) or {}),
        **(_get(node, "config_call_dict", {}) or {}),
    }
    for key, default in DBT_NODE_DEFAULTS.items():
        if key in config and config[key] == default and key not in set_by_user:
            del config[key]
    # dbt-vulcan's own keys may also sit under `meta` (dbt 1.10+ asks custom keys to, and
    # dbt Fusion requires it); a key set directly wins, a key dbt-core gives every node as
    # None (`unique_key`) does not
    meta = config.get("meta")
    if isinstance(meta, Mapping):
        config.update(
            {
                k: v
                for k, v in meta.items()
                if k in OWN_KEYS and config.get(k) is None and v is not None
            }
        )
    return config


def settings(node: Any, kind: str | None = None) -> ModelConfig:
    """A dbt node (the materialization's `model`, or a graph node read by a run-operation) to
    its kind's validated settings, as `vulcan_settings` in Jinja does for the run and every
    operation."""
    config = node_config(node)
    chosen = kind or str(config.get("materialized", ""))
    if chosen not in KINDS:
        raise VulcanConfigError(
            f"Model '{_get(node, 'name', '?')}': materialized {chosen!r} is not one of: "
            + ", ".join(KINDS)
        )
    return validate(str(_get(node, "name", "?")), chosen, config)


def validate(model: str, kind: str, config: Mapping[str, Any]) -> ModelConfig:
    """Validate a model's config for `kind`; raise one VulcanConfigError listing every problem."""
    errors = _Collector()
    cfg = ModelConfig(model=model, kind=kind, grains_audit=config.get("grains_audit"))
    _unknown_keys(kind, config, errors)
    for key in REQUIRED_KEYS[kind]:
        if config.get(key) in (None, "", []):
            errors.add(f"{key}: required for {kind}")

    cfg.file_format = _choice(
        config.get("file_format"), "file_format", FILE_FORMATS, "parquet", errors
    )
    cfg.forward_only = _as_bool(config.get("forward_only"), "forward_only", errors, False)
    cfg.disable_restatement = _as_bool(
        config.get("disable_restatement"), "disable_restatement", errors, False
    )
    cfg.on_destructive_change = _choice(
        config.get("on_destructive_change"),
        "on_destructive_change",
        CHANGE_ACTIONS,
        "error",
        errors,
    )
    cfg.on_additive_change = _choice(
        config.get("on_additive_change"), "on_additive_change", CHANGE_ACTIONS, "allow", errors
    )
    extra_partitions, partition_given = _partitions(config, errors)
    if kind == PARTITION and not extra_partitions and not partition_given:
        errors.add(
            "partitioned_by: required for incremental_by_partition: the column(s) whose values "
            "make a partition, e.g. partitioned_by: ['warehouse_id'] (dbt's partition_by works too)"
        )
    cfg.liquid_clustered_by = _as_list(
        config.get("liquid_clustered_by"), "liquid_clustered_by", errors
    )
    cfg.auto_liquid_cluster = _as_bool(
        config.get("auto_liquid_cluster"), "auto_liquid_cluster", errors, False
    )
    cfg.zorder = _as_list(config.get("zorder"), "zorder", errors)
    cfg.skip_optimize = _as_bool(config.get("skip_optimize"), "skip_optimize", errors, False)
    location_root = config.get("location_root")
    if location_root is not None and not (isinstance(location_root, str) and location_root.strip()):
        errors.add(f"location_root: {location_root!r} is not a path")
    cfg.location_root = location_root.strip() if isinstance(location_root, str) else None
    cfg.databricks_tags = tags_value(config.get("databricks_tags"), "databricks_tags", errors)

    if kind in (TIME_RANGE, UNIQUE_KEY, SCD2_BY_TIME, SCD2_BY_COLUMN):
        _scheduling(cfg, config, errors)
    if kind == TRACKED:
        cfg.lookback = _as_int(config.get("lookback"), "lookback", errors, 0) or 0
        _schedule(cfg, config, errors)
        _time_column_and_type(cfg, config, errors)
    if kind == TIME_RANGE:
        _time_range(cfg, config, errors)

    if kind in (UNIQUE_KEY, SCD2_BY_TIME, SCD2_BY_COLUMN):
        cfg.unique_key = _as_list(config.get("unique_key"), "unique_key", errors)
    if kind == UNIQUE_KEY:
        _unique_key(cfg, config, errors)
    if kind in (SCD2_BY_TIME, SCD2_BY_COLUMN):
        _scd2(cfg, config, errors)
    if kind == UNMANAGED and config.get("batch_size") is not None:
        errors.add(
            "batch_size: incremental_unmanaged appends the whole query result each run; "
            "it has no batches (remove batch_size)"
        )
    if kind == TRACKED:
        _tracked(cfg, config, errors)
    cfg.grains = _as_list(config.get("grains"), "grains", errors)
    audits = config.get("audits") if config.get("audits") is not None else config.get("assertions")
    if audits is not None and not isinstance(audits, list):
        errors.add(f"audits: {audits!r} is not a list of audits")
    cfg.audits = list(audits) if isinstance(audits, list) else []
    cfg.safety_overrides = _as_list(config.get("safety_overrides"), "safety_overrides", errors)
    _clustering(cfg, config, errors, extra_partitions)
    by_time = (
        [cfg.time_column]
        if kind == TIME_RANGE and cfg.time_column and cfg.partition_by_time_column
        else []
    )
    if cfg.location_root and cfg.file_format == "parquet" and (extra_partitions or by_time):
        errors.add(
            f"location_root: {cfg.location_root!r} with a parquet table partitioned by "
            f"{by_time + extra_partitions!r}: Spark keeps the files of an external table's "
            "dropped partitions and a rebuild finds them again, so rows a run removed could "
            "come back (use file_format delta or iceberg, leave location_root out, or do not "
            "partition" + (": partition_by_time_column: false" if by_time else "") + ")"
        )
    if kind == TIME_RANGE:
        leading = [cfg.time_column] if cfg.time_column and cfg.partition_by_time_column else []
        cfg.partition_cols = leading + [c for c in extra_partitions if c != cfg.time_column]
    else:
        cfg.partition_cols = extra_partitions

    if errors.errors:
        raise VulcanConfigError(_message(model, kind, errors.errors))
    return cfg


def tags_value(value: Any, name: str, errors: _Collector) -> dict[str, str]:
    """Unity Catalog tags (a model's or a column's `databricks_tags`): a mapping of tag names to
    values, as dbt-databricks reads them; names and values as text, an empty value ''."""
    if value is None:
        return {}
    bad = f"{name}: {value!r} is not a mapping of tag names to values (e.g. {{'team': 'finance'}})"
    if not isinstance(value, Mapping):
        errors.add(bad)
        return {}
    tags: dict[str, str] = {}
    for tag, text in value.items():
        if (
            not isinstance(tag, str)
            or not tag.strip()
            or isinstance(text, (Mapping, list, tuple, set))
        ):
            errors.add(bad)
            return {}
        tags[tag] = "" if text is None else str(text)
    return tags


def _clustering(
    cfg: ModelConfig, config: Mapping[str, Any], errors: _Collector, partitions: list[str]
) -> None:
    """Delta's liquid clustering and Z-ordering, checked together: a Delta table is clustered
    or partitioned, not both; OPTIMIZE does not Z-order a clustered table."""
    key = (
        "liquid_clustered_by"
        if cfg.liquid_clustered_by
        else ("auto_liquid_cluster" if cfg.auto_liquid_cluster else None)
    )
    if cfg.liquid_clustered_by and cfg.auto_liquid_cluster:
        errors.add(
            f"auto_liquid_cluster: true with liquid_clustered_by {cfg.liquid_clustered_by!r}: "
            "set one (liquid_clustered_by names the columns, auto_liquid_cluster lets "
            "Databricks choose them)"
        )
    for name in (key, "zorder"):
        if name and getattr(cfg, name) and cfg.file_format != "delta":
            errors.add(
                f"{name}: a Delta feature, and file_format is {cfg.file_format!r} "
                f"(set file_format: delta, or remove {name})"
            )
    if key and partitions:
        why = (
            ", which incremental_by_partition needs (it replaces whole partitions): cluster a "
            "model of another kind"
            if cfg.kind == PARTITION
            else ": remove one of the two"
        )
        errors.add(
            f"{key}: Delta clusters a table or partitions it, not both, and partition_by is "
            f"{partitions!r}{why}"
        )
    if key and cfg.kind == TIME_RANGE:
        if config.get("partition_by_time_column") is not None and cfg.partition_by_time_column:
            errors.add(
                f"partition_by_time_column: true with {key}: Delta clusters a table or "
                "partitions it, not both (remove partition_by_time_column: a clustered table "
                "is not partitioned by its time column)"
            )
        cfg.partition_by_time_column = False
    if key and cfg.zorder:
        errors.add(
            f"zorder: {cfg.zorder!r} with {key}: Delta's OPTIMIZE does not Z-order a clustered "
            "table (remove zorder: clustering orders the data)"
        )


def _partitions(config: Mapping[str, Any], errors: _Collector) -> tuple[list[str], bool]:
    """The extra partition columns, from `partitioned_by` or dbt's `partition_by` (both set:
    they must name the same columns), and whether either was given."""
    given = {
        key: _as_list(config.get(key), key, errors)
        for key in ("partitioned_by", "partition_by")
        if config.get(key) is not None
    }
    if len(given) == 2:
        first, second = given["partitioned_by"], given["partition_by"]
        if first and second and [c.lower() for c in first] != [c.lower() for c in second]:
            errors.add(
                f"partitioned_by: {config['partitioned_by']!r} differs from partition_by: "
                f"{config['partition_by']!r}; partitioned_by is an alias of dbt's partition_by: "
                "set one of them (or both to the same columns)"
            )
    columns = next(iter(given.values()), [])
    return columns, bool(given)


def _unique_key(cfg: ModelConfig, config: Mapping[str, Any], errors: _Collector) -> None:
    when_matched = config.get("when_matched")
    if isinstance(when_matched, str):
        cfg.when_matched = [when_matched] if when_matched.strip() else []
    elif isinstance(when_matched, list) and all(isinstance(w, str) for w in when_matched):
        cfg.when_matched = list(when_matched)
    elif when_matched is not None:
        errors.add(
            f"when_matched: {when_matched!r} is not a string or a list of "
            "'WHEN MATCHED [AND ...] THEN UPDATE SET ... | DELETE' clauses"
        )
    for clause in cfg.when_matched:
        if not clause.strip().lower().startswith("when matched"):
            errors.add(f"when_matched: {clause!r} does not start with 'WHEN MATCHED'")
    merge_filter = config.get("merge_filter")
    if merge_filter is not None and not (isinstance(merge_filter, str) and merge_filter.strip()):
        errors.add(f"merge_filter: {merge_filter!r} is not a SQL predicate")
    cfg.merge_filter = merge_filter.strip() if isinstance(merge_filter, str) else None
    cfg.skip_unchanged_rows = _as_bool(
        config.get("skip_unchanged_rows"), "skip_unchanged_rows", errors, True
    )


def _scd2(cfg: ModelConfig, config: Mapping[str, Any], errors: _Collector) -> None:
    for key in ("valid_from_name", "valid_to_name", "updated_at_name"):
        value = config.get(key)
        if value is not None and not (isinstance(value, str) and value.strip()):
            errors.add(f"{key}: {value!r} is not a column name")
        elif value is not None:
            setattr(cfg, key, value.strip())
    if cfg.kind == SCD2_BY_TIME and cfg.updated_at_name is None:
        cfg.updated_at_name = "updated_at"
    cfg.invalidate_hard_deletes = _as_bool(
        config.get("invalidate_hard_deletes"), "invalidate_hard_deletes", errors, False
    )
    # history is precious: restatement and --full-refresh are refused unless turned off
    cfg.disable_restatement = _as_bool(
        config.get("disable_restatement"), "disable_restatement", errors, True
    )
    time_type = config.get("time_data_type")
    cfg.time_data_type = _choice(
        time_type, "time_data_type", ("timestamp", "timestamp_ntz", "date"), "timestamp", errors
    )
    if cfg.kind == SCD2_BY_TIME:
        cfg.updated_at_as_valid_from = _as_bool(
            config.get("updated_at_as_valid_from"), "updated_at_as_valid_from", errors, False
        )
    else:
        cfg.execution_time_as_valid_from = _as_bool(
            config.get("execution_time_as_valid_from"),
            "execution_time_as_valid_from",
            errors,
            False,
        )
        columns = config.get("columns")
        if columns == "*":
            cfg.columns = None
        elif columns is not None:
            cfg.columns = _as_list(columns, "columns", errors) or None
            if cfg.columns is None:
                errors.add("columns: give a list of column names or '*'")


def _scheduling(cfg: ModelConfig, config: Mapping[str, Any], errors: _Collector) -> None:
    start = config.get("start")
    if start is not None:
        parsed = errors.check("start", parse_time, start, "start")
        cfg.start = format_ts(parsed) if parsed else None
    end = config.get("end")
    if end is not None:
        parsed_end = errors.check("end", parse_end, end, "end")
        cfg.end = format_ts(parsed_end) if parsed_end else None
        if cfg.start and cfg.end and parse_time(cfg.start, "start") >= parse_time(cfg.end, "end"):
            errors.add(f"start: {start!r} is not before end {end!r}")
    cfg.allow_partials = _as_bool(config.get("allow_partials"), "allow_partials", errors, False)
    if "lookback" in KIND_KEYS[cfg.kind]:
        cfg.lookback = _as_int(config.get("lookback"), "lookback", errors, 0) or 0
    cfg.batch_size = _as_int(config.get("batch_size"), "batch_size", errors, 1)
    _schedule(cfg, config, errors)
    cfg.wait_for_upstream = _as_bool(
        config.get("wait_for_upstream"), "wait_for_upstream", errors, True
    )
    cfg.ignore_upstream = _as_names(config.get("ignore_upstream"), "ignore_upstream", errors)
    for key in ("ready_when", "ready_intervals"):
        signal = config.get(key)
        if signal is not None and not (isinstance(signal, str) and signal.strip()):
            errors.add(f"{key}: {signal!r} is not a SQL predicate")
        setattr(cfg, key, signal.strip() if isinstance(signal, str) else None)


def _schedule(cfg: ModelConfig, config: Mapping[str, Any], errors: _Collector) -> None:
    schedule = errors.check(
        "cron",
        Schedule.build,
        config.get("cron"),
        config.get("interval_unit"),
        config.get("week_start"),
        cfg.allow_partials,
    )
    if schedule is not None:
        cfg.cron = schedule.cron
        cfg.interval_unit = schedule.unit.value
        cfg.week_start = schedule.week_start


def _time_range(cfg: ModelConfig, config: Mapping[str, Any], errors: _Collector) -> None:
    _time_column_and_type(cfg, config, errors)
    cfg.partition_by_time_column = _as_bool(
        config.get("partition_by_time_column"), "partition_by_time_column", errors, True
    )


def _tracked(cfg: ModelConfig, config: Mapping[str, Any], errors: _Collector) -> None:
    cfg.group_key = _as_list(config.get("group_key"), "group_key", errors)
    value = config.get("content_hash_column")
    if value is not None and not (isinstance(value, str) and value.strip()):
        errors.add(f"content_hash_column: {value!r} is not a column name")
    elif value is not None:
        cfg.content_hash_column = value.strip()


def _time_column_and_type(cfg: ModelConfig, config: Mapping[str, Any], errors: _Collector) -> None:
    if config.get("time_column") is not None:
        cfg.time_column, cfg.time_format = _time_column(config["time_column"], errors)
    if cfg.time_format is not None:
        errors.check("time_column", to_python_format, cfg.time_format)
    time_type = config.get("time_data_type")
    if time_type is not None:
        cfg.time_data_type = _choice(time_type, "time_data_type", TIME_DATA_TYPES, "date", errors)
    elif cfg.time_format is not None:
        cfg.time_data_type = "string"


def _message(model: str, kind: str, problems: list[str]) -> str:
    lines = "\n".join(f"  - {p}" for p in problems)
    return f"Invalid config for model '{model}' ({kind}), {len(problems)} problem(s):\n{lines}"
