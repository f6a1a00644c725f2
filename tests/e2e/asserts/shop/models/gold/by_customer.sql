@config materialized=table
SELECT customer, sum(amount) AS amount FROM silver.orders GROUP BY customer
