SELECT id, region FROM silver.orders
