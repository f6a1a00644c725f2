-- takes no profile at all
@config materialized=table, anomaly=off
SELECT id, amount, note FROM seeds.orders
