@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=region
SELECT region, count(*) AS orders, sum(amount) AS revenue FROM silver.orders GROUP BY region
