-- recompute only the regions that received new events
@config materialized=incremental, incremental_strategy=delete+insert, unique_key=region
SELECT region, count(*) AS events, sum(amount) AS amount
FROM raw.events
WHERE region IN (SELECT region FROM raw.events WHERE id > (SELECT coalesce(max(id), 0) FROM raw_copy.seen))
GROUP BY region
