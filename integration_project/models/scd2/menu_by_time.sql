{#- The spec's "SCD Type 2 by time in action" (invalidate_hard_deletes: true) in one dbt build.
    Each of the spec's three runs is one batch of 24 hourly intervals over the menu snapshots,
    processed in order:
      [2019-12-31 11:00, 2020-01-01 11:00)  first snapshot: the first load, from 1970
      [2020-01-01 11:00, 2020-01-02 11:00)  second: Cheeseburger is gone, seen at the batch's
                                            end, 2020-01-02 11:00 (the spec's run time)
      [2020-01-02 11:00, 2020-01-03 11:00)  third: new versions from their updated_at
    A batch followed by later batches of the same run is seen at its end; the run's last
    batch at the execution time. -#}
{{ config(
    materialized='scd_type_2_by_time',
    unique_key='id',
    batch_size=24,
    meta={
        'invalidate_hard_deletes': true,
        'start': '2019-12-31 11:00:00',
        'end': '2020-01-03 11:00:00',
        'cron': '@hourly',
        'disable_restatement': false,
    },
) }}

select id, name, price, updated_at
from {{ ref('menu_snapshots') }}
where snapshot_at between @start_dt and @end_dt
