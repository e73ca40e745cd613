"""The oracle of INCREMENTAL_BY_UNIQUE_KEY (macros/kinds/unique_key/): key expressions,
`when_matched` clauses and the SQL that upserts one batch: one MERGE on delta/iceberg; on
parquet (no MERGE on Spark's plain tables) a full outer join of the table and the batch,
staged and swapped in. The Python reference the Jinja is checked against
(tests/unit/macros/kinds/unique_key/test_unique_key_macros.py); never run.

Semantics, the same on every format:
- a batch row whose key matches a table row updates it: every column by default, or as the
  `when_matched` clauses say (first clause whose condition holds; none holds: row unchanged;
  `THEN DELETE` removes the row);
- a batch row with a new key is inserted; table rows whose key the batch lacks are left alone;
- a key that is NULL (any part of a composite key) never matches, as in SQL MERGE: such rows
  are inserted on every run that produces them and never updated;
- a key that appears more than once in one batch fails the write with an error that names the
  model, the key and one example value; the check runs inside the write statement, so nothing
  is written (no extra query);
- `merge_filter` is ANDed to the match condition: a pair failing it does not match, so that
  batch row is inserted as a new row (a second row with the same key).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

from dbt.adapters.vulcan.timemacros import render
from dbt.adapters.vulcan.timeutil import VulcanConfigError
from tests.oracle.config import ModelConfig
from tests.oracle.engine import sql_string

SOURCE = "source"
TARGET = "target"
MARKER = "__vulcan_marker"  # stage rows that only mark a partition in scope (parquet)
CHANGED = "__vulcan_changed"  # stage rows of the batch that are new or differ (parquet)
_ROW = "__vulcan_row"
_COUNT = "__vulcan_n"
_IN_SOURCE = "__vulcan_s"
_IN_TARGET = "__vulcan_t"
_DIALECT = "spark"
_CLAUSE_FORM = "WHEN MATCHED [AND <condition>] THEN UPDATE SET <column> = <expr>, ... | DELETE"


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _same(compare: Sequence[str]) -> str:
    """A batch row equal to its table row: `<=>` (NULLs equal) on every column of `compare`."""
    return " and ".join(f"{TARGET}.{quote(c)} <=> {SOURCE}.{quote(c)}" for c in compare)


def _config_error(model: str, problems: list[str]) -> VulcanConfigError:
    lines = "\n".join(f"  - {p}" for p in problems)
    return VulcanConfigError(
        f"Invalid config for model '{model}' (incremental_by_unique_key), "
        f"{len(problems)} problem(s):\n{lines}"
    )


# ------------------------------------------------------------------------------- keys


def _lambda_variable(column: exp.Column) -> bool:
    """A lambda's parameter (`x` in `transform(a, x -> x + 1)`), not a column."""
    node = column.parent
    while node is not None:
        if isinstance(node, exp.Lambda) and column.name in {v.name for v in node.expressions}:
            return True
        node = node.parent
    return False


def _columns(expression: exp.Expression) -> list[exp.Column]:
    return [c for c in expression.find_all(exp.Column) if not _lambda_variable(c)]


@dataclass(frozen=True)
class Key:
    """One part of the unique key: its text as written and its parsed form."""

    text: str
    expression: exp.Expression = field(compare=False)

    def sql(self, alias: str | None = None) -> str:
        return self.text if alias is None else qualify(self.expression, self.text, alias)

    def columns(self) -> list[str]:
        """The columns it names (of a struct field `s.f`, the column `s`)."""
        return [c.parts[0].name for c in _columns(self.expression)]


