@config materialized=incremental, temporality=temporal, time_column=hour, grain=1h,
        start='2026-11-03', end='2026-11-04'
@upstream orders contract=through
SELECT CAST({since} AS TIMESTAMP) AS hour, count(*) AS orders, sum(amount) AS amount
FROM landing.orders WHERE created_at >= {since} AND created_at < {until}
