@config materialized=table
SELECT order_id, random() AS r FROM silver.orders
