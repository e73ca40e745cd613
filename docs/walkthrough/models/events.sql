{#- The source as it stood at the run's execution time: events that had arrived by then. -#}
{{ config(materialized='table') }}
select event_id, event_date, amount
from {{ ref('events_feed') }}
where arrived_on < date'{{ var("vulcan_execution_time", "2100-01-01")[:10] }}'
