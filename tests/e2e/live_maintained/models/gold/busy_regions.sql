-- regroup: HAVING and COUNT(DISTINCT) recompute the regions a batch touched
@config materialized=incremental, live=true
SELECT region, count(DISTINCT qty) AS sizes, max(amount) AS top
FROM silver.orders
GROUP BY region
HAVING count(*) > 1