def _split_top_level(text: str) -> list[str]:
    """`a, b` and `(a, b)` -> ['a', 'b']; anything else -> [text]."""
    tokens = _tokenize(text)
    top = _top_level(tokens)
    wrapped = (
        len(tokens) > 2
        and tokens[0].token_type == TokenType.L_PAREN
        and tokens[-1].token_type == TokenType.R_PAREN
        and top.count(True) == 2
    )
    if wrapped:
        inner = text[tokens[1].start : tokens[-2].end + 1]
        parts = _split_top_level(inner)
        return parts if len(parts) > 1 else [text.strip()]
    parts = []
    start = 0
    for token, flag in zip(tokens, top, strict=True):
        if flag and token.token_type == TokenType.COMMA:
            parts.append(text[start : token.start])
            start = token.end + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def parse_keys(unique_key: Sequence[str]) -> tuple[list[Key], list[str]]:
    """Key parts of `unique_key` (names, `a, b`, `(a, b)` or SQL expressions)."""
    keys: list[Key] = []
    problems: list[str] = []
    for text in unique_key:
        try:
            parsed = sqlglot.parse_one(f"SELECT {text}", read=_DIALECT)
        except SqlglotError as exc:
            problems.append(
                f"unique_key: {text!r} is not a column or SQL expression ({_first_line(exc)})"
            )
            continue
        extra = [k for k, v in parsed.args.items() if v and k != "expressions"]
        if not isinstance(parsed, exp.Select) or extra:
            problems.append(f"unique_key: {text!r} is not a column or SQL expression")
            continue
        items: list[exp.Expression] = []
        for item in parsed.expressions:
            items += item.expressions if isinstance(item, exp.Tuple) else [item]
        texts = _split_top_level(text)
        if len(texts) != len(items):
            problems.append(f"unique_key: cannot split {text!r} into key parts")
            continue
        for item, item_text in zip(items, texts, strict=True):
            columns = _columns(item)
            if isinstance(item, exp.Alias | exp.Star) or not columns:
                problems.append(
                    f"unique_key: {item.sql(dialect=_DIALECT)!r} is not a column or an "
                    "expression over the model's columns"
                )
            elif any(c.table for c in columns):
                problems.append(
                    f"unique_key: {item.sql(dialect=_DIALECT)!r} names a table; write the "
                    "column alone (it is matched as source.<key> = target.<key>)"
                )
            else:
                keys.append(Key(item_text, item))
    return keys, problems


def _tokenize(text: str) -> list[Token]:
    return list(sqlglot.Dialect.get_or_raise(_DIALECT).tokenize(text))


def _top_level(tokens: Sequence[Token]) -> list[bool]:
    """Per token: outside any parentheses, brackets and CASE ... END."""
    depth = 0
    flags = []
    for token in tokens:
        kind = token.token_type
        if kind in (TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.END):
            depth = max(depth - 1, 0)
        flags.append(depth == 0)
        if kind in (TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.CASE):
            depth += 1
    return flags


def qualify(expression: exp.Expression, text: str, alias: str) -> str:
    """`text` (the key as written) with every column reference prefixed by `alias`.

    The column names come from the parsed expression; the text itself is kept, so functions
    are passed to Spark exactly as written."""
    columns = {c.name.lower() for c in _columns(expression)}
    tokens = _tokenize(text)
    out = []
    position = 0
    for i, token in enumerate(tokens):
        if token.token_type not in (TokenType.VAR, TokenType.IDENTIFIER):
            continue
        if token.text.lower() not in columns:
            continue
        before = tokens[i - 1].token_type if i > 0 else None
        after = tokens[i + 1].token_type if i + 1 < len(tokens) else None
        if before == TokenType.DOT or after in (TokenType.DOT, TokenType.L_PAREN, TokenType.ARROW):
            continue
        out.append(text[position : token.start] + f"{alias}.")
        position = token.start
    out.append(text[position:])
    return "".join(out).strip()


# ----------------------------------------------------------------------- when_matched


@dataclass(frozen=True)
class Clause:
    """One `WHEN MATCHED` clause: its condition (None: always), and what it does."""

    condition: str | None
    delete: bool = False
    star: bool = False  # UPDATE SET *
    assignments: tuple[tuple[str, str], ...] = ()  # (column, expression)


