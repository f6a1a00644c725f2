@assert not_null(region)
@assert revenue >= 0
SELECT c.region, count(*) AS orders, sum(o.amount) AS revenue
FROM silver.paid_orders AS o
JOIN silver.customers AS c USING (customer_id)
GROUP BY c.region
ORDER BY c.region
