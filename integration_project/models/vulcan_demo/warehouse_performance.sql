{#- VIEW -> dbt's `view` (Orders360 vulcan_demo.view_model): stores nothing; the query runs
    whenever the view is read. Regions come from the EXTERNAL table `external.regions`
    (a dbt source). -#}
{{ config(
    materialized='view',
    meta={
        'grains': ['warehouse_performance_key'],
    },
) }}
-- the source is loaded by this project's `regions` seed; tell dbt to build that first:
-- depends_on: {{ ref('regions') }}

select
  w.warehouse_id,
  w.name as warehouse_name,
  r.region_name,
  o.order_date,
  concat(cast(w.warehouse_id as string), '_', cast(o.order_date as string))
    as warehouse_performance_key,
  count(distinct o.order_id) as total_transactions,
  sum(oi.quantity * oi.unit_price) as total_sales_amount,
  count(distinct o.customer_id) as unique_customers
from {{ ref('warehouses') }} as w
left join {{ source('external', 'regions') }} as r on w.region_id = r.region_id
left join {{ ref('orders') }} as o on w.warehouse_id = o.warehouse_id
left join {{ ref('order_items') }} as oi on o.order_id = oi.order_id
group by w.warehouse_id, w.name, r.region_name, o.order_date
