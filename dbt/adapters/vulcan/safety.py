"""Static safety analysis of ``incremental_by_time_range`` model SQL.

An incremental model computes its table one time slice (batch) at a time. Some SQL gives a
different answer on a slice than on the full data, and the table then silently differs from
a full rebuild. Before any data is touched, the model SQL is parsed with sqlglot (Spark
dialect) and these patterns are looked for, in every CTE and subquery:

================= ======== ===========================================================
pattern           verdict  found when
================= ======== ===========================================================
limit             refuse   LIMIT, OFFSET or FETCH anywhere in the query
nondeterministic  refuse   rand/randn/random/uniform/randstr/uuid/shuffle, the clock
                           (current_timestamp, now, current_date, localtimestamp, ...),
                           monotonically_increasing_id, spark_partition_id,
                           input_file_name, TABLESAMPLE
window            refuse   a window whose PARTITION BY has no time-aligned key
distinct          refuse   SELECT DISTINCT / UNION / INTERSECT / EXCEPT (without ALL)
                           whose select list has no time-aligned column
group_by          refuse   GROUP BY without a time-aligned key (also ROLLUP/CUBE sets
                           without one), or an aggregate without GROUP BY
having            refuse   HAVING on a grouping that is not time-aligned
no_time_filter    warn     the SQL uses none of the ``@start_*`` / ``@end_*`` tokens
ts_on_timestamp   warn     ``@start_ts`` / ``@end_ts`` bound a TIMESTAMP time column (see
                           ``ts_bounds``)
unparseable       warn     sqlglot cannot parse the SQL (the analysis is skipped)
================= ======== ===========================================================

``window``, ``distinct`` (SELECT DISTINCT), ``group_by`` and ``having`` concern only the
SELECTs that see one time slice: the outermost query (the output filter keeps one batch of its
rows) and every CTE or subquery whose input is time-filtered, directly or through another CTE
(see ``_sliced_selects``). A CTE reading a relation in full answers alike on every batch.

An expression is *time-aligned* when all rows sharing its value fall into one interval of
the model, so grouping or partitioning by it never mixes slices. It is time-aligned if it is

* the expression of a column named ``time_column`` in any SELECT (aliases resolved, e.g.
  ``DATE_TRUNC('week', order_date) AS order_date``; for UNIONs the branch column at the same
  position), compared structurally (case and table qualifiers ignored);
* a column named ``time_column``, or the single input column such an expression is built
  from (``CAST(ts AS DATE) AS order_date`` makes ``ts`` aligned: it is finer);
* a CAST / TRY_CAST / TO_DATE / DATE_TRUNC / TRUNC of an aligned expression whose grain
  nests in the model's interval unit (``DATE_TRUNC('month', order_date)`` is *not* aligned
  for a daily model: a month spans many daily intervals);
* in GROUP BY, an ordinal (``GROUP BY 1``) or a select alias resolving to one of the above.

``ts_on_timestamp`` is checked apart (``ts_bounds``: the tokens found, which the Jinja side
words in both modes), only when the time column's type is TIMESTAMP: a ``_ts`` token is a
zoneless string that Spark reads in the session's time zone, so outside UTC such a bound
shifts every batch. The package reads the same comparisons in its token analysis
(macros/safety/ts_bounds.sql).

Time tokens are substituted (with a sample batch) before parsing, so ``@execution_dt`` and
friends are plain literals and never count as non-deterministic: use them instead of
``current_timestamp()`` when the run time is needed. Patterns listed in ``safety_overrides``
are neither refused nor warned about.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from dbt.adapters.vulcan import timemacros
from dbt.adapters.vulcan.timeutil import VulcanConfigError
from dbt.adapters.vulcan.units import IntervalUnit

__all__ = [
    "OVERRIDABLE",
    "REFUSED",
    "Finding",
    "analyze",
    "normalize_overrides",
    "ts_bounds",
    "verdict",
]

LIMIT = "limit"
NONDETERMINISTIC = "nondeterministic"
WINDOW = "window"
DISTINCT = "distinct"
GROUP_BY = "group_by"
HAVING = "having"
NO_TIME_FILTER = "no_time_filter"
TS_ON_TIMESTAMP = "ts_on_timestamp"
UNPARSEABLE = "unparseable"

OVERRIDABLE: tuple[str, ...] = (
    LIMIT,
    NONDETERMINISTIC,
    WINDOW,
    DISTINCT,
    GROUP_BY,
    HAVING,
    NO_TIME_FILTER,
    TS_ON_TIMESTAMP,
)
REFUSED = frozenset({LIMIT, NONDETERMINISTIC, WINDOW, DISTINCT, GROUP_BY, HAVING})

_FRAGMENT_MAX = 100
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_TOKEN_REPR = re.compile(r"<Token token_type: [^,]*, text: (.*?), line: \d+, col: \d+[^>]*>")
# any batch will do: tokens only need to become literals the parser understands; an unusual
# date whose execution time differs from the batch's end, so the literals of the filter tokens
# (@start_*/@end_*) can be told apart from every other literal
_SAMPLE_TOKENS = timemacros.token_values(
    datetime(1987, 6, 5), datetime(1987, 6, 6), datetime(1987, 6, 8)
)
_FILTER_TOKENS = {t: "" for t in timemacros.TOKENS if t.startswith(("start_", "end_"))}
_FILTER_LITERALS = frozenset(
    literal.this
    for token in _FILTER_TOKENS
    for literal in sqlglot.parse_one(_SAMPLE_TOKENS[token], read="spark").find_all(exp.Literal)
)
# the zoneless _ts tokens, by the literal of their sample value
_TS_TOKENS = ("start_ts", "end_ts")
_TS_LITERALS = {
    sqlglot.parse_one(_SAMPLE_TOKENS[token], read="spark").this: token for token in _TS_TOKENS
}
_COMPARISONS = (exp.EQ, exp.NEQ, exp.NullSafeEQ, exp.LT, exp.LTE, exp.GT, exp.GTE)

_RANDOM_FUNCS = {"rand", "randn", "random", "uniform", "randstr", "uuid", "shuffle"}
_CLOCK_FUNCS = {
    "current_timestamp",
    "current_date",
    "current_time",
    "current_datetime",
    "now",
    "curdate",
    "localtimestamp",
    "localtime",
}
_LAYOUT_FUNCS = {
    "monotonically_increasing_id",
    "spark_partition_id",
    "input_file_name",
    "input_file_block_start",
    "input_file_block_length",
}
_KEEPS = "keeps"  # a conversion that does not truncate (CAST to TIMESTAMP, STRING ...)
# Spark/sqlglot unit names -> canonical truncation grain
_UNIT_GRAINS = {
    "microsecond": "second",
    "millisecond": "second",
    "second": "second",
    "minute": "minute",
    "hour": "hour",
    "day": "day",
    "dd": "day",
    "week": "week",
    "month": "month",
    "mon": "month",
    "mm": "month",
    "quarter": "quarter",
    "year": "year",
    "yyyy": "year",
    "yy": "year",
}
_U = IntervalUnit
# interval units that a truncation grain nests in (every period of the grain lies in one interval)
_NESTS_IN: dict[str, frozenset[IntervalUnit]] = {
    "hour": frozenset({_U.HOUR, _U.DAY, _U.WEEK, _U.MONTH, _U.QUARTER, _U.YEAR}),
    "day": frozenset({_U.DAY, _U.WEEK, _U.MONTH, _U.QUARTER, _U.YEAR}),
    "week": frozenset({_U.WEEK}),
    "month": frozenset({_U.MONTH, _U.QUARTER, _U.YEAR}),
    "quarter": frozenset({_U.QUARTER, _U.YEAR}),
    "year": frozenset({_U.YEAR}),
}


@dataclass(frozen=True)
class Finding:
    """One unsafe (or unanalyzable) pattern in a model's SQL."""

    pattern: str  # one of OVERRIDABLE, or 'unparseable'
    message: str  # full sentence: fragment, where it is, why it matters
    fragment: str  # the offending SQL text ('' when there is none)
    location: str = ""  # e.g. 'CTE recent_orders', 'the top-level query'

    @property
    def refused(self) -> bool:
        """True if the pattern stops the model; otherwise it is only a warning."""
        return self.pattern in REFUSED

    @property
    def severity(self) -> str:
        return "refuse" if self.refused else "warn"


