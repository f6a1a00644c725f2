-- Live: products on sale per category. Written as the plain query, sluice
-- keeps it current from the change log of silver.products: min() over a
-- model that rewrites rows makes it regroup, so each refresh recomputes the
-- categories a changed product left or joined.
@config materialized=incremental, live=true
SELECT category, count(*) AS products, min(price) AS cheapest
FROM silver.products
WHERE NOT _sluice_deleted
GROUP BY category
