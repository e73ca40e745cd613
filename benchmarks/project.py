"""The dbt project and profile the benchmarks run, written into a work directory.

Every system computes the same daily aggregate per user from `bench_src.events`, partitioned
by day, as parquet (P1, P2, P3); `p5_hourly` is an hourly time-range model (P5); the SCD type 2
models and the dbt snapshot read `bench_src.customers` and write Delta tables.
Models land in the schema named by the var `bench_schema` (one schema per repetition).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from benchmarks.generate import SOURCE_SCHEMA, START

PROJECT = "bench"

_AGGREGATE = """
select user_id, count(*) as events, sum(amount_cents) as amount_cents,
       max(event_ts) as last_event_ts, event_date
from {{{{ source('bench', 'events') }}}}
where {where}
group by event_date, user_id
"""

_VAR_RANGE = "event_date >= '{{ var(\"bench_from\") }}' and event_date < '{{ var(\"bench_to\") }}'"

MODELS: dict[str, str] = {
    # dbt-vulcan: one batch per contiguous missing range
    "daily_vulcan": (
        "{{ config(materialized='incremental_by_time_range', time_column='event_date',"
        f" start='{START}', cron='@daily', lookback=0, file_format='parquet') }}}}\n"
        + _AGGREGATE.format(where="event_date between @start_ds and @end_ds")
    ),
    # the same without `lookback`: dbt-core's microbatch default (lookback 1) reaches the
    # model's config, so each run also recomputes the last processed day (see the report)
    "daily_vulcan_default": (
        "{{ config(materialized='incremental_by_time_range', time_column='event_date',"
        f" start='{START}', cron='@daily', file_format='parquet') }}}}\n"
        + _AGGREGATE.format(where="event_date between @start_ds and @end_ds")
    ),
    # dbt-vulcan with batch_size 30
    "daily_vulcan_b30": (
        "{{ config(materialized='incremental_by_time_range', time_column='event_date',"
        f" start='{START}', cron='@daily', batch_size=30, lookback=0, file_format='parquet') }}}}\n"
        + _AGGREGATE.format(where="event_date between @start_ds and @end_ds")
    ),
    # dbt-spark's microbatch: dbt-core filters the source on its event_time per batch
    "daily_microbatch": (
        "{{ config(materialized='incremental', incremental_strategy='microbatch',"
        f" event_time='event_date', begin='{START}', batch_size='day', lookback=0,"
        " partition_by=['event_date'], file_format='parquet') }}\n"
        + _AGGREGATE.format(where="true")
    ),
    # dbt-spark's insert_overwrite (dynamic partitions); the range comes from vars
    "daily_insert_overwrite": (
        "{{ config(materialized='incremental', incremental_strategy='insert_overwrite',"
        " partition_by=['event_date'], file_format='parquet') }}\n"
        + _AGGREGATE.format(where=_VAR_RANGE)
    ),
    # FULL: dbt's table materialization, rebuilt from scratch
    "daily_full": (
        "{{ config(materialized='table', partition_by=['event_date'], file_format='parquet') }}\n"
        + _AGGREGATE.format(where=_VAR_RANGE)
    ),
    # P5: an hourly time-range model (and the same without `lookback`, below)
    "p5_hourly": (
        "{{ config(materialized='incremental_by_time_range', time_column='event_hour',"
        f" start='{START}', cron='@hourly', lookback=0, file_format='parquet') }}}}\n"
        "select date_trunc('hour', event_ts) as event_hour, count(*) as events,\n"
        "       sum(amount_cents) as amount_cents\n"
        "from {{ source('bench', 'events') }}\n"
        "where event_date between @start_ds and @end_ds\n"
        "  and event_ts between @start_ts and @end_ts\n"
        "group by 1\n"
    ),
    # SCD type 2 on Delta
    "scd_by_column": (
        "{{ config(materialized='scd_type_2_by_column', unique_key='id',"
        " columns=['name', 'price_cents'], file_format='delta') }}\n"
        "select id, name, price_cents, updated_at from {{ source('bench', 'customers') }}\n"
    ),
    "scd_by_time": (
        "{{ config(materialized='scd_type_2_by_time', unique_key='id',"
        " updated_at_name='updated_at', file_format='delta') }}\n"
        "select id, name, price_cents, updated_at from {{ source('bench', 'customers') }}\n"
    ),
}

MODELS["p5_hourly_default"] = MODELS["p5_hourly"].replace(" lookback=0,", "")

SNAPSHOT = """{% snapshot scd_snapshot %}
{{ config(schema=var('bench_schema'), unique_key='id', strategy='check',
          check_cols=['name', 'price_cents'], file_format='delta') }}
