@config materialized=table
SELECT country, count(*) AS customers
  FROM silver.customers
 GROUP BY country
