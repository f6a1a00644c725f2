-- counted: SELECT DISTINCT keeps a row count per value
@config materialized=incremental, live=true
SELECT DISTINCT region FROM silver.orders
