SELECT region, summ(amount) AS revenue
FROM silver.orders
GROUP BY region
