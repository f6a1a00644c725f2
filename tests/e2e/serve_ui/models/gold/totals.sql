-- The events of each kind and their amount, maintained by sluice.
@config materialized=incremental, live=true, description='events and their total by kind'
SELECT kind, count(*) AS events, coalesce(sum(amount), 0) AS total
FROM silver.events
GROUP BY kind