# ---------------------------------------------------------------- overrides


def normalize_overrides(overrides: Iterable[str] | None) -> frozenset[str]:
    """Lower-cased override names; raise VulcanConfigError naming unknown ones."""
    names = frozenset(str(o).strip().lower() for o in overrides or ())
    errors = []
    for name in sorted(names - set(OVERRIDABLE)):
        close = difflib.get_close_matches(name, OVERRIDABLE, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        errors.append(f"{name!r}{hint}")
    if errors:
        raise VulcanConfigError(
            f"safety_overrides: {', '.join(errors)} not a safety pattern; "
            f"allowed: {', '.join(OVERRIDABLE)}"
        )
    return names


# ---------------------------------------------------------------- analysis


def analyze(
    sql: str,
    time_column: str,
    overrides: Iterable[str] | None = (),
    *,
    interval_unit: str | IntervalUnit = IntervalUnit.DAY,
    week_start: int = 0,
) -> list[Finding]:
    """Findings for a model's SQL, in a deterministic order, overridden patterns dropped.

    ``sql`` is the compiled model SQL with its ``@start_ds``-style tokens still in it.
    ``interval_unit``/``week_start`` (0 = Monday) decide which truncations of the time
    column stay inside one interval.
    """
    skip = normalize_overrides(overrides)
    unit = IntervalUnit.parse(interval_unit)
    findings: list[Finding] = []
    if NO_TIME_FILTER not in skip and timemacros.render(sql, _FILTER_TOKENS) == sql:
        findings.append(
            Finding(
                NO_TIME_FILTER,
                "the SQL uses none of the @start_*/@end_* tokens, so every batch reads all "
                "input data (the output filter still keeps only the batch's rows); filter the "
                f"input, e.g. WHERE {time_column} BETWEEN @start_ds AND @end_ds",
                "",
            )
        )
    parsed = _parse(timemacros.render(sql, _SAMPLE_TOKENS))
    if isinstance(parsed, Finding):
        return [*findings, parsed]
    found: list[Finding] = []
    for statement in parsed:
        aligner = _Aligner(statement, time_column, unit, week_start)
        sliced = _sliced_selects(statement)
        found.extend(_limits(statement))
        found.extend(_nondeterministic(statement))
        found.extend(_windows(statement, aligner, sliced))
        found.extend(_set_operations(statement, aligner))
        for select in statement.find_all(exp.Select, bfs=False):
            if id(select) in sliced:
                found.extend(_select_findings(select, aligner))
    order = {pattern: i for i, pattern in enumerate(OVERRIDABLE)}
    seen: set[tuple[str, str]] = set()
    for finding in sorted(found, key=lambda f: order[f.pattern]):  # stable: tree order kept
        if finding.pattern in skip or (finding.pattern, finding.message) in seen:
            continue
        seen.add((finding.pattern, finding.message))
        findings.append(finding)
    return findings


def ts_bounds(sql: str, time_column: str) -> list[str]:
    """The ``_ts`` tokens (``@start_ts``, ``@end_ts``, in that order) that bound the time column:
    a comparison (``=``, ``<>``, ``<=>``, ``<``, ``<=``, ``>``, ``>=``) of a column named like
    it with the token itself, either side, or ``column [NOT] BETWEEN`` with the token as a bound.

    The tokens are zoneless strings, read in the Spark session's time zone when compared with
    a TIMESTAMP: the caller asks only for such a time column (the run warns, worded in Jinja
    for both modes: macros/safety/ts_bounds.sql). SQL that cannot be parsed has none.
    """
    if timemacros.render(sql, {t: "" for t in _TS_TOKENS}) == sql:
        return []
    parsed = _parse(timemacros.render(sql, _SAMPLE_TOKENS))
    if isinstance(parsed, Finding):
        return []
    column = time_column.strip().strip("`").lower()

    def is_column(node: object) -> bool:
        return isinstance(node, exp.Column) and node.name.lower() == column

    found: set[str] = set()
    for statement in parsed:
        for node in statement.find_all(exp.Between, *_COMPARISONS):
            if isinstance(node, exp.Between):
                sides = (
                    [node.args.get("low"), node.args.get("high")] if is_column(node.this) else []
                )
            elif is_column(node.this):
                sides = [node.expression]
            else:
                sides = [node.this] if is_column(node.expression) else []
            for side in sides:
                if isinstance(side, exp.Literal) and side.is_string and side.this in _TS_LITERALS:
                    found.add(_TS_LITERALS[side.this])
    return [f"@{token}" for token in _TS_TOKENS if token in found]


def verdict(model: str, findings: Iterable[Finding]) -> tuple[str | None, list[str]]:
    """(refusal error text or None, warning lines) for a model's findings."""
    findings = list(findings)
    refused = [f for f in findings if f.refused]
    warnings = [
        f"Model '{model}': safety analysis [{f.pattern}]: {f.message}"
        for f in findings
        if not f.refused
    ]
    if not refused:
        return None, warnings
    lines = "\n".join(f"  - [{f.pattern}] {f.message}" for f in refused)
    names = ", ".join(repr(p) for p in dict.fromkeys(f.pattern for f in refused))
    return (
        f"Model '{model}': the incremental safety analysis refused the model SQL; these "
        f"patterns give different results on a time slice than on the full data:\n{lines}\n"
        "Fix the SQL, or, if the result is correct on every slice, list the pattern names "
        f"in the model's safety_overrides config (here: [{names}]).",
        warnings,
    )


# ---------------------------------------------------------------- parsing


def _parse(sql: str) -> list[exp.Expression] | Finding:
    def unparseable(reason: str) -> Finding:
        return Finding(
            UNPARSEABLE,
            f"the SQL could not be parsed for the safety analysis, which was skipped: {reason}",
            "",
        )

    try:
        statements = [s for s in sqlglot.parse(sql, read="spark") if isinstance(s, exp.Expression)]
    except SqlglotError as exc:
        first = _TOKEN_REPR.sub(r"'\1'", _ANSI.sub("", str(exc))).strip().splitlines()
        return unparseable(first[0] if first else type(exc).__name__)
    if not statements:
        return unparseable("no statement found")
    for statement in statements:
        if not isinstance(statement, exp.Query):
            return unparseable(f"not a query: {_fragment(statement)}")
    return statements


# ---------------------------------------------------------------- helpers


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _FRAGMENT_MAX else text[: _FRAGMENT_MAX - 3] + "..."


def _fragment(node: exp.Expression) -> str:
    return _shorten(node.sql(dialect="spark"))


def _location(node: exp.Expression) -> str:
    """Where a node sits: 'subquery t in CTE x', 'the top-level query' ..."""
    parts = []
    current = node.parent
    while current is not None:
        if isinstance(current, exp.CTE):
            parts.append(f"CTE {current.alias}")
        elif isinstance(current, exp.Subquery):
            parts.append(f"subquery {current.alias}" if current.alias else "a subquery")
        current = current.parent
    return " in ".join(parts) or "the top-level query"


def _finding(pattern: str, node: exp.Expression, why: str, fragment: str = "") -> Finding:
    fragment = fragment or _fragment(node)
    where = _location(node)
    return Finding(pattern, f"{fragment} in {where}: {why}", fragment, where)


def _norm(node: exp.Expression) -> str:
    """SQL text of an expression with table qualifiers and case ignored."""
    copy = node.copy()
    for column in list(copy.find_all(exp.Column, bfs=False)):
        for part in ("table", "db", "catalog"):
            column.set(part, None)
    return copy.sql(dialect="spark").lower()


def _unparen(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _branches(node: exp.Expression) -> list[exp.Expression]:
    """The SELECTs of a (nested) set operation, left to right."""
    if isinstance(node, exp.SetOperation):
        return _branches(node.this) + _branches(node.expression)
    if isinstance(node, exp.Subquery) and not node.alias:
        return _branches(node.this)
    return [node]


def _owner(node: exp.Expression) -> exp.Select | None:
    """The SELECT a node belongs to (not crossing into an enclosing query)."""
    select = node.find_ancestor(exp.Select)
    return select if isinstance(select, exp.Select) else None


class _Aligner:
    """Decides whether an expression is time-aligned (see the module docstring)."""

    def __init__(
        self, statement: exp.Expression, time_column: str, unit: IntervalUnit, week_start: int
    ) -> None:

        self.time_column = time_column.strip().strip("`").lower()
        self.unit = unit
        self.week_start = week_start
        sources: list[exp.Expression] = []
        for select in statement.find_all(exp.Select, bfs=False):
            sources.extend(p.unalias() for p in select.expressions if self._names_time_column(p))
        for setop in statement.find_all(exp.SetOperation, bfs=False):
            if isinstance(setop.parent, exp.SetOperation):
                continue  # handled with its outermost operation
            sources.extend(self._union_sources(_branches(setop)))
        self.sources = {_norm(s) for s in sources}
        self.base_columns = {self.time_column}
        for source in sources:
            names = {c.name.lower() for c in source.find_all(exp.Column, bfs=False)}
            if len(names) == 1:
                self.base_columns |= names

    def _names_time_column(self, projection: exp.Expression) -> bool:
        return projection.alias_or_name.lower() == self.time_column

    def _union_sources(self, branches: list[exp.Expression]) -> list[exp.Expression]:
        first = branches[0]
        if not isinstance(first, exp.Select):
            return []
        positions = [i for i, p in enumerate(first.expressions) if self._names_time_column(p)]
        if not positions:
            return []
        found = []
        for branch in branches[1:]:
            if isinstance(branch, exp.Select) and positions[0] < len(branch.expressions):
                projection = branch.expressions[positions[0]]
                if not isinstance(projection, exp.Star):
                    found.append(projection.unalias())
        return found

    def aligned(
        self, node: exp.Expression, select: exp.Select | None, ordinals: bool = False
    ) -> bool:
        """True if rows sharing ``node``'s value always fall into one interval."""

        node = _unparen(node)
        if ordinals and select is not None and isinstance(node, exp.Literal):
            if node.is_int and 0 < int(node.this) <= len(select.expressions):
                return self.aligned(select.expressions[int(node.this) - 1].unalias(), None)
            return False
        if _norm(node) in self.sources:
            return True
        if isinstance(node, exp.Column):
            if node.name.lower() in self.base_columns:
                return True
            return select is not None and not node.table and self._alias_aligned(node, select)
        grain = self._grain(node)
        if grain is None or not self._nests(grain):
            return False
        inner = node.this
        return isinstance(inner, exp.Expression) and self.aligned(inner, select)

    def _alias_aligned(self, column: exp.Column, select: exp.Select) -> bool:
        for projection in select.expressions:
            if (
                isinstance(projection, exp.Alias)
                and projection.alias.lower() == column.name.lower()
            ):
                return self.aligned(projection.this, None)
        return False

    @staticmethod
    def _grain(node: exp.Expression) -> str | None:
        """Grain a time function truncates its argument to (_KEEPS: no truncation), or None
        if ``node`` is not a time function."""
        if isinstance(node, exp.Cast):  # TryCast is a Cast
            return "day" if node.to.is_type(exp.DataType.Type.DATE) else _KEEPS
        if isinstance(node, exp.TsOrDsToDate):  # to_date(x), date(x)
            return "day"
        if isinstance(node, exp.TimestampTrunc | exp.DateTrunc):
            unit = node.args.get("unit")
            name = unit.name.lower() if isinstance(unit, exp.Expression) else ""
            return _UNIT_GRAINS.get(name)
        return None

    def _nests(self, grain: str) -> bool:
        if grain in (_KEEPS, "second", "minute"):
            return True
        if grain == "week" and self.week_start != 0:
            return False  # Spark weeks start on Monday; the model's weeks do not
        return self.unit in _NESTS_IN.get(grain, frozenset())


# ---------------------------------------------------------------- which SELECTs see one slice


def _filters_time(select: exp.Select, sliced_ctes: set[str]) -> bool:
    """True if the rows ``select`` reads depend on the batch: a @start_*/@end_* literal in its
    FROM, joins, WHERE, GROUP BY or HAVING (nested queries included), or a read of a CTE
    that depends on it. Its own projections and WITH clause do not count."""
    for key, value in select.args.items():
        if key in ("expressions", "with") or value is None:
            continue
        for child in value if isinstance(value, list) else [value]:
            if not isinstance(child, exp.Expression):
                continue
            for literal in child.find_all(exp.Literal):
                if literal.this in _FILTER_LITERALS:
                    return True
            for table in child.find_all(exp.Table):
                if not table.db and table.name.lower() in sliced_ctes:
                    return True
    return False


def _sliced_selects(statement: exp.Expression) -> set[int]:
    """The ids of the SELECTs that see one time slice of the data rather than all of it: the
    outermost query (the output filter keeps one batch of its rows, whatever it reads) and
    every SELECT whose input is time-filtered (see _filters_time). A CTE or subquery reading
    a relation in full (a dimension, a lookup) gives the same answer on every batch, so its
    GROUP BY, DISTINCT or window is not a slice problem."""
    selects = list(statement.find_all(exp.Select, bfs=False))
    ctes = {
        cte.alias_or_name.lower(): cte.this
        for cte in statement.find_all(exp.CTE, bfs=False)
        if isinstance(cte.this, exp.Expression)
    }
    sliced_ctes: set[str] = set()
    changed = True
    while changed:  # a CTE can read another: to a fixed point
        changed = False
        for name, body in ctes.items():
            if name in sliced_ctes:
                continue
            members = [body, *body.find_all(exp.Select, bfs=False)]
            if any(isinstance(m, exp.Select) and _filters_time(m, sliced_ctes) for m in members):
                sliced_ctes.add(name)
                changed = True
    return {
        id(select)
        for select in selects
        if select.find_ancestor(exp.Select, exp.CTE) is None or _filters_time(select, sliced_ctes)
    }


# ---------------------------------------------------------------- the checks


def _limits(statement: exp.Expression) -> Iterator[Finding]:
    for node in statement.find_all(exp.Limit, exp.Fetch, exp.Offset, bfs=False):
        yield _finding(
            LIMIT,
            node,
            "a limit keeps a different set of rows on a time slice than on the full data",
        )


def _function_name(node: exp.Expression) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.name).lower()
    if isinstance(node, exp.Func):
        return node.sql_name().lower()
    if isinstance(node, exp.Column) and not node.table:
        return node.name.lower()  # bare keywords such as `localtimestamp`
    return ""


def _nondeterministic(statement: exp.Expression) -> Iterator[Finding]:
    for node in statement.walk(bfs=False):
        if not isinstance(node, exp.Expression):
            continue
        if isinstance(node, exp.TableSample):
            yield _finding(NONDETERMINISTIC, node, "TABLESAMPLE picks different rows on every run")
            continue
        name = _function_name(node)
        if name in _RANDOM_FUNCS:
            why = "returns different values on every run, so a rerun interval changes"
        elif name in _CLOCK_FUNCS:
            why = (
                "depends on when the batch runs, so backfilled and rerun intervals differ; "
                "use the @execution_dt / @execution_ds tokens (pinned for the whole run)"
            )
        elif name in _LAYOUT_FUNCS:
            why = "depends on how Spark splits the input, which differs per time slice"
        else:
            continue
        yield _finding(NONDETERMINISTIC, node, why)


def _windows(statement: exp.Expression, aligner: _Aligner, sliced: set[int]) -> Iterator[Finding]:
    for node in statement.find_all(exp.Window, bfs=False):
        if node.arg_key == "windows":
            continue  # a named window definition: checked where it is used
        select = _owner(node)
        if select is not None and id(select) not in sliced:
            continue
        keys = list(node.args.get("partition_by") or [])
        named = node.args.get("alias")
        if not keys and isinstance(named, exp.Identifier) and select is not None:
            for definition in select.args.get("windows") or []:
                if definition.name.lower() == named.name.lower():
                    keys = list(definition.args.get("partition_by") or [])
        if any(aligner.aligned(key, select) for key in keys):
            continue
        why = (
            f"the window's PARTITION BY does not include the time column "
            f"{aligner.time_column}, so on one time slice it sees other rows than on the "
            "full data"
            if keys
            else f"a window without PARTITION BY {aligner.time_column} spans every time slice"
        )
        yield _finding(WINDOW, node, why)


def _set_operations(statement: exp.Expression, aligner: _Aligner) -> Iterator[Finding]:
    for node in statement.find_all(exp.SetOperation, bfs=False):
        if not node.args.get("distinct"):
            continue
        first = _branches(node)[0]
        if isinstance(first, exp.Select) and _projects_time(first, aligner):
            continue
        keyword = type(node).__name__.upper()
        yield _finding(
            DISTINCT,
            node,
            f"{keyword} removes duplicates across time slices because its columns do not "
            f"include the time column {aligner.time_column} (use {keyword} ALL)",
            fragment=f"{keyword} (without ALL)",
        )


def _projects_time(select: exp.Select, aligner: _Aligner) -> bool:
    return any(
        isinstance(p, exp.Star)
        or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star))
        or aligner.aligned(p.unalias(), select)
        for p in select.expressions
    )


