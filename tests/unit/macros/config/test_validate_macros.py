"""The config validator in Jinja (macros/config/validate.sql), checked against its Python
oracle, `config.settings(node, kind).as_dict()`: the same settings dict, or the same error
message, on every config of the unit and functional bad-input catalogues and on random
configs of every kind (valid values, wrong types, out-of-range numbers, unknown keys,
typos, keys of other kinds, missing required keys, None values).

One known difference: a cron the Jinja subset refuses says why in parentheses
("... is not a valid cron expression (minute: 60 is out of range 0-59); expected ...");
croniter's message has no detail. `same` compares without it. Crons outside the subset
(L, W, #, ?, wrap-around ranges, ...) that croniter accepts are refused by the macros only
(tests/unit/macros/planning/test_cron_macros.py lists them); the random configs use the subset."""

from __future__ import annotations

import re
import string
from dataclasses import fields
from datetime import date, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tests.oracle.test_config as unit_cases
from dbt.adapters.vulcan import config_keys
from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.functional.reliability import test_bad_input as bad_input
from tests.oracle import config as oracle
from tests.oracle.config import ModelConfig, closest_key, edit_distance
from tests.oracle.schedule import IntervalUnit
from tests.support.macro_harness import CompilerError, Harness, shared_harness

KINDS = config_keys.KINDS
TR, UK, PART, UM, SCDT, SCDC, TRK = KINDS


def harness() -> Harness:
    """The module's macro harness: the `vulcan` adapter's dispatch, shared per process."""
    return shared_harness("vulcan")


