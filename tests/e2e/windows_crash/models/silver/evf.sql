@config materialized=incremental, temporality=temporal, time_column=ts, flexibility=flex, grain=1h,
        start='2026-10-01', end='2026-10-21'
SELECT ts, v FROM raw.ev WHERE ts >= {since} AND ts < {until}