def _check_clause(when: exp.Expression, number: int) -> list[str]:
    """Problems of one parsed clause (only WHEN MATCHED, UPDATE SET target columns, DELETE)."""
    label = f"when_matched clause {number} ({when.sql(dialect=_DIALECT)!r})"
    if not when.args.get("matched") or when.args.get("source"):
        return [
            f"{label}: only WHEN MATCHED clauses are allowed ({_CLAUSE_FORM}); rows with "
            "new keys are always inserted"
        ]
    then = when.args.get("then")
    if isinstance(then, exp.Var) and then.name.upper() == "DELETE":
        return []
    if not isinstance(then, exp.Update):
        return [f"{label}: the action must be UPDATE SET ... or DELETE"]
    if not then.expressions:
        return [f"{label}: UPDATE SET needs `column = expr, ...` or `*`"]
    problems = []
    for item in then.expressions:
        if isinstance(item, exp.Star):
            continue
        column = item.this if isinstance(item, exp.EQ) else None
        if not isinstance(column, exp.Column):
            problems.append(f"{label}: {item.sql(dialect=_DIALECT)!r} is not `column = expr`")
        elif column.table and column.table.lower() != TARGET:
            problems.append(
                f"{label}: {column.sql(dialect=_DIALECT)!r} is not a column of the target; "
                f"assign to `{TARGET}.<column>` or `<column>`"
            )
    return problems


def _text(text: str, first: Token, last: Token) -> str:
    return text[first.start : last.end + 1].strip()


def _assignments(text: str, tokens: Sequence[Token], top: Sequence[bool]) -> list[tuple[str, str]]:
    """`a = x, target.b = f(y, z)` -> [('a', 'x'), ('b', 'f(y, z)')], the values as written."""
    groups: list[list[int]] = [[]]
    for i in range(len(tokens)):
        if top[i] and tokens[i].token_type == TokenType.COMMA:
            groups.append([])
        else:
            groups[-1].append(i)
    out = []
    for group in groups:
        eq = next(i for i in group if top[i] and tokens[i].token_type == TokenType.EQ)
        out.append((tokens[eq - 1].text, _text(text, tokens[eq + 1], tokens[group[-1]])))
    return out


def _slice_clauses(text: str) -> list[Clause]:
    """The clauses with their conditions and values cut from the text as written (so Spark
    gets exactly the user's SQL); `text` was validated by parsing it first."""
    tokens = _tokenize(text)
    top = _top_level(tokens)
    starts = [
        i
        for i, token in enumerate(tokens[:-1])
        if top[i]
        and token.token_type == TokenType.WHEN
        and tokens[i + 1].text.upper() in ("MATCHED", "NOT")
    ]
    clauses = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(tokens)
        then = next(
            i for i in range(start + 2, end) if top[i] and tokens[i].token_type == TokenType.THEN
        )
        condition = None
        if then > start + 3 and tokens[start + 2].token_type == TokenType.AND:
            condition = _text(text, tokens[start + 3], tokens[then - 1])
        action = tokens[then + 1 : end]
        if action[0].token_type == TokenType.DELETE:
            clauses.append(Clause(condition, delete=True))
        elif len(action) == 3 and action[2].token_type == TokenType.STAR:
            clauses.append(Clause(condition, star=True))
        else:
            values = _assignments(text, action[2:], top[then + 3 : end])
            clauses.append(Clause(condition, assignments=tuple(values)))
    return clauses


def parse_when_matched(clauses: Sequence[str]) -> tuple[list[Clause], list[str]]:
    """The clauses of `when_matched` (one string may hold several), in order."""
    text = "\n".join(c.strip() for c in clauses if c.strip())
    if not text:
        return [], []
    statement = f"MERGE INTO t AS {TARGET} USING s AS {SOURCE} ON TRUE\n{text}"
    try:
        merge = sqlglot.parse_one(statement, read=_DIALECT)
    except SqlglotError as exc:
        return [], [f"when_matched: cannot parse {text!r} as {_CLAUSE_FORM} ({_first_line(exc)})"]
    whens = merge.args.get("whens") if isinstance(merge, exp.Merge) else None
    items = list(whens.expressions) if whens is not None else []
    if not items:
        return [], [f"when_matched: {text!r} holds no {_CLAUSE_FORM} clause"]
    problems: list[str] = []
    for number, when in enumerate(items, start=1):
        problems += _check_clause(when, number)
    if problems:
        return [], problems
    try:
        parsed = _slice_clauses(text)
    except (StopIteration, IndexError):
        parsed = []
    if len(parsed) != len(items):
        return [], [f"when_matched: cannot split {text!r} into {_CLAUSE_FORM} clauses"]
    for number, clause in enumerate(parsed[:-1], start=1):
        if clause.condition is None:
            problems.append(
                f"when_matched clause {number} of {len(parsed)} has no AND condition: only "
                "the last WHEN MATCHED clause may omit it (clauses apply in order)"
            )
    return parsed, problems


