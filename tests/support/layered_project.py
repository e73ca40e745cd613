"""A project of four layers of daily `incremental_by_time_range` models, the shape of a team's
daily job (and of the benchmarks' job): 5 slices of an event source (seeds here, one per
slice), 10 staging models (half of a slice each, row by row), 10 marts (the daily totals per
user of two staging models), 5 tops (the daily totals of two marts). Every model filters its
inputs with `@start_ds` / `@end_ds` and waits for its parents."""

from __future__ import annotations

from datetime import date, timedelta

SOURCES = 5
STAGING = [(s, half) for s in range(SOURCES) for half in range(2)]  # stg_<s>_<half>
MARTS = 10  # mart_<k>: staging k and k + 1 (mod 10)
TOPS = 5  # top_<t>: marts 2t and 2t + 1

HEAD = (
    "{{{{ config(materialized='incremental_by_time_range', meta={{'time_column': "
    "'event_date', 'start': '{start}', 'cron': '@daily'}}) }}}}\n"
)
WINDOW = "event_date between @start_ds and @end_ds"
COLUMNS = {
    "stg": "event_id, user_id, product_id, amount_cents, event_date",
    "mart": "user_id, event_date, events, amount_cents",
    "top": "event_date, users, events, amount_cents",
}


def staging_names() -> list[str]:
    return [f"stg_{s}_{half}" for s, half in STAGING]


def seeds(start: date, days: int, per_day: int = 12) -> dict[str, str]:
    """One seed per source slice: `src_<s>.csv`, `per_day` events a day over `days` days."""
    out = {}
    for s in range(SOURCES):
        lines = ["event_id,user_id,product_id,amount_cents,event_date"]
        for d in range(days):
            day = start + timedelta(days=d)
            for i in range(per_day):
                event = (d * per_day + i) * SOURCES + s
                lines.append(f"{event},{(i % 4) * SOURCES + s},{i % 3},{100 + event},{day}")
        out[f"src_{s}.csv"] = "\n".join(lines) + "\n"
    return out


def staging_sql(s: int, half: int, start: str, factor: int = 1) -> str:
    amount = "amount_cents" if factor == 1 else f"amount_cents * {factor} as amount_cents"
    columns = COLUMNS["stg"].replace("amount_cents", amount)
    return (
        HEAD.format(start=start)
        + f"select {columns}\nfrom {{{{ ref('src_{s}') }}}}\n"
        + f"where pmod(product_id, 2) = {half} and {WINDOW}\n"
    )


def models(start: str) -> dict[str, str]:
    """The 25 models: file name -> SQL."""
    out: dict[str, str] = {}
    for s, half in STAGING:
        out[f"stg_{s}_{half}.sql"] = staging_sql(s, half, start)
    staging = staging_names()
    for k in range(MARTS):
        a, b = staging[k], staging[(k + 1) % MARTS]
        out[f"mart_{k}.sql"] = (
            HEAD.format(start=start)
            + "select user_id, event_date, count(*) as events, sum(amount_cents) as amount_cents\n"
            f"from (select * from {{{{ ref('{a}') }}}} union all"
            f" select * from {{{{ ref('{b}') }}}}) as s\n"
            f"where {WINDOW}\ngroup by user_id, event_date\n"
        )
    for t in range(TOPS):
        a, b = f"mart_{2 * t}", f"mart_{2 * t + 1}"
        out[f"top_{t}.sql"] = (
            HEAD.format(start=start)
            + "select event_date, count(distinct user_id) as users, sum(events) as events,"
            " sum(amount_cents) as amount_cents\n"
            f"from (select * from {{{{ ref('{a}') }}}} union all"
            f" select * from {{{{ ref('{b}') }}}}) as m\n"
            f"where {WINDOW}\ngroup by event_date\n"
        )
    return out


def below(staging: str) -> list[str]:
    """The models that read staging model `staging`, directly or not."""
    k = staging_names().index(staging)
    marts = sorted({k, (k - 1) % MARTS})
    tops = sorted({m // 2 for m in marts})
    return [f"mart_{m}" for m in marts] + [f"top_{t}" for t in tops]


def checksum_sql(schema: str, name: str) -> str:
    """A model's rows as one (count, hash sum) row."""
    columns = COLUMNS[name.split("_", 1)[0]]
    return f"select count(*), sum(cast(hash({columns}) as bigint)) from {schema}.{name}"
