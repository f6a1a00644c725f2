SELECT name FROM silver.customers
