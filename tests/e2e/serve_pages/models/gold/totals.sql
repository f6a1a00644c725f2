@config materialized=table
SELECT e.kind, count(*) AS events, sum(e.amount * p.price) AS value
FROM silver.events AS e CROSS JOIN silver.prices AS p
GROUP BY e.kind