# ------------------------------------------------------------------------ table layout


@dataclass(frozen=True)
class TableLayout:
    """What `DESCRIBE TABLE EXTENDED` says about a parquet table."""

    columns: list[str]
    partition_cols: list[str] = field(default_factory=list)
    dynamic_overwrite: bool = False
    types: list[str] = field(default_factory=list)  # the columns' types, lowercased

    @property
    def scoped(self) -> bool:
        """Partitioned with dynamic partition overwrite: a batch rewrites only its partitions."""
        return bool(self.partition_cols) and self.dynamic_overwrite

    @classmethod
    def from_describe(cls, rows: Iterable[Sequence[Any]]) -> TableLayout:
        columns: list[str] = []
        types: list[str] = []
        partitions: list[str] = []
        dynamic = False
        section = "columns"
        for row in rows:
            name = str(row[0] or "").strip()
            value = str(row[1] or "") if len(row) > 1 else ""
            if name == "Storage Properties" and "partitionoverwritemode=dynamic" in (
                value.lower().replace(" ", "")
            ):
                dynamic = True
            if name == "# Partition Information":
                section = "partitions"
            elif name.startswith("# col_name"):
                continue
            elif not name or name.startswith("#"):
                section = "other"
            elif section == "columns":
                columns.append(name)
                types.append(value.strip().lower())
            elif section == "partitions":
                partitions.append(name)
        return cls(
            columns=columns, partition_cols=partitions, dynamic_overwrite=dynamic, types=types
        )


def partition_spec(values: Mapping[str, str | None]) -> str:
    """`partition (k = 'v', ...)` for ALTER TABLE ... DROP; NULL values as `null`."""
    parts = [f"{quote(k)} = {'null' if v is None else sql_string(v)}" for k, v in values.items()]
    return "partition (" + ", ".join(parts) + ")"


_DBT_ALIASES = {"dbt_internal_dest": TARGET, "dbt_internal_source": SOURCE}


def _dbt_aliases(predicate: str) -> str:
    """An `incremental_predicates` entry with dbt's merge aliases renamed to target/source."""
    out = []
    position = 0
    for token in _tokenize(predicate):
        alias = _DBT_ALIASES.get(token.text.lower())
        if alias is not None and token.token_type in (TokenType.VAR, TokenType.IDENTIFIER):
            out.append(predicate[position : token.start] + alias)
            position = token.end + 1
    out.append(predicate[position:])
    return "".join(out).strip()


# ---------------------------------------------------------------------------- columns

# names Spark reads as functions without parentheses, never columns
_NILADIC = frozenset(
    {
        "current_date",
        "current_timestamp",
        "current_time",
        "current_user",
        "current_catalog",
        "current_database",
        "current_schema",
        "localtimestamp",
        "localtime",
        "session_user",
        "user",
    }
)


