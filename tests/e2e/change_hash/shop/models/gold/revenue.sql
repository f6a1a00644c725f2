@config materialized=incremental, unique_key=region
SELECT region, sum(amount) AS total, count(*) AS n FROM silver.orders GROUP BY region
