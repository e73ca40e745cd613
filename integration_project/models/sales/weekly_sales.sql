{#- INCREMENTAL_BY_TIME_RANGE over weeks (Orders360 sales.weekly_sales): intervals are Monday
    weeks (cron at midnight on Mondays); a week is processed once it is complete, 4 weeks per
    batch. `order_date` is the week's Monday. -#}
{{ config(
    materialized='incremental_by_time_range',
    batch_size=4,
    meta={
        'time_column': 'order_date',
        'start': '2025-01-01',
        'cron': '0 0 * * 1',
        'grains': ['order_date'],
    },
) }}

select
  date_trunc('WEEK', order_date) as order_date,
  cast(sum(total_orders) as int) as total_orders,
  cast(sum(total_revenue) as decimal(12, 2)) as total_revenue,
  cast(sum(total_revenue) / sum(total_orders) as decimal(12, 2)) as avg_order_value
from {{ ref('daily_sales') }}
where order_date between @start_dt and @end_dt
group by date_trunc('WEEK', order_date)