class _Sides:
    """The columns of the two sides of an upsert: `source` (the model's query) and `target`
    (the table; None when not known, then references to it are not checked)."""

    def __init__(self, source: Sequence[str], target: Sequence[str] | None) -> None:
        self.columns = {SOURCE: list(source), TARGET: None if target is None else list(target)}
        self.lower = {
            side: None if names is None else {n.lower() for n in names}
            for side, names in self.columns.items()
        }

    def in_source(self, name: str) -> bool:
        found = self.lower[SOURCE]
        return found is None or name.lower() in found

    def in_target(self, name: str) -> bool:
        found = self.lower[TARGET]
        return found is None or name.lower() in found

    def listing(self, side: str) -> str:
        return ", ".join(self.columns[side] or [])

    def references(self, label: str, text: str) -> list[str]:
        """Problems of the columns a SQL condition or value names: `source.<c>` must be a
        column of the query, `target.<c>` one of the table, a bare `<c>` one of either (a
        struct's field `<c>.<f>` too); another qualifier is neither side."""
        try:
            parsed = sqlglot.parse_one(f"SELECT 1 WHERE {text}", read=_DIALECT)
        except SqlglotError:
            return []  # reported when the text was validated
        if not isinstance(parsed, exp.Expression):
            return []
        problems = []
        for column in _columns(parsed):
            parts = [p.name for p in column.parts]
            head = parts[0].lower()
            written = column.sql(dialect=_DIALECT)
            if head in (SOURCE, TARGET) and len(parts) > 1:
                found = self.in_source if head == SOURCE else self.in_target
                if not found(parts[1]):
                    what = "the model's query" if head == SOURCE else "the table"
                    problems.append(
                        f"{label}: {text!r} names {written}, which is not a column of {what} "
                        f"({head}); its columns are: {self.listing(head)}"
                    )
            elif self.in_source(head) or self.in_target(head) or head in _NILADIC:
                continue  # a column (or struct field) of either side; target unknown: passes
            elif len(parts) > 1:
                problems.append(
                    f"{label}: {text!r} names {written}: {parts[0]!r} is neither {SOURCE} (the "
                    f"model's query) nor {TARGET} (the table); write {SOURCE}.<column> or "
                    f"{TARGET}.<column>"
                )
            else:
                problems.append(
                    f"{label}: {text!r} names {written}, which is a column of neither the "
                    f"model's query ({SOURCE}: {self.listing(SOURCE)}) nor the table "
                    f"({TARGET}: {self.listing(TARGET)})"
                )
        return problems


# ------------------------------------------------------------------------------ upsert


@dataclass(frozen=True)
class ParquetUpsert:
    """The statements of one parquet batch (see UpsertSpec.parquet)."""

    stage_select: str
    overwrite: str
    emptied_partitions: str | None
    changed: str | None = None  # finds one changed row in the stage; none: not rewritten

    def as_dict(self) -> dict[str, Any]:
        return {
            "stage_select": self.stage_select,
            "overwrite": self.overwrite,
            "emptied_partitions": self.emptied_partitions,
        }