def node(config: dict[str, Any], unrendered: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": "daily_sales", "config": config, "unrendered_config": unrendered or {}}


def python_result(n: dict[str, Any], kind: str | None) -> Any:
    try:
        return oracle.settings(n, kind).as_dict()
    except VulcanConfigError as error:
        return str(error)


_CRON_DETAIL = re.compile(
    r"is not a valid cron expression \(.*\)(; expected a 5-field cron expression \(minute)"
)


def jinja_result(n: dict[str, Any], kind: str | None) -> Any:
    try:
        return harness().call("vulcan_settings", n, kind)
    except CompilerError as error:
        return _CRON_DETAIL.sub(r"is not a valid cron expression\1", str(error))


def same(n: dict[str, Any], kind: str | None = None) -> Any:
    expected = python_result(n, kind)
    got = jinja_result(n, kind)
    assert got == expected
    if isinstance(expected, dict):
        assert [type(got[k]) for k in expected] == [type(v) for v in expected.values()]
    return expected


# ------------------------------------------------------------------ the catalogues


def _unit_catalogue() -> list[tuple[str, dict[str, Any]]]:
    good = unit_cases.GOOD
    cases = [
        (kind, config) for kind, config, _ in _parametrized(unit_cases.test_bad_input_catalogue)
    ]
    return [
        *cases,
        (TR, {**good, "cron": "@daily", "batch_size": "7", "lookback": 2}),
        (TR, {**good, "partition_by": ["region", "order_date"]}),
        (TR, {**good, "partitioned_by": "region", "partition_by_time_column": False}),
        (TR, {"time_column": ["ds", "%Y%m%d"], "start": "2025-01-01"}),
        (TR, {"time_column": {"column": "ds", "format": "yyyy-MM-dd"}, "start": "2025-01-01"}),
        (
            TR,
            {
                "start": "2025-02-30",
                "batch_size": 0,
                "lookback": -1,
                "cron": "every day",
                "file_format": "orc",
                "when_matched": "x",
            },
        ),
        (SCDT, {"unique_key": ["id", "region"]}),
        (SCDC, {"unique_key": "id", "columns": "*"}),
        (TR, {**good, "unique_key": None, "materialized": "x"}),
        (PART, {"partition_by": "a", "merge_filter": "x"}),
        (TR, {"time_column": "d", "start": "2025-01-01", "incremental_predicates": ["x"]}),
        (SCDT, {"unique_key": "id", "lookback": 1}),
        (SCDT, {"unique_key": "id", "lookback": 3}),
        (TRK, {"group_key": ["invoice_id", "region"]}),
        (TRK, {"group_key": "id", "time_column": "invoice_date", "lookback": 7, "cron": "@daily"}),
        (TRK, {"group_key": "id", "time_column": ["ds", "%Y%m%d"], "content_hash_column": "h"}),
        (TRK, {"content_hash_column": 3, "lookback": -1, "start": "2025-01-01", "unique_key": "x"}),
        (
            TRK,
            {
                "group_key": "id",
                "time_column": "t",
                "time_data_type": "epoch",
                "interval_unit": "hour",
            },
        ),
    ]


def _parametrized(test: Any) -> list[Any]:
    return list(next(m for m in test.pytestmark if m.name == "parametrize").args[1])


@pytest.mark.parametrize(("kind", "config"), _unit_catalogue())
def test_unit_catalogue(kind: str, config: dict[str, Any]) -> None:
    same(node(config), kind)


def _functional_catalogue() -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for name, (kind, changes, _) in {**bad_input.CATALOGUE, **bad_input.EXISTING}.items():
        config: dict[str, Any] = {"materialized": kind, **bad_input.GOOD[kind]}
        for key, value in {**bad_input.tracked(name), **changes}.items():
            if value is bad_input.DROP:
                config.pop(key, None)
            else:
                config[key] = value
        out.append((name, kind, config))
    return out


@pytest.mark.parametrize(("name", "kind", "config"), _functional_catalogue())
def test_functional_catalogue(name: str, kind: str, config: dict[str, Any]) -> None:
    same({**node(config), "name": name}, None)  # the kind from `materialized`
    same({**node(config), "name": name}, kind)


def test_the_kind_comes_from_materialized_or_is_refused() -> None:
    assert same({"name": "t", "config": {"materialized": "table"}}) == (
        "Model 't': materialized 'table' is not one of: " + ", ".join(KINDS)
    )
    same({"name": "t", "config": {}})
    same({"config": {"materialized": UK, "unique_key": "id"}})  # no name: '?'


def test_dbt_node_defaults_are_read_only_when_set_by_the_user() -> None:
    base = {"materialized": TR, "time_column": "d", "start": "2025-01-01", "lookback": 1}
    assert same(node(base))["lookback"] == 0
    assert same(node(base, {"lookback": 1}))["lookback"] == 1
    assert same({**node(base), "config_call_dict": {"lookback": 1}})["lookback"] == 1
    assert same(node({**base, "lookback": 3}))["lookback"] == 3
    assert same(node({**base, "lookback": True}))["lookback"] == 0  # True == 1, as in Python
    kept = harness().call("vulcan_node_config", node(base, {"lookback": 1}))
    assert kept == oracle.node_config(node(base, {"lookback": 1}))
    on_scd = {"name": "m", "config": {"unique_key": "id", "lookback": 1}}
    assert same(on_scd, SCDT)["lookback"] == 0


def test_own_keys_may_sit_under_meta() -> None:
    """dbt 1.10+ wants custom config keys under `meta` (Fusion requires it)."""
    meta = {"time_column": "d", "start": "2025-01-01", "lookback": 2, "tags": ["x"]}
    got = same(node({"materialized": TR, "meta": meta}))
    assert (got["time_column"], got["start"], got["lookback"]) == ("d", "2025-01-01 00:00:00", 2)
    # a key set directly wins; a bad value under meta is reported like any other
    assert same(node({"materialized": TR, "lookback": 3, "meta": meta}))["lookback"] == 3
    # dbt's own `lookback: 1` on every node does not hide the one under meta
    assert same(node({"materialized": TR, "lookback": 1, "meta": meta}))["lookback"] == 2
    message = same(node({"materialized": TR, "meta": {**meta, "batch_size": 0}}))
    assert "batch_size: 0" in message
    # dbt-core gives every graph node `unique_key: None`: the one under meta is read (a
    # run-operation's node as the run's)
    keyed = same(node({"materialized": UK, "unique_key": None, "meta": {"unique_key": "id"}}), UK)
    assert keyed["unique_key"] == ["id"]


def test_the_model_being_run_reads_meta_with_config_meta_get() -> None:
    """dbt v2 returns a custom key through `config.meta_get`: the model being run reads its
    keys that way (a graph node, in run-operations, from its config's `meta`)."""
    h = harness().reset()
    meta = {"time_column": "d", "start": "2025-01-01", "lookback": 2}
    current = {"name": "daily_sales", "unique_id": "model.p.daily_sales"}
    before = h.context["model"]
    h.context["model"] = {**current, "config": {"materialized": TR, "meta": meta}}
    try:
        # the node handed over has no `meta` of its own (as in dbt v2): meta_get finds the keys
        got = h.call("vulcan_node_config", {**current, "config": {"materialized": TR}})
        assert (got["time_column"], got["start"], got["lookback"]) == ("d", "2025-01-01", 2)
        # another node (a run-operation's graph node) is read from its own config's meta only
        other = {"name": "o", "unique_id": "model.p.o", "config": {"materialized": TR}}
        assert "time_column" not in h.call("vulcan_node_config", other)
    finally:
        h.context["model"] = before


def test_errors_without_raising() -> None:
    config = {"start": "soon", "batch_size": 0, "file_format": "csv"}
    problems = harness().call("vulcan_cfg_run", node(config), TR)["errors"]
    message = python_result(node(config), TR)
    assert ["  - " + p for p in problems] == message.split("\n")[1:]
    assert harness().call("vulcan_cfg_run", node(unit_cases.GOOD), TR)["errors"] == []


# -------------------------------------------------------------------- the typo rule


@pytest.mark.parametrize(
    ("key", "suggestion"),
    [
        ("time_colum", "time_column"),
        ("timecolumn", "time_column"),
        ("Time_Column", "time_column"),
        ("batchsize", "batch_size"),
        ("when_match", "when_matched"),
        ("strat", "start"),
        ("crno", "cron"),
        ("lokback", "lookback"),
        ("partiton_by", "partition_by"),
        ("grants", None),  # dbt's own key, on every node: 2 edits from `grains`
        ("tags", None),
        ("meta", None),
        ("alias", None),
        ("start_date", None),
    ],
)
def test_typo_rule(key: str, suggestion: str | None) -> None:
    candidates = sorted(oracle.ALL_VULCAN_KEYS | oracle._DBT_KEYS)
    assert closest_key(key, candidates) == suggestion
    assert harness().call("vulcan_closest", key, candidates) == suggestion
    same(node({**unit_cases.GOOD, key: "x"}), TR)


def test_no_key_dbt_gives_every_node_is_taken_for_a_typo() -> None:
    from dbt.adapters.spark.impl import SparkConfig
    from dbt.artifacts.resources.v1.config import NodeConfig

    dbt_config = NodeConfig().to_dict()
    names = set(dbt_config) | {f.name for f in fields(SparkConfig)}
    for kind in KINDS:
        candidates = sorted(oracle.KIND_KEYS[kind] | oracle._DBT_KEYS)
        for name in names - set(candidates):
            assert closest_key(name, candidates) is None, (kind, name)
    # a whole dbt node config (with its defaults, `lookback: 1` among them) is fine
    config = {**dbt_config, "materialized": TR, "time_column": "d", "start": "2025-01-01"}
    assert isinstance(same(node(config)), dict)


def _full_osa(a: str, b: str) -> int:
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(
                d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])
            )
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[-1][-1]


