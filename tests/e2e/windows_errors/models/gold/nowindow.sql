@config materialized=table, temporality=temporal, time_column=ts, grain=1h, start='2026-11-01'
SELECT ts FROM silver.hourly
