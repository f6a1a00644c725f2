@config materialized=snapshot, unique_key=item
SELECT item, price FROM seeds.prices
