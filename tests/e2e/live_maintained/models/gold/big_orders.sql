-- mapped over a merge model: recomputed by the order ids a batch touched
@config materialized=incremental, live=true
SELECT order_id, amount * 2 AS doubled FROM silver.orders WHERE amount > 5