@settings(max_examples=200, deadline=None)
@given(st.text("abc_", max_size=9), st.text("abc_", max_size=9), st.integers(0, 3))
def test_edit_distance(a: str, b: str, limit: int) -> None:
    expected = min(_full_osa(a, b), limit + 1)
    assert edit_distance(a, b, limit) == expected
    assert harness().call("_vulcan_distance", a, b, limit) == expected


# ------------------------------------------------------------- random configs per kind

UNITS = [unit.value for unit in IntervalUnit]
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

BAD = [None, 5, -1, 1.5, True, "", " ", "x", [], {}, ["a", 1], {"a": 1}]
BOOLS = [True, False, "true", "FALSE", "True", "yes", 1, 0, "true "]
INTS = [0, 1, 2, 7, -1, -3, "7", " 3 ", "+2", "1_0", "-1", "x", "1.5", 1.5, True, "0x10", "٣"]
COLUMNS = ["a", " a ", " ", "", ["a", "b"], ["a", " "], [], ("a", "b"), 5, ["a", 1], {"a": 1}]
TIMES = [
    "2025-01-01",
    " 2025-01-01 ",
    "2025-01-01 05:00",
    "2025-01-01T05:00:59",
    "2025-01-01 05:00:00.123",
    "2025-01-01T05:00:00Z",
    "2025-01-01 05:00+02:00",
    "2025-01-01 05:00:00.5-0130",
    "2025-01-01T00:00+24:00",
    "2025-01-01 24:00",
    "2025-01-01 05:00:60",
    "2025-13-01",
    "2025-04-31",
    "2025-02-29",
    "2024-02-29",
    "2025-02-30",
    "0000-01-01",
    "0001-01-01",
    "0001-01-01T00:00+01:00",
    "9999-12-31T23:00-02:00",
    "1899-12-31T23:00-05:00",
    "1900-01-01",
    "1899-12-31",
    "2999-12-31",
    "3000-01-01",
    "3000-01-01 00:00:01",
    "9999-12-31",
    "soon",
    "2025-01-01' OR 1=1 --",
    "20250101",
    1735689600,
    1735689600000,
    -2208988800,
    -2208988801,
    32503680000,
    32503680001,
    10**11,
    10**11 + 1,
    10**20,
    True,
    1.5,
    date(2025, 1, 1),
    date(2999, 12, 31),
    datetime(2025, 1, 1, 5, 30),
    datetime(2025, 1, 1, 5, tzinfo=timezone(timedelta(hours=-3))),
    datetime(1, 1, 1),
    ["2025-01-01"],
]
CRON_FIELDS = [
    ["0", "*/5", "*/15", "0,30", "10-50/20", "5/20", "*", "59", "*/4"],
    ["0", "*", "*/6", "9-17/4,23", "12", "0,23"],
    ["*", "1", "13", "1,15", "1-10/3", "*/2", "29", "31", "30"],
    ["*", "1", "2", "jan-MAR,Dec", "*/3", "1,7", "Feb/4"],
    ["*", "0", "1", "MON", "mon-fri", "1-5", "sun,7", "1/2", "*/1", "FRI"],
]
ALIASES = ["@hourly", "@daily", "@midnight", "@weekly", "@Monthly", "@yearly", " @ANNUALLY "]
# refused by both (the message differs only by the Jinja detail)
BAD_CRONS = [
    "",
    "every day",
    "60 * * * *",
    "0 0 * * 8",
    "@every",
    "1 2 3",
    5,
    "* * * * *",
    "0 0 30 2 *",
]
FORMATS = [
    "%Y%m%d",
    "yyyyMMdd",
    "yyyy-MM-dd HH:mm:ss",
    "'day' yyyy/MM/dd",
    "bad Q",
    "'open",
    "yyyyMMé",
    "",
    " ",
]
TIME_COLUMNS = [
    "d",
    " d ",
    "",
    5,
    ["a"],
    ["a", 1],
    ("ds", "yyyyMMdd"),
    {"column": "ds"},
    {"column": 5},
    {"column": "ds", "format": 3},
    *[["ds", f] for f in FORMATS],
    *[{"column": "ds", "format": f} for f in FORMATS],
]
WHEN_MATCHED = [
    "WHEN MATCHED THEN DELETE",
    " when matched and x > 1 then update set a = 1",
    "update set a = 1",
    "",
    ["WHEN MATCHED THEN DELETE", "x"],
    ["WHEN MATCHED THEN DELETE", ""],
    [],
    ("WHEN MATCHED THEN DELETE",),
    7,
]


