{#- The spec's "Processing source table with historical data": SCD type 2 by column over a
    daily snapshot table, one day per batch, in order; a change takes its `ds` as valid_from
    (the very first rows start in 1970). -#}
{{ config(
    materialized='scd_type_2_by_column',
    unique_key='id',
    batch_size=1,
    meta={
        'columns': ['some_value'],
        'updated_at_name': 'ds',
        'start': '2025-01-01',
        'end': '2025-01-04',
        'cron': '@daily',
        'disable_restatement': false,
    },
) }}

select id, some_value, ds
from {{ ref('daily_snapshots') }}
where ds between @start_ds and @end_ds
