SELECT country, sum(amount) AS revenue FROM silver.orders GROUP BY country
