@config materialized=view
SELECT c.country, count(DISTINCT c.id) AS customers, coalesce(sum(o.amount), 0) AS revenue
FROM silver.customers AS c LEFT JOIN silver.orders AS o ON o.customer_id = c.id
GROUP BY c.country
