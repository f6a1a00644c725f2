-- Live: products on sale per category, recomputed for the categories of the
-- products that changed, by their old values and their new ones (the change
-- log of silver.products), so a product that moves or goes leaves its old
-- category's figures too.
@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=category
WITH changed AS (
    SELECT category FROM _sluice.changes__silver__products WHERE _sluice_seq > {watermark}
    UNION
    SELECT category FROM silver.products WHERE _sluice_seq > {watermark}
)
SELECT c.category, count(p.product_id) AS products, min(p.price) AS cheapest
FROM changed AS c
LEFT JOIN silver.products AS p ON p.category = c.category AND NOT p._sluice_deleted
GROUP BY c.category
