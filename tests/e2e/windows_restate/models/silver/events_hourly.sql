-- an hourly window of raw events
@config materialized=incremental, temporality=temporal, time_column=ts, grain=1h,
        start='2026-11-01', end='2026-11-04'
SELECT ts, amount FROM raw.events WHERE ts >= {since} AND ts < {until}
