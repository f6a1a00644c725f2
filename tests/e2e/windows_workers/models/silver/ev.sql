-- one event holds a value its check refuses: its hour fails alone
@config materialized=incremental, temporality=temporal, time_column=ts, grain=1h,
        start='2026-10-01', end='2026-10-21', description='events by the hour'
@assert v <> 4000
SELECT ts, v FROM raw.ev WHERE ts >= {since} AND ts < {until}
