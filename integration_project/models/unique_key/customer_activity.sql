{#- INCREMENTAL_BY_UNIQUE_KEY with `when_matched`: each batch counts a customer's orders in its
    own days; on a match the clause adds that count to the stored one and moves the last order
    date, while the first order date keeps its stored value. -#}
{{ config(
    materialized='incremental_by_unique_key',
    unique_key='customer_id',
    batch_size=30,
    meta={
        'when_matched': 'WHEN MATCHED THEN UPDATE SET target.orders = target.orders + source.orders, target.last_order_date = source.last_order_date',
        'start': '2025-01-01',
        'cron': '@daily',
        'grains': ['customer_id'],
    },
) }}

select
  customer_id,
  min(order_date) as first_order_date,
  max(order_date) as last_order_date,
  count(*) as orders
from {{ ref('orders') }}
where order_date between @start_date and @end_date
group by customer_id
