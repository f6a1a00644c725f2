-- maintained by sluice: an order counted twice or lost would show here
@config materialized=incremental, live=true
SELECT region, count(*) AS orders, sum(amount) AS revenue
FROM silver.orders
GROUP BY region
