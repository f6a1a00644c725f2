-- counted: a hidden row per region, NULL region included
@config materialized=incremental, live=true
SELECT region, count(*) AS orders, sum(amount) AS revenue, avg(qty) AS mean_qty,
       coalesce(sum(qty), 0) * 2 AS double_qty
FROM silver.orders
GROUP BY region
