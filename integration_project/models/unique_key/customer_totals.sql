{#- INCREMENTAL_BY_UNIQUE_KEY (Orders360 vulcan_demo.incremental_by_unique_key): one row per
    customer with their order totals. Each batch (30 days) upserts the customers who ordered in
    its days, with totals over all their orders up to the batch's end, plus the customers who
    have not ordered yet; a customer seen in an earlier batch is updated, never duplicated. -#}
{{ config(
    materialized='incremental_by_unique_key',
    unique_key='customer_id',
    batch_size=30,
    meta={
        'start': '2025-01-01',
        'cron': '@daily',
        'grains': ['customer_id'],
    },
) }}

with ordered_in_batch as (
  select distinct customer_id from {{ ref('orders') }}
  where order_date between @start_date and @end_date
),

ordered_by_batch_end as (
  select distinct customer_id from {{ ref('orders') }}
  where order_date <= @end_date
)

select
  c.customer_id,
  c.name as customer_name,
  c.email,
  count(distinct o.order_id) as total_orders,
  cast(coalesce(sum(oi.quantity * oi.unit_price), 0) as decimal(12, 2)) as total_spent,
  max(o.order_date) as last_order_date
from {{ ref('customers') }} as c
left join ordered_in_batch as b on b.customer_id = c.customer_id
left join ordered_by_batch_end as e on e.customer_id = c.customer_id
left join {{ ref('orders') }} as o
  on o.customer_id = c.customer_id and o.order_date <= @end_date
left join {{ ref('order_items') }} as oi on oi.order_id = o.order_id
where b.customer_id is not null or e.customer_id is null
group by c.customer_id, c.name, c.email
