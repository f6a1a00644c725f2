-- each hour's events, by the hour, until noon of the second day
@config materialized=incremental, temporality=temporal, time_column=ts, grain=1h,
        start='2026-11-01', end='2026-11-02 12:00'
@assert v >= 0
SELECT CAST(ts AS TIMESTAMP) AS ts, v FROM seeds.events WHERE ts >= {since} AND ts < {until}
