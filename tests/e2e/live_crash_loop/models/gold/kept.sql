-- maintained by sluice (counted): a batch applied twice, or half of one,
-- would leave its hidden counts off
@config materialized=incremental, live=true
SELECT region, count(*) AS orders, sum(amount) AS revenue, avg(amount) AS mean
FROM silver.orders
GROUP BY region
