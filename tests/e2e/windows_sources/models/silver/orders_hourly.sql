-- an hour builds once the stream of orders has passed it, ten minutes late
@config materialized=incremental, temporality=temporal, time_column=hour, grain=1h,
        start='2026-11-01'
@upstream orders contract=through freshness=1h
SELECT CAST({since} AS TIMESTAMP) AS hour, count(*) AS orders, sum(amount) AS amount
FROM landing.orders WHERE created_at >= {since} AND created_at < {until}
