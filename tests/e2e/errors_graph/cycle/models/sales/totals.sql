@config materialized=table
SELECT id, sum(amount) AS amount
  FROM sales.orders
 GROUP BY id
