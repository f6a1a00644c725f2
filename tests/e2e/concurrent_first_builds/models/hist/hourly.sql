-- append: a window applied twice would show here as a duplicate row
@config materialized=incremental, incremental_strategy=append, temporality=temporal,
        time_column=ts, grain=1h, start='2026-10-01', end='2026-10-21'
SELECT ts, id FROM raw.events WHERE ts >= {since} AND ts < {until}
