"""Data audits: checks on what a batch writes, evaluated before the write.

A model lists its audits under `audits` (alias `assertions`); `grains` adds a uniqueness
audit on the grain unless `grains_audit: false`. Each item is a mapping
(`{name: not_null, columns: [id], blocking: false}`), a one-key mapping
(`{not_null: {columns: [id]}}`) or a call string (`"not_null(columns=[id])"`, SQLMesh's
`columns := (id)` too). A name that is not built in refers to a project macro
`audit_<name>(relation, **args)` returning the SQL of the offending rows.

The oracle of the audits (macros/audits/): it validates the items (every problem at once),
writes the built-in audits' SQL, the statements that evaluate them and the failure messages,
as the Jinja the batch loop (macros/engine/run_batches.sql) runs does. The Python reference
the Jinja is checked against (tests/unit/macros/audits/test_audit_macros.py); never run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from dbt.adapters.vulcan.timeutil import VulcanConfigError

SAMPLE_LIMIT = 5
_SAMPLE_CHARS = 300

# name -> (required arguments, optional arguments)
BUILTINS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "not_null": (("columns",), ()),
    "unique_values": (("columns",), ()),
    "unique_combination_of_columns": (("columns",), ()),
    "positive_values": (("column",), ()),
    "non_negative_values": (("column",), ()),
    "accepted_values": (("column", "values"), ()),
    "accepted_range": (("column",), ("min", "max", "inclusive")),
    "number_of_rows": (("threshold",), ()),
}
# other spellings of built-in arguments (SQLMesh's names among them)
_ALIASES = {
    "is_in": "values",
    "min_v": "min",
    "max_v": "max",
    "min_value": "min",
    "max_value": "max",
}
_COMMON = ("name", "blocking")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class Audit:
    """One validated audit of a model."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    blocking: bool = True
    builtin: bool = True
    from_grains: bool = False

    @property
    def label(self) -> str:
        shown = ", ".join(
            f"{k}={_show_arg(v, bare=k in ('column', 'columns'))}" for k, v in self.args.items()
        )
        return f"{self.name}({shown})" + (" (from grains)" if self.from_grains else "")

    @property
    def macro(self) -> str:
        return f"audit_{self.name}"

    def violations_sql(self, relation: str) -> str:
        """SQL selecting this built-in audit's offending rows from `relation`."""
        return _SQL[self.name](self.args, relation)

    def as_dict(self, relation: str) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "args": dict(self.args),
            "blocking": self.blocking,
            "builtin": self.builtin,
            "macro": self.macro,
            "sql": self.violations_sql(relation) if self.builtin else None,
        }


# --- parsing ---------------------------------------------------------------------------------


def parse_audits(
    model: str,
    items: Sequence[Any] | None,
    grains: Sequence[str] | None = None,
    grains_audit: Any = None,
    macro_exists: Callable[[str], bool] | None = None,
) -> list[Audit]:
    """Validate a model's audits (and the implied grain audit); raise one VulcanConfigError
    listing every problem. `macro_exists(name)`: whether a macro `name` exists (None: do not
    check user-defined audits yet)."""
    problems: list[str] = []
    audits: list[Audit] = []
    for position, item in enumerate(items or [], start=1):
        try:
            audits.append(_parse_item(item, macro_exists))
        except VulcanConfigError as exc:
            problems.append(f"audits[{position}] {_show_item(item)}: {exc}")
    implied = _as_bool(grains_audit, True)
    if implied is None:
        problems.append(f"grains_audit: {grains_audit!r} is not a boolean (true or false)")
    elif implied and grains:
        grain = list(grains)
        if not any(_covers_grain(a, grain) for a in audits):
            audits.append(
                Audit("unique_combination_of_columns", {"columns": grain}, from_grains=True)
            )
    if problems:
        lines = "\n".join(f"  - {p}" for p in problems)
        raise VulcanConfigError(
            f"Invalid audits for model '{model}', {len(problems)} problem(s):\n{lines}"
        )
    return audits


def _covers_grain(audit: Audit, grain: list[str]) -> bool:
    if not audit.builtin:
        return False
    if audit.name == "unique_combination_of_columns":
        return {c.lower() for c in audit.args["columns"]} == {c.lower() for c in grain}
    if audit.name == "unique_values" and len(grain) == 1:
        return grain[0].lower() in {c.lower() for c in audit.args["columns"]}
    return False


