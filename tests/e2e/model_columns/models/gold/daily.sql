@config materialized=incremental, temporality=temporal, time_column=day, grain=1d,
        start='2026-11-01', end='2026-11-04'
SELECT CAST({since} AS TIMESTAMP) AS day, count(*) AS visits
FROM seeds.visits WHERE ts >= {since} AND ts < {until}
