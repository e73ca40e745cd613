{#- Daily revenue: 4 days a batch, and the last 2 processed days recomputed on each run
    (lookback) to pick up late events. `--vars '{fail_day: ...}'` makes the batch holding
    that day fail, to show a failed backfill being resumed. -#}
{{ config(
    materialized='incremental_by_time_range',
    time_column='event_date',
    start='2025-01-01',
    cron='@daily',
    batch_size=4,
    lookback=2,
) }}

select
  event_date,
  count(*) as events,
  sum(case when event_date = date'{{ var("fail_day", "1900-01-01") }}'
      then cast(raise_error('injected failure') as int) else amount end) as revenue
from {{ ref('events') }}
where event_date between @start_ds and @end_ds
group by event_date
