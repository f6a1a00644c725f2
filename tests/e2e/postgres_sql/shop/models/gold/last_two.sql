-- the two newest orders of each customer, from a LATERAL subquery that
-- reads a model of its own
@config materialized=table
SELECT c.customer, l.id, l.paid
FROM (SELECT DISTINCT customer FROM silver.orders) AS c,
     LATERAL (SELECT o.id, p.id IS NOT NULL AS paid
              FROM silver.orders AS o LEFT JOIN silver.paid AS p ON p.id = o.id
              WHERE o.customer = c.customer
              ORDER BY o.placed_at DESC LIMIT 2) AS l
