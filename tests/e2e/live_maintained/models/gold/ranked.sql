-- full: a window function, rebuilt on each refresh
@config materialized=incremental, live=true
SELECT order_id, region, row_number() OVER (PARTITION BY region ORDER BY order_id) AS n
FROM silver.orders
