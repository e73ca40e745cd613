{#- INCREMENTAL_BY_TIME_RANGE (Orders360 sales.daily_sales): one row per day. Each run fills
    the missing days since `start`; the WHERE clause reads only the batch's days, and the
    automatic output filter on `time_column` keeps whatever the query returns inside them. -#}
{{ config(
    materialized='incremental_by_time_range',
    meta={
        'time_column': 'order_date',
        'start': '2025-01-01',
        'cron': '@daily',
        'grains': ['order_date'],
    },
) }}

select
  cast(order_date as timestamp) as order_date,
  cast(count(order_id) as int) as total_orders,
  cast(sum(total_amount) as decimal(12, 2)) as total_revenue,
  cast(max(order_id) as string) as last_order_id
from {{ ref('orders') }}
where order_date between @start_ds and @end_ds
group by order_date
