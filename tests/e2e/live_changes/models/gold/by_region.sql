-- the regions of the orders that changed, by their old values and their
-- new ones, recomputed over silver.orders as it is now
@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=region
WITH changed AS (
    SELECT region FROM _sluice.changes__silver__orders WHERE _sluice_seq > {watermark}
    UNION
    SELECT region FROM silver.orders WHERE _sluice_seq > {watermark}
)
SELECT c.region, count(o.order_id) AS orders, coalesce(sum(o.amount), 0) AS revenue
FROM changed AS c LEFT JOIN silver.orders AS o ON o.region = c.region
GROUP BY c.region
