@config materialized=table, tags=[core, finance]
SELECT o.id, o.amount, c.country
  FROM seeds.orders o
  JOIN seeds.customers c ON c.id = o.customer_id
