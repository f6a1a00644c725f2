-- counted over a landing table, which only gains rows: min and max counted too
@config materialized=incremental, live=true
SELECT region AS landed_region, count(*) AS versions, min(amount) AS low, max(amount) AS high
FROM landing.orders
GROUP BY region
