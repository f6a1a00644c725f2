@config materialized=table
SELECT r.name, count(*) AS orders, sum(o.amount) AS revenue
FROM silver.orders o JOIN silver.regions r USING (region)
GROUP BY r.name
