-- exists on a source names it, as on a model, and never waits
@config materialized=table
@upstream orders contract=exists
SELECT count(*) AS orders FROM landing.orders