def _cases(values: list[Any]) -> st.SearchStrategy[Any]:
    return st.sampled_from(values)


@st.composite
def _choice(draw: Any, allowed: tuple[str, ...], clean: bool = False) -> Any:
    if clean or draw(st.booleans()):
        word = draw(st.sampled_from(allowed))
        return draw(st.sampled_from([word, word.upper(), word.capitalize()]))
    return draw(_cases(["orc", "float", 5, "", "drop"]))


@st.composite
def _cron(draw: Any) -> Any:
    pick = draw(st.integers(0, 9))
    if pick == 0:
        return draw(_cases(ALIASES))
    if pick == 1:
        return draw(_cases(BAD_CRONS))
    if pick == 2:  # weekly: a week start from the cron's day
        minute, hour = (draw(st.sampled_from(f)) for f in CRON_FIELDS[:2])
        return f"{minute} {hour} * * {draw(st.sampled_from(['0', '1', 'MON', 'FRI', 'sat', '7']))}"
    return " ".join(draw(st.sampled_from(f)) for f in CRON_FIELDS)


VALID: dict[str | None, list[Any]] = {
    "bool": [True, False, "true", "FALSE", "True"],
    "int": [1, 2, 7, "7", " 3 ", "+2", "1_0"],
    "columns": ["a", " a ", ["a", "b"], ["a", " "], ("a", "b"), []],
    "column": ["x", " x "],
    "predicate": ["x > 1", " t.a = s.a "],
    "time": [*TIMES[:7], 1735689600, date(2025, 1, 1), datetime(2025, 1, 1, 5, 30)],
    "time_column": ["d", " d ", ["ds", "%Y%m%d"], ["ds", "yyyyMMdd"], {"column": "ds"}],
    "when_matched": [*WHEN_MATCHED[:2], ["WHEN MATCHED THEN DELETE"], []],
    "audits": [[], ["not_null"], [{"name": "x"}]],
    "scd_columns": ["*", ["a"], "a"],
    "names": ["orders", " Orders ", ["a", "b"], ["a", " "], []],
    "tags": [{}, {"team": "finance"}, {"pii": None, "tier": 1, "gold": True}],
    "path": ["/data/marts", " s3://bucket/x "],
    "interval_unit": UNITS,
    "week_start": [*DAYS, 0, 3, "sun"],
}


