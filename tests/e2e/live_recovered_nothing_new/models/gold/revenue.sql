-- recompute only the regions that changed
@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=region
SELECT region, count(*) AS orders, sum(amount) AS revenue
FROM silver.orders
WHERE region IN (SELECT region FROM silver.orders WHERE _sluice_seq > {watermark})
GROUP BY region