def _plain_aggregates(select: exp.Select) -> list[exp.Expression]:
    """Aggregate calls of this SELECT (not window functions, not in nested queries)."""
    found = []
    for projection in select.expressions:
        for agg in projection.find_all(exp.AggFunc, bfs=False):
            if agg.find_ancestor(exp.Select, exp.Window) is select:
                found.append(agg)
    return found


def _grouping_aligned(select: exp.Select, aligner: _Aligner) -> bool:
    group = select.args["group"]
    if group.args.get("all"):  # GROUP BY ALL: every non-aggregate projection
        return any(
            aligner.aligned(p.unalias(), select)
            for p in select.expressions
            if not p.find(exp.AggFunc)
        )
    if group.args.get("rollup") or group.args.get("cube"):
        return False  # WITH ROLLUP / WITH CUBE add a grand total
    keys = list(group.expressions)
    sets = [k for k in keys if isinstance(k, exp.GroupingSets)]
    sets += list(group.args.get("grouping_sets") or [])
    if sets:
        members = [m for s in sets for m in s.expressions]
        return all(
            any(aligner.aligned(e, select, ordinals=True) for e in _set_members(m)) for m in members
        )
    plain = [k for k in keys if not isinstance(k, exp.Rollup | exp.Cube)]
    return any(aligner.aligned(k, select, ordinals=True) for k in plain)


