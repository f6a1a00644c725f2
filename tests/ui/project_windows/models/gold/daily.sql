-- a day builds once each of its hours is applied
@config materialized=incremental, temporality=temporal, time_column=day, grain=1d,
        start='2026-11-01', end='2026-11-03'
@upstream silver.hourly contract=encapsulate
SELECT CAST({since} AS TIMESTAMP) AS day, count(*) AS hours, sum(v) AS v
FROM silver.hourly WHERE ts >= {since} AND ts < {until}
