@config materialized=table
SELECT DISTINCT region FROM silver.orders
