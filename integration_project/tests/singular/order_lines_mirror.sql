{#- The tracked model mirrors the line items of every order up to the pinned execution time
    2025-04-30 06:00: the first build, from nothing, holds every group of the query; the second
    syncs its window (March and April) and keeps the earlier groups as they are. Rows missing or
    unexpected, and groups whose rows carry more than one content hash, are failures. -#}
with source as (
  select o.order_id, o.order_date, i.order_item_id, i.product_id, i.quantity, i.unit_price
  from {{ ref('orders') }} as o
  join {{ ref('order_items') }} as i on i.order_id = o.order_id
  where o.order_date <= '2025-04-30'
),

stored as (
  select order_id, order_date, order_item_id, product_id, quantity, unit_price from {{ ref('order_lines') }}
)

select 'missing' as problem, cast(order_item_id as string) as detail from (select * from source except all select * from stored)
union all
select 'unexpected', cast(order_item_id as string) from (select * from stored except all select * from source)
union all
select 'several hashes', cast(order_id as string) from {{ ref('order_lines') }} group by order_id having count(distinct _content_hash) > 1