@dataclass(frozen=True)
class UpsertSpec:
    """A model's unique key, `when_matched` and `merge_filter`, validated."""

    model: str
    keys: tuple[Key, ...]
    clauses: tuple[Clause, ...]
    when_matched: str  # the clauses as written (tokens rendered), for MERGE
    merge_filter: str | None
    # each filter as written (tokens rendered), with the config key it came from
    filters: tuple[tuple[str, str], ...] = ()

    @classmethod
    def build(
        cls,
        cfg: ModelConfig,
        tokens: Mapping[str, str] | None = None,
        incremental_predicates: Sequence[str] = (),
    ) -> UpsertSpec:
        """Validate; every problem is reported at once. `tokens`: time-token values to
        substitute in `when_matched` and `merge_filter` (e.g. `@start_ds`). dbt's
        `incremental_predicates` (aliases DBT_INTERNAL_DEST / DBT_INTERNAL_SOURCE) are ANDed
        to `merge_filter`."""
        values = dict(tokens or {})
        keys, problems = parse_keys(cfg.unique_key)
        if not cfg.unique_key:
            problems.append("unique_key: required (a column, a list of columns or expressions)")
        when_matched = [render(c, values) for c in cfg.when_matched]
        clauses, clause_problems = parse_when_matched(when_matched)
        problems += clause_problems
        filters = [cfg.merge_filter] if cfg.merge_filter else []
        filters += [_dbt_aliases(p) for p in incremental_predicates if p.strip()]
        rendered = [render(f, values) for f in filters]
        labels = ["merge_filter"] * bool(cfg.merge_filter)
        labels += ["incremental_predicates"] * (len(rendered) - len(labels))
        for text in rendered:
            try:
                sqlglot.parse_one(f"SELECT 1 WHERE {text}", read=_DIALECT)
            except SqlglotError as exc:
                problems.append(
                    f"merge_filter: {text!r} is not a SQL predicate ({_first_line(exc)})"
                )
        if problems:
            raise _config_error(cfg.model, problems)
        merge_filter = rendered[0] if len(rendered) == 1 else None
        if len(rendered) > 1:
            merge_filter = " and ".join(f"({f})" for f in rendered)
        return cls(
            model=cfg.model,
            keys=tuple(keys),
            clauses=tuple(clauses),
            when_matched="\n".join(c.strip() for c in when_matched if c.strip()),
            merge_filter=merge_filter,
            filters=tuple(zip(labels, rendered, strict=True)),
        )

    # --- columns ---

    def column_problems(self, source: Sequence[str], target: Sequence[str] | None) -> list[str]:
        """Every column the key, `merge_filter` and `when_matched` name, checked against the
        query's columns (`source`) and the table's (`target`; None when unknown: not
        checked). Problems, as lines of a config error."""
        sides = _Sides(source, target)
        problems = []
        for key in self.keys:
            missing = [
                c.sql(dialect=_DIALECT)
                for c in _columns(key.expression)
                if not sides.in_source(c.parts[0].name)
            ]
            if not missing:
                continue
            what = "is" if missing == [key.text] else f"names {', '.join(missing)}, which is"
            problems.append(
                f"unique_key: {key.text!r} {what} not a column of the model's query; its "
                f"columns are: {sides.listing(SOURCE)}"
            )
        for label, text in self.filters:
            problems += sides.references(label, text)
        for number, clause in enumerate(self.clauses, start=1):
            label = f"when_matched clause {number}"
            if clause.condition is not None:
                problems += sides.references(label, clause.condition)
            for column, value in clause.assignments:
                if not sides.in_target(column):
                    problems.append(
                        f"{label}: UPDATE SET {column} = ...: {column!r} is not a column of "
                        f"the table ({TARGET}); its columns are: {sides.listing(TARGET)}"
                    )
                problems += sides.references(label, value)
        return problems

    def names_table(self, source: Sequence[str]) -> bool:
        """Whether the column problems depend on the table's columns: `merge_filter`,
        `incremental_predicates` or `when_matched` name `target.<c>`, assign a column or name
        a column (or qualifier) the query lacks. Checked against a table without columns,
        exactly those references are problems that an unknown table lets pass."""
        return len(self.column_problems(source, [])) > len(self.column_problems(source, None))

    # --- pieces ---

    def key_sql(self, alias: str | None = None) -> list[str]:
        return [k.sql(alias) for k in self.keys]

    def match_condition(self, with_filter: bool = True) -> str:
        """The MERGE's ON clause: `=` on every key part (NULL never matches), AND merge_filter."""
        pairs = zip(self.key_sql(TARGET), self.key_sql(SOURCE), strict=True)
        condition = " and ".join(f"{t} = {s}" for t, s in pairs)
        if with_filter and self.merge_filter:
            condition += f" and ({self.merge_filter})"
        return condition

    def checked_source(self, sql: str, flag_column: str | None = None) -> str:
        """The batch's rows, failing the statement if a (non-NULL) key appears twice."""
        unqualified = self.key_sql()
        in_row = self.key_sql(_ROW)
        names = ", ".join(unqualified)
        example = ", ".join(f"coalesce(cast({k} as string), 'NULL')" for k in in_row)
        example_sql = example if len(in_row) == 1 else f"concat_ws(', ', {example})"
        prefix = sql_string(
            f"Model '{self.model}' (incremental_by_unique_key): duplicate unique_key in one "
            f"batch: ({names}) = ("
        )
        suffix = sql_string(
            " rows. Each key may appear at most once per batch; deduplicate the model's query "
            "(the table was not changed)."
        )
        message = (
            f"concat({prefix}, {example_sql}, ') appears in ', cast({_COUNT} as string), {suffix})"
        )
        keyed = " and ".join(f"{k} is not null" for k in in_row)
        extra = f", true as {flag_column}" if flag_column else ""
        return (
            f"select {_ROW}.*{extra} from (\n"
            f"  select struct(vulcan_src.*) as {_ROW}, "
            f"count(*) over (partition by {names}) as {_COUNT}\n"
            f"  from (\n{sql}\n  ) as vulcan_src\n"
            f") as vulcan_checked\n"
            f"where case when {keyed} and {_COUNT} > 1 then raise_error({message}) "
            "else true end"
        )

    # --- delta / iceberg ---

    def merge_statement(
        self, relation: str, sql: str, compare: Sequence[str] = (), whole: bool = False
    ) -> str:
        """One MERGE for the batch (delta, iceberg). `compare` (the table's columns), without
        when_matched: the batch's rows equal, column by column (`<=>`), to the row their key
        matches are left out by an anti join on the MERGE's own condition; a time range's
        batch (`whole` false) against the table's rows whose key it has (a semi join first:
        no shuffle of the whole table), the whole query's batch against the table."""
        matched = self.when_matched or "when matched then update set *"
        checked = self.checked_source(sql)
        source = checked
        if compare and not self.when_matched:
            match = self.match_condition()
            table = (
                relation
                if whole
                else (
                    f"(\nselect {TARGET}.* from {relation} as {TARGET}\n"
                    f"left semi join (\n{sql}\n) as {SOURCE}\n"
                    f"on {match}\n)"
                )
            )
            source = (
                f"select {SOURCE}.* from (\n{checked}\n) as {SOURCE}\n"
                f"left anti join {table} as {TARGET}\n"
                f"on {match}\n  and {_same(compare)}"
            )
        return (
            f"merge into {relation} as {TARGET}\n"
            f"using (\n{source}\n) as {SOURCE}\n"
            f"on {self.match_condition()}\n"
            f"{matched}\n"
            "when not matched then insert *"
        )

    # --- parquet ---

    def _assigned(self, clause: Clause, layout: TableLayout) -> dict[str, str]:
        by_lower = {c.lower(): c for c in layout.columns}
        out: dict[str, str] = {}
        unknown = []
        for column, value in clause.assignments:
            if column.lower() not in by_lower:
                unknown.append(column)
            out[column.lower()] = value
        if unknown:
            raise _config_error(
                self.model,
                [
                    f"when_matched: {', '.join(unknown)} not a column of the table; "
                    f"columns: {', '.join(layout.columns)}"
                ],
            )
        return out

    def _column(self, column: str, assigned: list[dict[str, str]]) -> str:
        name = quote(column)
        branches = [
            f"when {SOURCE}.{_IN_SOURCE} is null then {TARGET}.{name}",
            f"when {TARGET}.{_IN_TARGET} is null then {SOURCE}.{name}",
        ]
        if not self.clauses:
            return f"case {' '.join(branches)} else {SOURCE}.{name} end as {name}"
        for clause, values in zip(self.clauses, assigned, strict=True):
            if clause.delete:
                value = "null"  # the row is filtered out
            elif clause.star:
                value = f"{SOURCE}.{name}"
            else:
                value = values.get(column.lower(), f"{TARGET}.{name}")
            branches.append(f"when {clause.condition or 'true'} then {value}")
        return f"case {' '.join(branches)} else {TARGET}.{name} end as {name}"

    def _merged_select(
        self, layout: TableLayout, target_sql: str, source_sql: str, compare: Sequence[str] = ()
    ) -> str:
        assigned = [self._assigned(c, layout) for c in self.clauses]
        columns = [self._column(c, assigned) for c in layout.columns]
        if layout.scoped:
            columns.append(f"false as {MARKER}")
        if compare:
            same = _same(compare)
            columns.append(
                f"{SOURCE}.{_IN_SOURCE} is not null and "
                f"({TARGET}.{_IN_TARGET} is null or not ({same})) as {CHANGED}"
            )
        listed = ",\n  ".join(columns)
        sql = (
            f"select\n  {listed}\n"
            f"from {target_sql} as {TARGET}\n"
            f"full outer join {source_sql} as {SOURCE}\n"
            f"on {self.match_condition()}"
        )
        if any(c.delete for c in self.clauses):
            deleting = " ".join(
                f"when {c.condition or 'true'} then {'true' if c.delete else 'false'}"
                for c in self.clauses
            )
            sql += (
                f"\nwhere not coalesce({SOURCE}.{_IN_SOURCE} and {TARGET}.{_IN_TARGET} and "
                f"(case {deleting} else false end), false)"
            )
        return sql

    def parquet(
        self, relation: str, stage: str, sql: str, layout: TableLayout, compare: Sequence[str] = ()
    ) -> ParquetUpsert:
        """A batch on a parquet table: stage = (table rows in scope) merged with the batch,
        then INSERT OVERWRITE from the stage. Partitioned with dynamic overwrite: the scope is
        the partitions of the batch and of the rows its keys match; partitions left with no
        rows are listed by `emptied_partitions` (to drop). Otherwise the whole table.
        `compare` (the table's columns), without when_matched: the stage flags the batch rows
        that are new or differ from their table row (`<=>`), and `changed` finds one (none:
        the table is not rewritten)."""
        columns = ", ".join(quote(c) for c in layout.columns)
        compare = () if self.when_matched else compare
        changed = f"select 1 from {stage} where {CHANGED} limit 1" if compare else None
        if not layout.scoped:
            select = self._merged_select(
                layout,
                f"(select *, true as {_IN_TARGET} from {relation})",
                f"(\n{self.checked_source(sql, _IN_SOURCE)}\n)",
                compare,
            )
            overwrite = f"insert overwrite table {relation} by name select {columns} from {stage}"
            return ParquetUpsert(select, overwrite, None, changed)
        parts = [quote(p) for p in layout.partition_cols]
        in_scope = " and ".join(f"{TARGET}.{p} <=> vulcan_scope.{p}" for p in parts)
        target_sql = (
            f"(select {TARGET}.*, true as {_IN_TARGET} from {relation} as {TARGET} "
            f"left semi join vulcan_scope on {in_scope})"
        )
        markers = ", ".join(
            f"vulcan_scope.{quote(c)}"
            if c.lower() in {p.lower() for p in layout.partition_cols}
            else "null"
            for c in layout.columns
        )
        select = (
            f"with vulcan_source as (\n{self.checked_source(sql, _IN_SOURCE)}\n),\n"
            "vulcan_scope as (\n"
            f"  select {', '.join(parts)} from vulcan_source\n"
            "  union\n"
            f"  select {', '.join(f'{TARGET}.{p}' for p in parts)} from {relation} as {TARGET}\n"
            f"  left semi join vulcan_source as {SOURCE} on {self.match_condition(False)}\n"
            ")\n"
            f"{self._merged_select(layout, target_sql, 'vulcan_source', compare)}\n"
            f"union all\nselect {markers}, true as {MARKER}"
            f"{f', false as {CHANGED}' if compare else ''} from vulcan_scope"
        )
        overwrite = (
            f"insert overwrite table {relation} by name select {columns} from {stage} "
            f"where not {MARKER}"
        )
        as_json = ", ".join(
            f"{sql_string(p)}, cast({q} as string)"
            for p, q in zip(layout.partition_cols, parts, strict=True)
        )
        emptied = (
            f"select to_json(named_struct({as_json})) as vulcan_partition from {stage} "
            f"group by {', '.join(parts)} having bool_and({MARKER})"
        )
        return ParquetUpsert(select, overwrite, emptied, changed)


def drop_partitions_sql(relation: str, partition_cols: Sequence[str], rows: Iterable[Any]) -> str:
    """ALTER TABLE ... DROP of the partitions `emptied_partitions` returned (JSON rows)."""
    specs = []
    for row in rows:
        values = json.loads(str(row[0]))
        specs.append(partition_spec({c: values.get(c) for c in partition_cols}))
    if not specs:
        return ""
    return f"alter table {relation} drop if exists {', '.join(specs)}"
