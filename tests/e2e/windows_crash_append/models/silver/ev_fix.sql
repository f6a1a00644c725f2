-- appended, fixed: a window built again must replace its rows
@config materialized=incremental, incremental_strategy=append, temporality=temporal,
        time_column=ts, grain=1h, start='2026-10-01', lookback=3
SELECT ts, v FROM raw.ev WHERE ts >= {since} AND ts < {until}
