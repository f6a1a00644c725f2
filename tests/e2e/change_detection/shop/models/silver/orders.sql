@config materialized=table, description='orders with a region', tags=[core]
SELECT id, amount, region FROM seeds.orders
