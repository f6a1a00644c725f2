-- warns: each anomaly is said and alerted, the build goes on
@config materialized=table, anomaly=warn
SELECT id, amount, note FROM seeds.orders
