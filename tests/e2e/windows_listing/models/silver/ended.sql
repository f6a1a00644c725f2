-- an hourly model whose grid ends after six hours
@config materialized=incremental, temporality=temporal, time_column=ts, grain=1h,
        start='2026-11-01', end='2026-11-01 06:00'
SELECT ts, v FROM raw.events WHERE ts >= {since} AND ts < {until}
