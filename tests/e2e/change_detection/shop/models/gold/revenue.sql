@config materialized=table
SELECT region, sum(amount) AS revenue FROM silver.orders GROUP BY region
