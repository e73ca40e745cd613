{#- EMBEDDED -> dbt's `ephemeral` (Orders360 vulcan_demo.unique_customers): no table or view;
    its query is inlined as a CTE into every model that refs it. -#}
{{ config(
    materialized='ephemeral',
    meta={
        'grains': ['customer_id'],
    },
) }}

select distinct
  customer_id,
  name as customer_name,
  email
from {{ ref('customers') }}
