@config materialized=incremental, live=true
SELECT count(*) AS orders, sum(amount) AS amount FROM silver.orders_slim
