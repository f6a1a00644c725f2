-- an aggregate cannot be split at a time: it replays all history, or with
-- bounded_without_history the bounded range alone
@config materialized=incremental, live=true
SELECT region, count(*) AS orders, sum(amount) AS revenue
FROM silver.orders
GROUP BY region
