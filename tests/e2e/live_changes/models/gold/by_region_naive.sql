-- the pattern that reads the merge model alone: the old region of a moved
-- order is never recomputed
@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=region
SELECT region, count(*) AS orders, sum(amount) AS revenue
FROM silver.orders
WHERE region IN (SELECT region FROM silver.orders WHERE _sluice_seq > {watermark})
GROUP BY region
