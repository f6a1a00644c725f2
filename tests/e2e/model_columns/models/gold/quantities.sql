@config materialized=incremental
SELECT sku, qty FROM silver.orders
