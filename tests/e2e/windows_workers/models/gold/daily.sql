@config materialized=incremental, temporality=temporal, time_column=day, grain=1d,
        start='2026-11-01', end='2026-11-03'
@upstream silver.clicks contract=encapsulate
SELECT CAST({since} AS TIMESTAMP) AS day, count(*) AS clicks
FROM silver.clicks WHERE ts >= {since} AND ts < {until}
