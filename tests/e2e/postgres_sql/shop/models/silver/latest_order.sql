-- the latest order of each customer, with DISTINCT ON
@config materialized=view
SELECT DISTINCT ON (customer) customer, id, day
FROM silver.orders
ORDER BY customer, placed_at DESC, id DESC
