@config materialized=incremental, temporality=temporal, time_column=day, grain=1d,
        start='2026-11-01'
@upstream silver.orders_hourly contract=encapsulate
SELECT CAST({since} AS TIMESTAMP) AS day, sum(orders) AS orders
FROM silver.orders_hourly WHERE hour >= {since} AND hour < {until}
