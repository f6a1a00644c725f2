@config materialized=incremental, incremental_strategy=microbatch, temporality=temporal,
        time_column=From, grain=1mo, start='2026-09-01', end='2026-11-01', lookback=1
SELECT CAST(date_trunc('month', "At") AS TIMESTAMP) AS "From", count(*) AS orders
FROM raw.orders
WHERE "At" >= {since} AND "At" < {until}
GROUP BY 1
