-- in an environment this reads the main silver.hourly, trusted as it is
@config materialized=incremental, temporality=temporal, time_column=day, grain=1d,
        start='2026-11-01', end='2026-11-02'
@upstream silver.hourly contract=encapsulate deactivate_for_dev=true
SELECT CAST({since} AS TIMESTAMP) AS day, sum(amount) AS total
FROM silver.hourly WHERE ts >= {since} AND ts < {until}
