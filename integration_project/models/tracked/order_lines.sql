{#- TRACKED (OndatraSQL's kind): an order and its line items are one entity. A build from
    nothing holds every order; an incremental run mirrors the orders of its window (the
    execution time's month, lookback 1 month back) group by group: an order whose lines change is
    replaced as a whole, a new order inserted, an order gone from the query deleted, and the
    earlier orders, outside the window (time_column + lookback), are kept as they are. -#}
{{ config(
    materialized='tracked',
    lookback=1,
    meta={
        'group_key': 'order_id',
        'time_column': 'order_date',
        'interval_unit': 'month',
    },
) }}

select o.order_id, o.order_date, i.order_item_id, i.product_id, i.quantity, i.unit_price
from {{ ref('orders') }} as o
join {{ ref('order_items') }} as i on i.order_id = o.order_id
where o.order_date >= @start_date
