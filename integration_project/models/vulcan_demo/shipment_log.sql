{#- INCREMENTAL_UNMANAGED (Orders360 vulcan_demo.incremental_unmanaged): an append-only
    shipment event log. Each run appends what the query returns: here the shipments newer
    than the newest one already logged. No dedupe, no batches. -#}
{{ config(
    materialized='incremental_unmanaged',
    meta={
        'grains': ['shipment_id'],
    },
) }}

select
  s.shipment_id,
  s.order_id,
  s.shipped_date,
  s.carrier,
  o.customer_id,
  c.name as customer_name,
  o.order_date,
  datediff(s.shipped_date, o.order_date) as days_to_ship,
  @execution_dt as shipment_event_timestamp
from {{ ref('shipments') }} as s
join {{ ref('orders') }} as o on s.order_id = o.order_id
join {{ ref('customers') }} as c on o.customer_id = c.customer_id
{% if is_incremental() %}
where s.shipped_date > (select coalesce(max(shipped_date), date'1970-01-01') from {{ this }})
{% endif %}
