@config materialized=incremental, temporality=temporal, time_column=ts, grain=1h,
        start='2026-11-01', flexibility=flex
SELECT ts FROM raw.ev WHERE ts >= {since} AND ts < {until}
