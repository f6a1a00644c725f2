@config materialized=incremental, temporality=temporal, time_column=day, grain=1d,
        start='2026-11-01 06:00', end='2026-10-01', lookback=-1
@upstream silver.hourly contract=exact
@upstream silver.dims contract=encapsulate
@upstream prices.csv type=file path=prices.csv contract=whole
@upstream silver.dimz contract=whole
@upstream silver.dims freshness=1d
@upstream silver.hourly contract=exists freshness=2h
@upstream silver.eph contract=whole
SELECT CAST({since} AS TIMESTAMP) AS day FROM silver.hourly
