-- two days of hours; the hour that holds a negative value fails its check
@config materialized=incremental, temporality=temporal, time_column=ts, grain=1h,
        start='2026-11-01', end='2026-11-03'
@assert v >= 0
SELECT ts, v FROM raw.events WHERE ts >= {since} AND ts < {until}
