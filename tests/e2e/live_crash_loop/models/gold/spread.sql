-- maintained by sluice (regroup): the regions a batch touched, computed again
@config materialized=incremental, live=true
SELECT region, count(DISTINCT amount) AS amounts, max(amount) AS top
FROM silver.orders
GROUP BY region
