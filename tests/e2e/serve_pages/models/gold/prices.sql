@config materialized=view
SELECT sku FROM silver.prices
