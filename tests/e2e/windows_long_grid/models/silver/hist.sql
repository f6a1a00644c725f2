-- an hourly history from 1900: over a million windows, most never built
@config materialized=incremental, temporality=temporal, time_column=ts, grain=1h,
        start='1900-01-01'
SELECT ts, v FROM raw.events WHERE ts >= {since} AND ts < {until}
