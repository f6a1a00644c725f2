-- a batch model over a live one: rebuilt by `sluice run` when its input refreshed
@config materialized=table
SELECT count(*) AS orders, sum(amount) AS revenue FROM silver.orders