def _values(key: config_keys.ConfigKey, kind: str, clean: bool = False) -> st.SearchStrategy[Any]:
    """Values for `key`: mostly of its kind, sometimes anything; `clean`: valid ones (mostly)."""
    check = key.check
    if clean and check == "choice":
        return _choice(key.allowed_by_kind.get(kind, key.allowed), True)
    if clean and check in ("cron", "end_time"):
        return _cron() if check == "cron" else _cases(VALID["time"])
    if clean:
        return _cases(VALID["columns" if check == "partitions" else check])
    by_check: dict[str | None, st.SearchStrategy[Any]] = {
        "bool": _cases(BOOLS),
        "int": _cases(INTS),
        "choice": _choice(key.allowed_by_kind.get(kind, key.allowed)),
        "columns": _cases(COLUMNS),
        "partitions": _cases(COLUMNS),
        "column": _cases(["x", " x ", "", "  ", 3]),
        "predicate": _cases(["x > 1", " t.a = s.a ", "", "  ", 42]),
        "time": _cases(TIMES),
        "end_time": _cases(TIMES),
        "cron": _cron(),
        "interval_unit": _cases([*UNITS, " Day ", "HOUR", "fortnight", 5, ""]),
        "week_start": _cases(
            [*DAYS, "Mon", " sun ", "SATURDAY", 0, 3, 6, 7, -1, "3", "9", "funday"]
        ),
        "time_column": _cases(TIME_COLUMNS),
        "when_matched": _cases(WHEN_MATCHED),
        "audits": _cases([[], ["not_null"], [{"name": "x"}], "not_null", 5, ("a",)]),
        "scd_columns": _cases(["*", ["a"], "a", [], "", 3, ["*"], [" "]]),
        "names": _cases(["orders", " Orders ", ["a", "B"], [], "", 3, [1], [" "]]),
        "path": _cases(["/data/marts", " s3://b/x ", "", " ", 3, ["/a"]]),
        "tags": _cases(
            [
                {},
                {"team": "finance"},
                {"pii": None, "n": 1.5},
                "team",
                ["a"],
                {"": "x"},
                {1: "x"},
                {"a": ["b"]},
                {"a": {"b": "c"}},
            ]
        ),
        None: _cases(BOOLS + COLUMNS),
    }
    return st.one_of(by_check[check], by_check[check], by_check[check], _cases(BAD))


def _typo(key: str) -> st.SearchStrategy[str]:
    """`key` with one or two random edits."""

    @st.composite
    def edit(draw: Any) -> str:
        text = key
        for _ in range(draw(st.integers(1, 2))):
            i = draw(st.integers(0, max(len(text) - 1, 0)))
            op = draw(st.integers(0, 3))
            ch = draw(st.sampled_from("aeiostr_"))
            if op == 0:
                text = text[:i] + text[i + 1 :]
            elif op == 1:
                text = text[:i] + ch + text[i:]
            elif op == 2:
                text = text[:i] + ch + text[i + 1 :]
            elif i + 1 < len(text):
                text = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
        return text

    return edit()


DBT_EXTRAS = {
    "materialized": None,
    "grants": {},
    "tags": [],
    "meta": {},
    "enabled": True,
    "on_schema_change": "ignore",
    "incremental_strategy": "merge",
    "incremental_predicates": ["x"],
    "full_refresh": None,
    "pre-hook": [],
}


