@config materialized=table
SELECT id, amount * 2 AS amount, region FROM seeds.orders WHERE amount > 0
