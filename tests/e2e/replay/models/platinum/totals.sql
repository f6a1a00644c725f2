-- a third step over an aggregate: no anchor, so a replay of it starts
-- from silver.orders
@config materialized=incremental, live=true
SELECT sum(orders) AS orders, sum(revenue) AS revenue, count(*) AS regions
FROM gold.by_region
