-- reads a landing table two layers up: its edge bends on the way down
@config materialized=table
SELECT (SELECT count(*) FROM landing.orders) AS landed,
       (SELECT sum(orders) FROM gold.revenue) AS counted
