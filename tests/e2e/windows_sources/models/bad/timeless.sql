@config materialized=table
@upstream orders contract=through
@upstream clicks freshness=1h
SELECT count(*) AS n FROM landing.clicks
