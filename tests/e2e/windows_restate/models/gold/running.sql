-- a running total: a day reads every day before it
@config materialized=incremental, temporality=temporal, time_column=day, grain=1d,
        start='2026-11-01', end='2026-11-04'
@upstream gold.daily contract=through
SELECT CAST({since} AS TIMESTAMP) AS day, sum(total) AS running_total
FROM gold.daily WHERE day < {until}