@st.composite
def configs(draw: Any, kind: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(config, unrendered_config) of a random node of `kind`; half of them clean: only keys
    of the kind, with valid values (mostly), the required ones present."""
    keys = config_keys.config_keys()
    config: dict[str, Any] = {}
    clean = draw(st.booleans())
    for key in keys:
        mine = kind in key.kinds
        if clean:
            odds = 0 if not mine else 10 if kind in key.required_by else 3
        else:
            odds = 6 if kind in key.required_by else 3 if mine else 1
        if key.check is None or not draw(st.integers(0, 9)) < odds:
            continue
        name = draw(st.sampled_from(key.names))
        config[name] = draw(_values(key, kind, clean))
    if clean:
        return config, {}
    for _ in range(draw(st.integers(0, 2))):
        key = draw(st.sampled_from(keys))
        config[draw(_typo(key.name))] = draw(_values(key, kind))
    if draw(st.integers(0, 3)) == 0:
        config[draw(st.text(string.ascii_lowercase + "_", min_size=1, max_size=12))] = draw(
            _cases(BAD)
        )
    for name in draw(st.lists(st.sampled_from(sorted(DBT_EXTRAS)), max_size=4, unique=True)):
        config[name] = kind if name == "materialized" else DBT_EXTRAS[name]
    if draw(st.integers(0, 4)) == 0:
        config["lookback"] = 1  # dbt's default on every node
    unrendered = {"lookback": 1} if draw(st.booleans()) else {}
    return config, unrendered


@pytest.mark.parametrize("value", TIMES)
@pytest.mark.parametrize("key", ["start", "end"])
def test_time_values(key: str, value: Any) -> None:
    same(node({"unique_key": "id", "start": "1950-01-01", key: value}), UK)
    same(node({"time_column": "d", "start": "2025-01-01", key: value}), TR)


EDGES: list[tuple[str, dict[str, Any]]] = [
    (UK, {"unique_key": "id", "partitioned_by": "", "partition_by": ["a"]}),
    (UK, {"unique_key": "id", "partitioned_by": ["A"], "partition_by": "a"}),
    (UK, {"unique_key": "id", "partitioned_by": [" "], "partition_by": 5}),
    (PART, {"partitioned_by": []}),
    (PART, {"partition_by": " "}),
    (TR, {"time_column": "d", "start": "2025-01-01", "partition_by": ["d", "b", "d"]}),
    (TR, {"time_column": ("d", "yyyy"), "start": "2025-01-01", "time_data_type": "DATE"}),
    (TR, {"time_column": ["d", "'open"], "start": "2025-01-01", "time_data_type": "float"}),
    (TR, {"time_column": ["d", "time_column Q"], "start": "2025-01-01"}),
    (UM, {"audits": 5}),
    (UM, {"assertions": ["a"]}),
    (UM, {"audits": None, "assertions": "a"}),
    (UM, {"batch_size": 5, "safety_overrides": 3}),
    (SCDT, {"unique_key": [" "], "disable_restatement": "no", "allow_partials": "x"}),
    (SCDC, {"unique_key": "id", "columns": ""}),
    (SCDC, {"unique_key": "id", "columns": [" "]}),
    (SCDC, {"unique_key": "id", "columns": "*", "updated_at_name": " u "}),
    (UK, {"unique_key": "id", "when_matched": ["WHEN MATCHED THEN DELETE", 3]}),
    (UK, {"unique_key": "id", "interval_unit": "cron"}),
    (UK, {"unique_key": "id", "week_start": "my cron"}),
    (UK, {"unique_key": "id", "cron": "@weekly", "interval_unit": "week", "week_start": None}),
    (
        UK,
        {"unique_key": "id", "cron": "0 0 * * 3", "interval_unit": "month", "allow_partials": True},
    ),
    (
        UK,
        {
            "unique_key": "id",
            "cron": "0 * * * 1,2",
            "interval_unit": "week",
            "allow_partials": True,
        },
    ),
    (
        UK,
        {"unique_key": "id", "cron": "*/5 * * * 1,2", "interval_unit": "week", "allow_partials": 1},
    ),
    (
        UK,
        {
            "unique_key": "id",
            "cron": "*/5 * * * 1,2",
            "interval_unit": "week",
            "allow_partials": "TRUE",
        },
    ),
    (
        UK,
        {
            "unique_key": "id",
            "cron": "0 0 13 * FRI",
            "interval_unit": "week",
            "allow_partials": True,
        },
    ),
    (UK, {"unique_key": "id", "interval_unit": "week", "week_start": "thu"}),
    (UK, {"unique_key": "id", "interval_unit": 0, "week_start": 7}),
    (UK, {"unique_key": "id", "cron": None, "interval_unit": "week"}),
    (UK, {"unique_key": "id", "cron": False}),
    (UK, {"unique_key": "id", "lookback": "0", "batch_size": " 1_000 "}),
]


@pytest.mark.parametrize(("kind", "config"), EDGES)
def test_edges(kind: str, config: dict[str, Any]) -> None:
    same(node(config), kind)


@pytest.mark.parametrize("day", ["0", "1", "2", "3", "4", "5", "6", "7", "SUN", "wed"])
@pytest.mark.parametrize("unit", [None, "week"])
def test_weekly_crons_start_their_weeks_on_their_day(day: str, unit: str | None) -> None:
    config = {"unique_key": "id", "cron": f"30 6 * * {day}", "interval_unit": unit}
    assert same(node(config), UK)["interval_unit"] == "week"


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_configs(kind: str, data: Any) -> None:
    config, unrendered = data.draw(configs(kind))
    same(node(config, unrendered), kind)


@pytest.mark.parametrize("kind", [TR, UK, SCDT])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cron=st.one_of(st.none(), _cron()),
    unit=st.one_of(st.none(), st.sampled_from(UNITS)),
    week_start=st.one_of(st.none(), st.sampled_from([*DAYS, 0, 6, "fri"])),
    allow_partials=st.booleans(),
)
def test_random_schedules(
    kind: str, cron: Any, unit: Any, week_start: Any, allow_partials: bool
) -> None:
    """The schedule mostly valid: units vs crons, weekly week starts, default crons."""
    config = {**bad_input.GOOD[kind], "allow_partials": allow_partials}
    for key, value in (("cron", cron), ("interval_unit", unit), ("week_start", week_start)):
        if value is not None:
            config[key] = value
    same(node(config), kind)


@settings(max_examples=150, deadline=None)
@given(
    moment=st.datetimes(min_value=datetime(1890, 1, 1), max_value=datetime(3010, 1, 1)),
    shape=st.sampled_from(
        ["date", "minutes", "seconds", "micros", "T", "Z", "offset", "epoch", "millis", "obj"]
    ),
    offset=st.integers(-23 * 60 - 59, 23 * 60 + 59),
    end=st.booleans(),
)
def test_random_times(moment: datetime, shape: str, offset: int, end: bool) -> None:
    """Times of every accepted shape around the allowed range, as start or end."""
    sign = "+" if offset >= 0 else "-"
    zone = f"{sign}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"
    epoch = int((moment - datetime(1970, 1, 1)).total_seconds())
    value: Any = {
        "date": moment.strftime("%Y-%m-%d"),
        "minutes": moment.strftime("%Y-%m-%d %H:%M"),
        "seconds": moment.strftime("%Y-%m-%d %H:%M:%S"),
        "micros": moment.strftime("%Y-%m-%d %H:%M:%S.%f")[: 20 + moment.microsecond % 6],
        "T": moment.strftime("%Y-%m-%dT%H:%M:%S"),
        "Z": moment.strftime("%Y-%m-%dT%H:%MZ"),
        "offset": moment.strftime("%Y-%m-%d %H:%M") + zone,
        "epoch": epoch,
        "millis": epoch * 1000 + moment.microsecond // 1000,
        "obj": moment,
    }[shape]
    config = {"unique_key": "id", ("end" if end else "start"): value}
    same(node(config), UK)


def test_declared_defaults_are_the_settings_defaults() -> None:
    """Every setting but model, kind, time_format, partition_cols and grains_audit (as given:
    the audits' parser checks it) is a declared key with a `value`: ModelConfig's default
    (`value_by_kind` for the SCD type 2 defaults)."""
    declared = {r["name"]: r for r in harness().call("vulcan_config_keys") if "value" in r}
    settings_fields = {f.name: f for f in fields(ModelConfig)}
    assert set(settings_fields) - set(declared) == {
        "model",
        "kind",
        "time_format",
        "partition_cols",
        "grains_audit",
    }
    for name, row in declared.items():
        f = settings_fields[name]
        default = f.default_factory() if callable(f.default_factory) else f.default
        assert row["value"] == default, name
        assert config_keys.key(name).value == default, name
