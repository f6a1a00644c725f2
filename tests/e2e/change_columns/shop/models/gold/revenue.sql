@config materialized=table
SELECT region, sum(amount) AS total FROM silver.orders GROUP BY region
