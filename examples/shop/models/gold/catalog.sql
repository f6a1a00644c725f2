-- Live: products on sale per category, recomputed for the categories that
-- changed; a deleted product still names its category.
@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=category
SELECT category, count(*) FILTER (WHERE NOT _sluice_deleted) AS products,
       min(price) FILTER (WHERE NOT _sluice_deleted) AS cheapest
FROM silver.products
WHERE category IN (SELECT category FROM silver.products WHERE _sluice_seq > {watermark})
GROUP BY category
