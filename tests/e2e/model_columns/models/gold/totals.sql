@config materialized=view
SELECT sku, sum(total) AS total FROM silver.priced GROUP BY sku