def _parse_item(item: Any, macro_exists: Callable[[str], bool] | None) -> Audit:
    if isinstance(item, str):
        name, raw = parse_call(item)
    elif isinstance(item, Mapping):
        name, raw = _from_mapping(item)
    else:
        raise VulcanConfigError(
            "is not an audit: give {name: ..., <arguments>} or a call like 'not_null(columns=[id])'"
        )
    name = name.strip().lower()
    if not _NAME_RE.match(name):
        raise VulcanConfigError(f"{name!r} is not an audit name")
    args = {str(k).strip().lower(): v for k, v in raw.items()}
    blocking = _as_bool(args.pop("blocking", None), True)
    if blocking is None:
        raise VulcanConfigError("blocking: is not a boolean (true or false)")
    if name in BUILTINS:
        return Audit(name, _builtin_args(name, args), blocking)
    if macro_exists is not None and not macro_exists(f"audit_{name}"):
        raise VulcanConfigError(
            f"unknown audit '{name}': not built in ({', '.join(BUILTINS)}) and the project "
            f"has no macro audit_{name}(relation, ...) returning the offending rows"
        )
    return Audit(name, args, blocking, builtin=False)


def _from_mapping(item: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    if "name" in item:
        name = item["name"]
        if not isinstance(name, str):
            raise VulcanConfigError(f"name: {name!r} is not an audit name")
        return name, {k: v for k, v in item.items() if k != "name"}
    if len(item) == 1:  # {not_null: {columns: [id]}}
        (name, args), *_ = item.items()
        if isinstance(args, Mapping):
            return str(name), dict(args)
        if args is None:
            return str(name), {}
    raise VulcanConfigError("has no `name` (e.g. {name: not_null, columns: [id]})")


def _builtin_args(name: str, args: dict[str, Any]) -> dict[str, Any]:
    required, optional = BUILTINS[name]
    allowed = required + optional
    given: dict[str, Any] = {}
    for key, value in args.items():
        key = _ALIASES.get(key, key)
        if key == "column" and "columns" in allowed:
            key = "columns"
        if key not in allowed:
            raise VulcanConfigError(
                f"{name} takes no argument '{key}' (arguments: {', '.join(allowed + _COMMON)})"
            )
        given[key] = value
    missing = [k for k in required if given.get(k) in (None, "", [])]
    if missing:
        raise VulcanConfigError(f"{name} needs {', '.join(missing)}")
    out: dict[str, Any] = {}
    for key in allowed:
        if key not in given or given[key] is None:
            continue
        value = given[key]
        if key == "columns":
            out[key] = _columns(value)
        elif key == "column":
            out[key] = _column(value)
        elif key == "values":
            out[key] = _values(value)
        elif key in ("min", "max"):
            out[key] = _scalar(value, key)
        elif key == "inclusive":
            flag = _as_bool(value, True)
            if flag is None:
                raise VulcanConfigError(f"inclusive: {value!r} is not a boolean")
            out[key] = flag
        elif key == "threshold":
            out[key] = _threshold(value)
    if name == "accepted_range" and "min" not in out and "max" not in out:
        raise VulcanConfigError("accepted_range needs min, max or both")
    return out


def _column(value: Any) -> str:
    if isinstance(value, list | tuple) and len(value) == 1:
        value = value[0]
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise VulcanConfigError(f"column: {value!r} is not a column name")


def _columns(value: Any) -> list[str]:
    values = [value] if isinstance(value, str) else value
    if (
        isinstance(values, list | tuple)
        and values
        and all(isinstance(v, str) and v.strip() for v in values)
    ):
        return [v.strip() for v in values]
    raise VulcanConfigError(f"columns: {value!r} is not a column name or a list of column names")


def _values(value: Any) -> list[Any]:
    values = list(value) if isinstance(value, list | tuple) else [value]
    if not values:
        raise VulcanConfigError("values: give at least one accepted value")
    return [_scalar(v, "values") for v in values]


def _scalar(value: Any, key: str) -> Any:
    if isinstance(value, bool | int | float | str | date):
        return value
    raise VulcanConfigError(f"{key}: {value!r} is not a number, string, date or boolean")


def _threshold(value: Any) -> int:
    if isinstance(value, bool):
        raise VulcanConfigError(f"threshold: {value!r} is not a whole number >= 0")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise VulcanConfigError(f"threshold: {value!r} is not a whole number >= 0") from None
    if number < 0 or (isinstance(value, float) and number != value):
        raise VulcanConfigError(f"threshold: {value!r} is not a whole number >= 0")
    return number


def _as_bool(value: Any, default: bool) -> bool | None:
    """A boolean config value; None for something that is not one."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


# --- the call form: 'accepted_range(column=x, min=0, max := 100)' ------------------------------

_TOKEN_RE = re.compile(
    r"""\s*(?:
        (?P<string>'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*")
      | (?P<quoted>`(?:[^`]|``)+`)
      | (?P<number>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)
      | (?P<name>[A-Za-z_][A-Za-z0-9_.]*)
      | (?P<assign>:=|=)
      | (?P<punct>[()\[\],])
    )""",
    re.VERBOSE,
)


def parse_call(text: str) -> tuple[str, dict[str, Any]]:
    """`name` or `name(arg=value, ...)` -> (name, args). Values: numbers, quoted strings,
    true/false/null, bare names (as strings) and lists `[a, b]` or `(a, b)`."""
    tokens = _tokenize(text)
    pos = 0

    def peek() -> tuple[str, str] | None:
        return tokens[pos] if pos < len(tokens) else None

    def take(kind: str, value: str | None = None) -> str:
        nonlocal pos
        token = peek()
        if token is None or token[0] != kind or (value is not None and token[1] != value):
            found = "the end" if token is None else repr(token[1])
            raise VulcanConfigError(f"cannot parse {text!r}: expected {value or kind}, got {found}")
        pos += 1
        return token[1]

    def value() -> Any:
        nonlocal pos
        token = peek()
        if token is not None and token[0] == "punct" and token[1] in "([":
            closing = ")" if token[1] == "(" else "]"
            pos += 1
            items: list[Any] = []
            while peek() != ("punct", closing):
                items.append(value())
                if peek() == ("punct", ","):
                    pos += 1
                elif peek() != ("punct", closing):
                    take("punct", closing)
            pos += 1
            return items
        if token is None:
            raise VulcanConfigError(f"cannot parse {text!r}: a value is missing")
        pos += 1
        kind, raw = token
        if kind == "string":
            return _unquote(raw)
        if kind == "quoted":  # a `quoted name`
            return raw[1:-1].replace("``", "`")
        if kind == "number":
            number = float(raw)
            return int(number) if re.fullmatch(r"-?\d+", raw) else number
        if kind == "name":
            lowered = raw.lower()
            if lowered in ("true", "false"):
                return lowered == "true"
            if lowered in ("null", "none"):
                return None
            return raw
        raise VulcanConfigError(f"cannot parse {text!r}: unexpected {raw!r}")

    name = take("name")
    args: dict[str, Any] = {}
    if peek() == ("punct", "("):
        pos += 1
        while peek() != ("punct", ")"):
            key = take("name")
            take("assign")
            args[key] = value()
            if peek() == ("punct", ","):
                pos += 1
            elif peek() != ("punct", ")"):
                take("punct", ")")
        pos += 1
    if pos != len(tokens):
        raise VulcanConfigError(f"cannot parse {text!r}: unexpected {tokens[pos][1]!r}")
    return name, args


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    stripped = text.rstrip()
    while pos < len(stripped):
        match = _TOKEN_RE.match(stripped, pos)
        if match is None or match.end() == pos:
            raise VulcanConfigError(f"cannot parse {text!r} at {stripped[pos:]!r}")
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        pos = match.end()
    return tokens


def _unquote(raw: str) -> str:
    quote, body = raw[0], raw[1:-1]
    if quote == "'":
        body = body.replace("''", "'")
    return re.sub(r"\\(.)", r"\1", body)


# --- SQL ---------------------------------------------------------------------------------------


def quote_name(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def literal(value: Any) -> str:
    """A Spark SQL literal for a config value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, datetime):
        return f"timestamp'{value.isoformat(sep=' ')}'"
    if isinstance(value, date):
        return f"date'{value.isoformat()}'"
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


def _not_null(args: Mapping[str, Any], relation: str) -> str:
    test = " or ".join(f"{quote_name(c)} is null" for c in args["columns"])
    return f"select * from {relation} where {test}"


def _unique_values(args: Mapping[str, Any], relation: str) -> str:
    parts = []
    for column in args["columns"]:
        q = quote_name(column)
        parts.append(
            f"select {literal(column)} as column_name, cast({q} as string) as value, "
            f"count(*) as row_count from {relation} where {q} is not null "
            f"group by {q} having count(*) > 1"
        )
    return "\nunion all\n".join(parts)


def _unique_combination(args: Mapping[str, Any], relation: str) -> str:
    columns = args["columns"]
    keys = ", ".join(quote_name(c) for c in columns)
    counter = "vulcan_row_count" if "row_count" in {c.lower() for c in columns} else "row_count"
    return (
        f"select {keys}, count(*) as {counter} from {relation} group by {keys} having count(*) > 1"
    )


def _compare(operator: str) -> Callable[[Mapping[str, Any], str], str]:
    def sql(args: Mapping[str, Any], relation: str) -> str:
        return f"select * from {relation} where {quote_name(args['column'])} {operator} 0"

    return sql


def _accepted_values(args: Mapping[str, Any], relation: str) -> str:
    values = ", ".join(literal(v) for v in args["values"])
    return f"select * from {relation} where {quote_name(args['column'])} not in ({values})"


def _accepted_range(args: Mapping[str, Any], relation: str) -> str:
    column = quote_name(args["column"])
    inclusive = args.get("inclusive", True)
    tests = []
    if "min" in args:
        tests.append(f"{column} {'<' if inclusive else '<='} {literal(args['min'])}")
    if "max" in args:
        tests.append(f"{column} {'>' if inclusive else '>='} {literal(args['max'])}")
    return f"select * from {relation} where {' or '.join(tests)}"


def _number_of_rows(args: Mapping[str, Any], relation: str) -> str:
    threshold = int(args["threshold"])
    return f"select count(*) as row_count from {relation} having count(*) <= {threshold}"


_SQL: dict[str, Callable[[Mapping[str, Any], str], str]] = {
    "not_null": _not_null,
    "unique_values": _unique_values,
    "unique_combination_of_columns": _unique_combination,
    "positive_values": _compare("<="),
    "non_negative_values": _compare("<"),
    "accepted_values": _accepted_values,
    "accepted_range": _accepted_range,
    "number_of_rows": _number_of_rows,
}


def count_query(sqls: Sequence[str]) -> str:
    """One statement counting every audit's offending rows: (vulcan_audit, vulcan_failures)."""
    return "\nunion all\n".join(
        f"select {i} as vulcan_audit, count(*) as vulcan_failures from (\n{sql}\n) as vulcan_v"
        for i, sql in enumerate(sqls)
    )


def sample_query(sqls: Sequence[str], failing: Sequence[int], limit: int = SAMPLE_LIMIT) -> str:
    """One statement fetching up to `limit` offending rows (as JSON) of each failing audit."""
    parts = []
    for i in failing:
        parts.append(
            f"select * from (select {int(i)} as vulcan_audit, "
            "to_json(struct(vulcan_v.*), map('ignoreNullFields', 'false')) as vulcan_sample "
            f"from (\n{sqls[int(i)]}\n) as vulcan_v limit {int(limit)}) as vulcan_s{int(i)}"
        )
    return "\nunion all\n".join(parts)


# --- results -----------------------------------------------------------------------------------


def _rows(result: Any) -> list[Sequence[Any]]:
    rows = getattr(result, "rows", result)
    return [tuple(r) for r in rows or []]


def failures(counts: Any) -> list[int]:
    """Indexes of the audits that found offending rows, from count_query's result."""
    return sorted(int(r[0]) for r in _rows(counts) if r[1] is not None and int(r[1]) > 0)


def batch_name(batch: Mapping[str, Any]) -> str:
    where = batch.get("label", "") if batch.get("tracked", True) else "(whole query)"
    return f"batch [{batch.get('index', 1)}/{batch.get('count', 1)}] {where}".rstrip()


def report(
    model: str,
    audits: Sequence[Mapping[str, Any]],
    batch: Mapping[str, Any],
    counts: Any,
    samples: Any,
) -> dict[str, Any]:
    """{error: message of the failing blocking audits or None, warnings: [...]}."""
    found = {int(r[0]): int(r[1]) for r in _rows(counts) if r[1] is not None}
    examples: dict[int, list[str]] = {}
    for row in _rows(samples):
        examples.setdefault(int(row[0]), []).append(_show_sample(row[1]))
    errors: list[str] = []
    warnings: list[str] = []
    where = batch_name(batch)
    for i, audit in enumerate(audits):
        count = found.get(i, 0)
        if count <= 0:
            continue
        noun = "offending row" + ("" if count == 1 else "s")
        shown = examples.get(i, [])
        tail = f", e.g. {'; '.join(shown)}" if shown else ""
        kind = "" if audit["blocking"] else " (non-blocking)"
        line = f"Audit {audit['label']}{kind} failed for model {model}, {where}: "
        line += f"{count} {noun}{tail}"
        (errors if audit["blocking"] else warnings).append(line)
    error = None
    if errors:
        done = "Nothing of this batch was written: the table and its interval state are unchanged."
        error = "\n".join([*errors, done])
    return {"error": error, "warnings": warnings}


def _show_sample(raw: Any) -> str:
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        value = raw
    if isinstance(value, Mapping):
        text = "{" + ", ".join(f"{k}: {_show_value(v)}" for k, v in value.items()) + "}"
    else:
        text = str(value)
    return text if len(text) <= _SAMPLE_CHARS else text[: _SAMPLE_CHARS - 3] + "..."


def _show_value(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, str):
        return repr(value)
    return json.dumps(value) if isinstance(value, list | dict) else str(value)


def _show_arg(value: Any, bare: bool = False) -> str:
    """An argument as the label shows it: column names bare, other strings quoted."""
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_show_arg(v, bare) for v in value) + "]"
    if isinstance(value, str):
        return value if bare and _NAME_RE.match(value) else repr(value)
    if isinstance(value, date):
        return value.isoformat()
    return str(value).lower() if isinstance(value, bool) else str(value)


def _show_item(item: Any) -> str:
    text = repr(item)
    return text if len(text) <= 80 else text[:77] + "..."