def _set_members(member: exp.Expression) -> list[exp.Expression]:
    if isinstance(member, exp.Tuple):
        return list(member.expressions)
    return [_unparen(member)]


def _select_findings(select: exp.Select, aligner: _Aligner) -> Iterator[Finding]:
    time = aligner.time_column
    if select.args.get("distinct") and not _projects_time(select, aligner):
        yield _finding(
            DISTINCT,
            select,
            f"SELECT DISTINCT without the time column {time} removes duplicates across time slices",
            fragment=_shorten("SELECT DISTINCT " + ", ".join(map(_fragment, select.expressions))),
        )
    group = select.args.get("group")
    having = select.args.get("having")
    aligned = group is not None and _grouping_aligned(select, aligner)
    if group is not None and not aligned:
        yield _finding(
            GROUP_BY,
            group,
            f"the grouping does not include the time column {time}, so each group "
            "aggregates only the rows of one time slice instead of all of them",
        )
    elif group is None:
        aggregates = _plain_aggregates(select)
        if aggregates:
            yield _finding(
                GROUP_BY,
                aggregates[0],
                "an aggregate without GROUP BY aggregates only the rows of one time slice "
                f"(group by the time column {time})",
            )
    if isinstance(having, exp.Having) and not aligned:
        yield _finding(
            HAVING,
            having,
            "HAVING filters groups that are not time-aligned, so it keeps different groups "
            "on a time slice than on the full data",
        )
