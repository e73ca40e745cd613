"""Time macro tokens (``@start_ds`` ...) and output-filter literals for Spark SQL.

Values follow SQLMesh conventions: the batch is ``[start, end_exclusive)`` and every
``end_*`` token is INCLUSIVE, i.e. derived from ``end_exclusive - 1 microsecond``.
Example for the batch ``[2025-01-01, 2025-01-08)``:

=================== ================================================ ===========================
token               value (SQL text)                                 notes
=================== ================================================ ===========================
start_ds            ``'2025-01-01'``                                 quoted date string
end_ds              ``'2025-01-07'``                                 inclusive last day
start_date          ``CAST('2025-01-01' AS DATE)``
end_date            ``CAST('2025-01-07' AS DATE)``                   inclusive last day
start_dt            ``CAST('2025-01-01 00:00:00+00:00' AS TIMESTAMP)``
end_dt              ``CAST('2025-01-07 23:59:59.999999+00:00' AS TIMESTAMP)`` inclusive
start_timestamp     same as start_dt                                 alias
end_timestamp       same as end_dt                                   alias
start_ts            ``'2025-01-01 00:00:00'``                        quoted timestamp string
end_ts              ``'2025-01-07 23:59:59.999999'``                 inclusive
start_epoch         ``1735689600.000000``                            seconds, always 6 decimals
end_epoch           ``1736294399.999999``                            inclusive, 6 decimals
start_millis        ``1735689600000``                                integer milliseconds
end_millis          ``1736294399999``                                inclusive (end ms - 1)
execution_ds        ``'2025-01-08'``                                 execution time's date
execution_date      ``CAST('2025-01-08' AS DATE)``
execution_dt        ``CAST('2025-01-08 05:00:00+00:00' AS TIMESTAMP)``
execution_ts        ``'2025-01-08 05:00:00'``
execution_epoch     ``1736312400.000000``                            6 decimals
execution_millis    ``1736312400000``
=================== ================================================ ===========================

Timestamps show ``.ffffff`` only when microseconds are non-zero.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from decimal import Decimal

from dbt.adapters.vulcan.timeutil import EPOCH, VulcanConfigError, format_ts

__all__ = [
    "TIME_DATA_TYPES",
    "TOKENS",
    "filter_literal",
    "is_day_format",
    "output_filter",
    "render",
    "sorts_as_text",
    "spark_format",
    "time_literal",
    "to_python_format",
    "token_values",
]

TOKENS: tuple[str, ...] = (
    "start_ds",
    "end_ds",
    "start_date",
    "end_date",
    "start_dt",
    "end_dt",
    "start_timestamp",
    "end_timestamp",
    "start_ts",
    "end_ts",
    "start_epoch",
    "end_epoch",
    "start_millis",
    "end_millis",
    "execution_ds",
    "execution_date",
    "execution_dt",
    "execution_ts",
    "execution_epoch",
    "execution_millis",
)

TIME_DATA_TYPES: tuple[str, ...] = (
    "date",
    "timestamp",
    "timestamp_ntz",
    "string",
    "int",
    "bigint",
    "epoch",
    "epoch_millis",
)

_ONE_US = timedelta(microseconds=1)
_DEFAULT_FORMAT = "%Y-%m-%d"
_TIME_DIRECTIVES = set("HIMSfpXcTRrsz")


# ------------------------------------------------------------------ literals


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _date_lit(dt: datetime) -> str:
    return f"CAST('{dt.date().isoformat()}' AS DATE)"


def time_literal(dt: datetime, sql_type: str = "timestamp") -> str:
    """The SQL literal of ``dt`` (naive, UTC) as a DATE, TIMESTAMP or TIMESTAMP_NTZ.

    A TIMESTAMP carries its UTC offset, so it names the same instant whatever the Spark
    session's time zone; a TIMESTAMP_NTZ or DATE is the UTC wall clock.
    """
    if sql_type == "date":
        return _date_lit(dt)
    if sql_type == "timestamp_ntz":
        return f"CAST('{format_ts(dt)}' AS TIMESTAMP_NTZ)"
    return f"CAST('{format_ts(dt)}+00:00' AS TIMESTAMP)"


def _ts_lit(dt: datetime) -> str:
    return time_literal(dt)


def _micros(dt: datetime) -> int:
    return (dt - EPOCH) // _ONE_US


def _epoch_text(dt: datetime) -> str:
    return f"{Decimal(_micros(dt)).scaleb(-6):.6f}"


def _millis(dt: datetime) -> int:
    return _micros(dt) // 1000


def _point_values(prefix: str, dt: datetime) -> dict[str, str]:
    return {
        f"{prefix}_ds": _quote(dt.date().isoformat()),
        f"{prefix}_date": _date_lit(dt),
        f"{prefix}_dt": _ts_lit(dt),
        f"{prefix}_ts": _quote(format_ts(dt)),
        f"{prefix}_epoch": _epoch_text(dt),
        f"{prefix}_millis": str(_millis(dt)),
    }


def token_values(
    start: datetime, end_exclusive: datetime, execution_time: datetime
) -> dict[str, str]:
    """SQL literal text for every token in :data:`TOKENS` (ends inclusive)."""
    end_inclusive = end_exclusive - _ONE_US
    values = {
        **_point_values("start", start),
        **_point_values("end", end_inclusive),
        **_point_values("execution", execution_time),
    }
    values["end_millis"] = str(_millis(end_exclusive) - 1)
    values["start_timestamp"] = values["start_dt"]
    values["end_timestamp"] = values["end_dt"]
    return {token: values[token] for token in TOKENS}


# -------------------------------------------------------------------- render

_TOKEN_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*)")


def _skip_quoted(sql: str, i: int) -> int:
    """Index just past the quoted literal/identifier starting at ``sql[i]``."""
    quote = sql[i]
    j = i + 1
    while j < len(sql):
        ch = sql[j]
        if ch == "\\" and quote != "`":
            j += 2
            continue
        if ch == quote:
            if j + 1 < len(sql) and sql[j + 1] == quote:
                j += 2
                continue
            return j + 1
        j += 1
    return len(sql)


def _skip_comment(sql: str, i: int) -> int:
    """Index just past the comment starting at ``sql[i]`` (or ``i`` if none starts there)."""
    if sql.startswith("--", i):
        newline = sql.find("\n", i)
        return len(sql) if newline < 0 else newline
    if sql.startswith("/*", i):
        close = sql.find("*/", i + 2)
        return len(sql) if close < 0 else close + 2
    return i


def _token_at(sql: str, i: int, values: dict[str, str]) -> tuple[str, int] | None:
    """Replacement text and end index for a known ``@name``/``@{name}`` at ``sql[i]``."""
    match = _TOKEN_RE.match(sql, i + 1)
    if match is None:
        return None
    name = match.group(1) or match.group(2)
    if name not in values:
        return None
    return values[name], match.end()


def render(sql: str, values: dict[str, str]) -> str:
    """Replace ``@name`` / ``@{name}`` tokens found in ``values``.

    Only whole tokens are replaced (``@start_dsx`` is left alone), unknown tokens are kept,
    and quoted strings ('...', "..."), backquoted identifiers and comments are never touched.
    """
    out: list[str] = []
    i = 0
    while i < len(sql):
        ch = sql[i]
        end = _skip_quoted(sql, i) if ch in "'\"`" else _skip_comment(sql, i)
        if end > i:
            out.append(sql[i:end])
            i = end
            continue
        token = _token_at(sql, i, values) if ch == "@" else None
        if token is not None:
            out.append(token[0])
            i = token[1]
            continue
        out.append(ch)
        i += 1
    return "".join(out)


# ------------------------------------------------------------ output filter

_JAVA_PATTERNS: dict[str, str] = {
    "yyyy": "%Y",
    "yy": "%y",
    "MM": "%m",
    "dd": "%d",
    "HH": "%H",
    "mm": "%M",
    "ss": "%S",
    "SSSSSS": "%f",
}


def _bad_format(fmt: str) -> VulcanConfigError:
    allowed = ", ".join(_JAVA_PATTERNS)
    return VulcanConfigError(
        f"format: {fmt!r} is not a supported time format; use Python strftime directives "
        f"(e.g. '%Y-%m-%d') or Spark patterns built from: {allowed}"
    )


def _java_to_python(fmt: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        if ch == "'":
            close = fmt.find("'", i + 1)
            if close < 0:
                raise _bad_format(fmt)
            out.append(fmt[i + 1 : close].replace("%", "%%") or "'")
            i = close + 1
        elif ch.isalpha():
            j = i
            while j < len(fmt) and fmt[j] == ch:
                j += 1
            if fmt[i:j] not in _JAVA_PATTERNS:
                raise _bad_format(fmt)
            out.append(_JAVA_PATTERNS[fmt[i:j]])
            i = j
        else:
            out.append("%%" if ch == "%" else ch)
            i += 1
    return "".join(out)


def to_python_format(fmt: str | None) -> str:
    """Python strftime format from a Python ('%Y-%m-%d') or Spark ('yyyy-MM-dd') format."""
    if fmt is None or not fmt.strip():
        return _DEFAULT_FORMAT
    if "%" in fmt:
        return fmt
    return _java_to_python(fmt)


def is_day_format(py_fmt: str) -> bool:
    """Whether strftime format ``py_fmt`` holds days only (no time of day)."""
    directives = set(re.findall(r"%(.)", py_fmt.replace("%%", "")))
    return not directives & _TIME_DIRECTIVES


def _normalize_type(time_data_type: str) -> str:
    name = time_data_type.strip().lower() if isinstance(time_data_type, str) else ""
    if name not in TIME_DATA_TYPES:
        allowed = ", ".join(TIME_DATA_TYPES)
        raise VulcanConfigError(f"time_data_type: {time_data_type!r} is not one of: {allowed}")
    return name


def filter_literal(value: datetime, time_data_type: str, fmt: str | None = None) -> str:
    """SQL literal for ``value`` typed like the model's time column."""
    kind = _normalize_type(time_data_type)
    if kind == "date":
        return _date_lit(value)
    if kind in ("timestamp", "timestamp_ntz"):
        return time_literal(value, kind)
    if kind == "string":
        return _quote(value.strftime(to_python_format(fmt)))
    if kind == "epoch_millis":
        return str(_millis(value))
    return str(_micros(value) // 1_000_000)


def sorts_as_text(py_fmt: str) -> bool:
    """Whether text in strftime format ``py_fmt`` sorts as the times it means: its fields are
    the leading ones of year, month, day, hour, minute, second, fraction (or year, day of the
    year, ...), in that order."""
    fields = "".join(re.findall(r"%(.)", py_fmt.replace("%%", "")))
    return bool(fields) and ("YmdHMSf".startswith(fields) or "YjHMSf".startswith(fields))


_SPARK_PATTERNS = {
    "Y": "yyyy",
    "y": "yy",
    "m": "MM",
    "d": "dd",
    "H": "HH",
    "M": "mm",
    "S": "ss",
    "f": "SSSSSS",
    "j": "DDD",
    "%": "%",
}


def spark_format(py_fmt: str) -> str:
    """A Spark datetime pattern from a strftime format (literal letters quoted)."""
    out: list[str] = []
    for m in re.finditer(r"%(.)|([A-Za-z]+)|('+)|([^%A-Za-z']+)", py_fmt):
        if m.group(1):
            out.append(_SPARK_PATTERNS[m.group(1)])
        elif m.group(2):
            out.append(f"'{m.group(2)}'")
        elif m.group(3):
            out.append("''" * len(m.group(3)))
        else:
            out.append(m.group(4))
    return "".join(out)


def _is_day_grained(kind: str, fmt: str | None) -> bool:
    return kind == "date" or (kind == "string" and is_day_format(to_python_format(fmt)))


def output_filter(
    column_sql: str,
    start: datetime,
    end_exclusive: datetime,
    time_data_type: str,
    fmt: str | None = None,
) -> str:
    """Predicate keeping rows of ``column_sql`` inside ``[start, end_exclusive)``.

    Day-grained columns (date, or string with a date-only format) use ``>= first day AND
    < the day after the last``: the same days, and every time of them if the column now
    holds times (an upstream type change the log has not seen); timestamp, time-formatted
    string and epoch columns use ``>= start AND < end``. A string column whose format does
    not sort as text: a date-only format is the IN list of the range's days as text; another
    is parsed with it (zone-free) and compared as TIMESTAMP_NTZ.
    """
    kind = _normalize_type(time_data_type)
    day = _is_day_grained(kind, fmt)
    py_fmt = to_python_format(fmt)
    sorts = kind != "string" or sorts_as_text(py_fmt)
    if not sorts and not day:
        column_sql = f"to_timestamp_ntz({column_sql}, {_quote(spark_format(py_fmt))})"
        kind = "timestamp_ntz"
    if day:
        first = datetime(start.year, start.month, start.day)
        last_day = (end_exclusive - _ONE_US).date()
        last = datetime(last_day.year, last_day.month, last_day.day)
        if not sorts:
            texts = [
                filter_literal(first + timedelta(days=n), kind, fmt)
                for n in range((last - first).days + 1)
            ]
            return f"{column_sql} IN ({', '.join(texts)})"
        low = filter_literal(first, kind, fmt)
        high = filter_literal(last + timedelta(days=1), kind, fmt)
        return f"{column_sql} >= {low} AND {column_sql} < {high}"
    low = filter_literal(start, kind, fmt)
    high = filter_literal(end_exclusive, kind, fmt)
    return f"{column_sql} >= {low} AND {column_sql} < {high}"
