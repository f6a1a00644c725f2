-- one window (delete it, insert it) per month; the newest closed month is
-- built again on every run
@config materialized=incremental, incremental_strategy=microbatch, temporality=temporal,
        time_column=month, grain=1mo, start='2026-09-01', end='2026-12-01', lookback=1
SELECT CAST(date_trunc('month', ts) AS TIMESTAMP) AS month, count(*) AS events, sum(v) AS total
FROM raw.ev
WHERE ts >= {since} AND ts < {until}
GROUP BY 1
