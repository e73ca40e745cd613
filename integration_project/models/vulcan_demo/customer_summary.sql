{#- FULL -> dbt's `table` (Orders360 vulcan_demo.full_model): rebuilt from scratch on every
    run. Reads the EMBEDDED model unique_customers. -#}
{{ config(
    materialized='table',
    meta={
        'grains': ['customer_id'],
    },
) }}

select
  c.customer_id,
  c.customer_name,
  c.email,
  count(distinct o.order_id) as total_orders,
  cast(coalesce(sum(oi.quantity * oi.unit_price), 0) as decimal(12, 2)) as total_spent,
  cast(
    coalesce(sum(oi.quantity * oi.unit_price), 0) / nullif(count(distinct o.order_id), 0)
    as decimal(12, 2)
  ) as avg_order_value
from {{ ref('unique_customers') }} as c
left join {{ ref('orders') }} as o on c.customer_id = o.customer_id
left join {{ ref('order_items') }} as oi on o.order_id = oi.order_id
group by c.customer_id, c.customer_name, c.email