select id, name, price_cents, updated_at from {{ source('bench', 'customers') }}
{% endsnapshot %}
"""

# the model's schema is exactly `bench_schema` (dbt would prefix the target's schema)
SCHEMA_MACRO = """{% macro generate_schema_name(custom_schema_name, node) -%}
  {{ (custom_schema_name or target.schema) | trim }}
{%- endmacro %}
"""


def write_project(
    folder: Path,
    server_side_parameters: dict[str, str],
    state_format: str,
    adapter_type: str = "vulcan",
    package: Path | None = None,
    profile_extra: dict[str, Any] | None = None,
    connection: dict[str, Any] | None = None,
    models: dict[str, str] | None = None,
    snapshots: dict[str, str] | None = None,
    extra_vars: dict[str, Any] | None = None,
) -> None:
    """Writes dbt_project.yml, profiles.yml, the models, the snapshot and the sources.
    `adapter_type` "vulcan" is the adapter; "spark" is stock dbt-spark with the package.
    `package`: the dbt package to install (default this repository; a checkout from before
    the package existed has none: pass its root, and no packages.yml is written).
    `connection`: the profile's connection keys (e.g. `method: thrift`, host, port, user);
    default an embedded session with `server_side_parameters`. `models` / `snapshots`: name ->
    SQL (default MODELS and the check snapshot); `extra_vars`: more of the project's vars."""
    (folder / "models").mkdir(parents=True, exist_ok=True)
    (folder / "snapshots").mkdir(exist_ok=True)
    (folder / "macros").mkdir(exist_ok=True)
    project: dict[str, Any] = {
        "name": PROJECT,
        "profile": PROJECT,
        "version": "1.0",
        "config-version": 2,
        "flags": {"send_anonymous_usage_stats": False, "partial_parse": True},
        "models": {PROJECT: {"+schema": "{{ var('bench_schema', 'bench') }}"}},
        "vars": {"bench_from": str(START), "bench_to": str(START), **(extra_vars or {})},
    }
    profile = {
        PROJECT: {
            "target": "bench",
            "outputs": {
                "bench": {
                    "type": adapter_type,
                    **(
                        connection
                        or {
                            "method": "session",
                            "host": "localhost",
                            "server_side_parameters": server_side_parameters,
                        }
                    ),
                    "schema": "bench",
                    "threads": 1,
                    **({"state_file_format": state_format} if adapter_type == "vulcan" else {}),
                    **(profile_extra or {}),
                }
            },
        }
    }
    sources = {
        "version": 2,
        "sources": [
            {
                "name": "bench",
                "schema": SOURCE_SCHEMA,
                "tables": [
                    {"name": "events", "config": {"event_time": "event_date"}},
                    {"name": "customers"},
                ],
            }
        ],
    }
    (folder / "dbt_project.yml").write_text(yaml.safe_dump(project, sort_keys=False))
    (folder / "profiles.yml").write_text(yaml.safe_dump(profile, sort_keys=False))
    (folder / "models" / "sources.yml").write_text(yaml.safe_dump(sources, sort_keys=False))
    for name, sql in (MODELS if models is None else models).items():
        path = folder / "models" / f"{name}.sql"  # a name may hold a folder ("jobs/stg_0_0")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(sql)
    for name, sql in ({"scd_snapshot": SNAPSHOT} if snapshots is None else snapshots).items():
        (folder / "snapshots" / f"{name}.sql").write_text(sql)
    (folder / "macros" / "generate_schema_name.sql").write_text(SCHEMA_MACRO)
    # the kinds' macros: this repository as a dbt package
    repo = package or Path(__file__).resolve().parent.parent
    if (repo / "dbt_project.yml").exists():
        (folder / "packages.yml").write_text(yaml.safe_dump({"packages": [{"local": str(repo)}]}))
