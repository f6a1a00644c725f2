-- appended, flexible: a window and its coverage commit together
@config materialized=incremental, incremental_strategy=append, temporality=temporal,
        time_column=ts, flexibility=flex, grain=1h, start='2026-10-01', lookback=2
SELECT ts, v FROM raw.ev WHERE ts >= {since} AND ts < {until}
