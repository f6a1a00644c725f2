-- the same rows, kept as coverage islands
@config materialized=incremental, temporality=temporal, flexibility=flex, time_column=ts,
        grain=1h, start='2026-11-01', end='2026-11-03'
SELECT ts, v FROM raw.events WHERE ts >= {since} AND ts < {until}
