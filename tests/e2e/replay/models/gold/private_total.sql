@config materialized=incremental, live=true
SELECT count(*) AS orders FROM silver.orders_private
