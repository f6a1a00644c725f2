-- a day builds from its 24 hours
@config materialized=incremental, temporality=temporal, time_column=day, grain=1d,
        start='2026-11-01', end='2026-11-04'
@upstream silver.events_hourly contract=encapsulate
SELECT CAST({since} AS TIMESTAMP) AS day, sum(amount) AS total
FROM silver.events_hourly WHERE ts >= {since} AND ts < {until}
