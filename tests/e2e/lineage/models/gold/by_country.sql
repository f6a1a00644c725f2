@config materialized=table
SELECT c.country, count(*) AS orders, sum(o.amount) AS revenue,
       CASE WHEN sum(o.amount) > 1000 THEN 'big' ELSE 'small' END AS size,
       row_number() OVER (ORDER BY sum(o.amount) DESC) AS rank
FROM silver.orders AS o JOIN silver.customers AS c USING (customer_id)
GROUP BY c.country
