@config materialized=view
SELECT CAST(updated_at AS DATE) AS day, sum(amount) AS revenue
FROM silver.paid_orders
GROUP BY ALL
