@config materialized=table
SELECT sum(amount) AS amount FROM silver.orders
