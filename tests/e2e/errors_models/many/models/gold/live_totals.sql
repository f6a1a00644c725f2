@config materialized=table, live=true
SELECT count(*) AS n FROM silver.orders
