"""Render dbt-vulcan's macros without a database.

Loads dbt-core's global macros, then dbt-spark's, then ours (later ones win, as in dbt),
fakes `adapter.dispatch` with the vulcan__ -> spark__ -> default__ fallback, and records every
statement a macro would run instead of running it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dbt.include.global_project as core_project
import dbt.include.spark as spark_project
from dbt.adapters.spark.column import SparkColumn
from dbt.adapters.spark.relation import SparkRelation
from dbt.context.base import get_context_modules
from dbt_common.clients.jinja import get_environment

import dbt.include.vulcan as vulcan_project
from dbt.adapters.vulcan import jinja_cache
from dbt.adapters.vulcan.impl import VulcanAdapter
from dbt.adapters.vulcan.state_cache import StateCache
from dbt.adapters.vulcan.timeutil import now_utc

# Jinja's compile is most of a harness's cost: the adapter's cache of compiled templates
# (VULCAN_JINJA_CACHE) makes each file's code once, for every Harness and every test process
jinja_cache.install()
PROJECTS = [core_project.PACKAGE_PATH, spark_project.PACKAGE_PATH, vulcan_project.PACKAGE_PATH]
# dbt's dispatch order per adapter type: the adapter, its parents, then default
PREFIXES = {
    "vulcan": ("vulcan", "spark", "default"),
    "spark": ("spark", "default"),
    "databricks": ("databricks", "spark", "default"),
}
INVOCATION_ID = "0123abcd-4567-89ab-cdef-0123456789ab"
STAGE = "__vulcan_stage_0123abcd4567"  # the stage suffix of a table in this invocation


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


def _return(value: Any) -> None:
    raise _Return(value)


class CompilerError(Exception):
    pass


@dataclass
class FakeResult:
    """What run_query returns: an agate-like table of rows."""

    rows: list[tuple[Any, ...]]

    def __iter__(self) -> Any:
        return iter(self.rows)

    @property
    def columns(self) -> list[Any]:
        width = len(self.rows[0]) if self.rows else 1
        return [_Column([r[i] for r in self.rows]) for i in range(width)]


@dataclass
class _Column:
    data: list[Any]

    def values(self) -> list[Any]:
        return self.data


class _Exceptions:
    def raise_compiler_error(self, message: str) -> None:
        raise CompilerError(message)

    def warn(self, message: str) -> None:
        pass


class _Config:
    def __init__(self, values: dict[str, Any], context: dict[str, Any]) -> None:
        self.values = values
        self.context = context

    def get(self, key: str, default: Any = None, validator: Any = None) -> Any:
        return self.values.get(key, default)

    def meta_get(self, key: str, default: Any = None, validator: Any = None) -> Any:
        """dbt's (1.10+): the current model's config `meta`."""
        model = self.context.get("model") or {}
        return ((model.get("config") or {}).get("meta") or {}).get(key, default)


@dataclass
class _TableColumn:
    name: str
    dtype: str


class FakeAdapter:
    """adapter.dispatch with the adapter-prefix fallback, plus the real @available methods
    that need no connection."""

    def __init__(self, harness: Harness) -> None:
        self._harness = harness
        self._real = VulcanAdapter.__new__(VulcanAdapter)
        self._real._vulcan_now = now_utc()
        self._real._state = StateCache()
        # vulcan_invocation_reads asks whether the invocation read its selection already: by
        # default it did (the macros' reads are each their own query, `query_results`)
        self.wide_read_done = True

    def vulcan_state_wide_read_done(self, state: str, invocation: str) -> bool:
        return self.wide_read_done

    def vulcan_state_rows(self, *args: Any) -> list[Any]:
        """VulcanAdapter.vulcan_state_rows's read itself, every time (the rows kept between
        reads: state_cache.py and its unit tests, and the functional tests on Spark)."""
        keys, prefixes, sql_of, refresh = args[2:6]
        if refresh:
            self._harness.context["run_query"](refresh)
        return list(self._harness.context["run_query"](sql_of(keys, None, prefixes)).rows)

    def vulcan_state_append(self, *args: Any) -> str:
        """VulcanAdapter.vulcan_state_append's statement, alone: recorded as the package's is
        (statements committed together: group_commit.py and its unit tests)."""
        head, body = args[2:4]
        self._harness.statements.append(squash(head + body))
        return ""

    def dispatch(self, name: str, macro_namespace: str | None = None) -> Any:
        for prefix in PREFIXES[self._harness.adapter_type]:
            found = self._harness.context.get(f"{prefix}__{name}")
            if found is not None:
                return found
        raise KeyError(f"no implementation of {name}")

    def type(self) -> str:
        return self._harness.adapter_type

    def get_columns_in_relation(self, relation: Any) -> list[Any]:
        """The table's columns (`Harness.table_columns`: names, of type string, or (name,
        type) pairs), recorded as a DESCRIBE."""
        self._harness.statements.append(f"describe {relation}")
        return [
            _TableColumn(*c) if isinstance(c, tuple) else _TableColumn(c, "string")
            for c in self._harness.table_columns
        ]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("vulcan_") and self._harness.adapter_type != "vulcan":
            # package mode: stock dbt-spark / dbt-databricks have none of the adapter's methods
            raise AttributeError(f"{self._harness.adapter_type} adapter has no {name}")
        return getattr(self._real, name)


TABLE_DESCRIBE = "describe query select * from "
_BY_MODULE: dict[str, Harness] = {}  # Harness.of_module


@dataclass
class Harness:
    config: dict[str, Any] = field(default_factory=dict)
    query_results: dict[str, FakeResult] = field(default_factory=dict)
    statements: list[str] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)
    adapter_type: str = "vulcan"
    table_columns: list[Any] = field(default_factory=lambda: ["d", "n"])

    def __post_init__(self) -> None:
        env = get_environment(None, capture_macros=True)
        self.context.update(
            {
                "return": _return,
                "adapter": FakeAdapter(self),
                "config": _Config(self.config, self.context),
                "exceptions": _Exceptions(),
                "log": lambda *a, **k: "",
                "print": lambda *a, **k: "",
                "var": lambda name, default=None: default,
                "target": {"state_schema": "vulcan_state", "state_file_format": "parquet"},
                "model": {"alias": "t", "name": "t", "unique_id": "model.p.t", "description": ""},
                "api": _Api(),
                "statement": self._statement,
                "run_query": self._run_query,
                "tojson": __import__("json").dumps,
                "flags": type("Flags", (), {"EMPTY": False})(),
                "modules": get_context_modules(),
                "invocation_id": INVOCATION_ID,
                "local_md5": lambda text: __import__("hashlib").md5(text.encode()).hexdigest(),
                "fromjson": _fromjson,
                "run_started_at": None,
            }
        )
        fakes = {k: self.context[k] for k in ("statement", "run_query", "log", "print")}
        self.context["context"] = self.context
        # the package's namespace: our macros call each other as `dbt_vulcan.<name>` (dbt puts
        # an installed package's macros under its name, not in the flat namespace)
        self.context["dbt_vulcan"] = _Namespace(self.context)
        for project in PROJECTS:
            for path in sorted(Path(project, "macros").rglob("*.sql")):
                self._load(env, path.read_text())
        self.context.update(fakes)  # dbt's own statement/run_query would need a connection

    @classmethod
    def of_module(cls, module: str) -> Harness:
        """Test module `module`'s own harness (loading every macro takes seconds: one a module,
        for the context its tests change), reset for the next test."""
        if module not in _BY_MODULE:
            _BY_MODULE[module] = cls()
        return _BY_MODULE[module].reset()

    def reset(self, config: dict[str, Any] | None = None) -> Harness:
        """Forget recorded statements and canned results; set the model config."""
        self.statements.clear()
        self.query_results.clear()
        self.config.clear()
        self.config.update(config or {})
        return self

    def _load(self, env: Any, text: str) -> None:
        template = env.from_string(text, globals=self.context)
        module = template.make_module(vars=self.context)
        for attr in dir(module):
            if attr.startswith("dbt_macro__"):
                self.context[attr[len("dbt_macro__") :]] = self._wrap(getattr(module, attr))

    @staticmethod
    def _wrap(macro: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return macro(*args, **kwargs)
            except _Return as result:
                return result.value

        return call

    def _statement(self, name: str | None = None, *args: Any, caller: Any = None, **kw: Any) -> str:
        self.statements.append(squash(caller()))
        return ""

    def _run_query(self, sql: str) -> FakeResult:
        text = squash(sql)
        self.statements.append(text)
        if text not in self.query_results and text.startswith(TABLE_DESCRIBE):
            # a table's columns (engine/describe.sql: vulcan_table_columns): `table_columns`
            return FakeResult(
                [
                    (c, "string", None) if isinstance(c, str) else (*c, None)
                    for c in self.table_columns
                ]
            )
        return self.query_results.get(text, FakeResult([]))

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return self.context[name](*args, **kwargs)


class _Namespace(Mapping[str, Any]):
    """The package's macros by name. A mapping, as dbt's package namespaces are: Jinja's
    sandbox refuses `_private` attributes but not keys."""

    def __init__(self, context: dict[str, Any]) -> None:
        self._context = context

    def __getitem__(self, name: str) -> Any:
        return self._context[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._context)

    def __len__(self) -> int:
        return len(self._context)


class _Api:
    Column = SparkColumn  # dbt's `api.Column` is the adapter's Column class

    class Relation:
        @staticmethod
        def create(**kwargs: Any) -> SparkRelation:
            return SparkRelation.create(**kwargs)


def _fromjson(text: str, default: Any = None) -> Any:
    try:
        return __import__("json").loads(text)
    except ValueError:
        return default


def squash(sql: str) -> str:
    """Whitespace-insensitive SQL: one space between tokens, none inside parentheses."""
    text = re.sub(r"\s+", " ", str(sql)).strip()
    return text.replace("( ", "(").replace(" )", ")")


def relation(schema: str = "s", identifier: str = "t") -> SparkRelation:
    return SparkRelation.create(schema=schema, identifier=identifier, type="table")


_STOCK_HARNESSES: dict[str, Harness] = {}


def stock_harness(adapter_type: str, compiled_code: str) -> Harness:
    """A reset harness under a stock adapter's dispatch order (`spark`, `databricks`: no
    `vulcan_*` adapter method), one per adapter type, with a SQL model `t` in the context."""
    if adapter_type not in _STOCK_HARNESSES:
        _STOCK_HARNESSES[adapter_type] = Harness(adapter_type=adapter_type)
    harness = _STOCK_HARNESSES[adapter_type].reset()
    harness.context.update(
        {
            "compiled_code": compiled_code,
            "modules": get_context_modules(),
            "store_raw_result": lambda *a, **k: None,
            "model": {"name": "t", "unique_id": "model.p.t", "language": "sql", "config": {}},
        }
    )
    return harness


_SHARED: dict[str, Harness] = {}


def shared_harness(adapter_type: str = "spark") -> Harness:
    """One Harness per adapter type for a whole test module (loading the macros is the slow
    part); callers reset it before use."""
    if adapter_type not in _SHARED:
        _SHARED[adapter_type] = Harness(adapter_type=adapter_type)
    return _SHARED[adapter_type]


# the config of the engine tests' model s.t: a parquet time range model partitioned by its time
# column (only read: each test copies it to change it)
TIME_RANGE_CFG = {
    "kind": "incremental_by_time_range",
    "time_column": "order_date",
    "partition_cols": ["order_date"],
    "file_format": "parquet",
}


# the state append on the default (parquet) log: one new partition per append
STATE_APPEND = (
    "insert overwrite table vulcan_state.vulcan_intervals partition (relation, append_id) select "
    "model_id, interval_start, interval_end, row_type, fingerprint, invocation_id, recorded_at, "
    "seq, details, relation, "
)


def is_state_append(statement: str) -> bool:
    return statement.startswith(STATE_APPEND)


def appended_values(statement: str) -> str:
    """The VALUES tuples of a state append (squashed), e.g. "('s.t', 'model.p.t', ...)"."""
    assert is_state_append(statement), statement
    values = statement.split(" from values ", 1)[1]
    values, _, alias = values.rpartition(" as vulcan_rows(")
    assert alias.startswith("relation, model_id, interval_start"), alias
    return values
