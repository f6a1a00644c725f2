-- revenue per customer
@config materialized=table
SELECT c.name, sum(o.amount) AS revenue
  FROM silver.orders o
  JOIN silver.customers c ON c.id = o.id
 GROUP BY c.name HAVING
