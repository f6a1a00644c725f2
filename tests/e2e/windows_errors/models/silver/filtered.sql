-- a subquery that aggregates in WHERE only filters rows: a valid flexible model
@config materialized=incremental, temporality=temporal, flexibility=flex, time_column=ts,
        grain=1h, start='2026-11-01'
SELECT ts FROM raw.ev WHERE ts >= {since} AND ts < {until}
  AND ts NOT IN (SELECT max(ts) FROM raw.ev GROUP BY date_trunc('day', ts))
