-- a row-preserving filter: any cut of the range gives the same rows
@config materialized=incremental, temporality=temporal, flexibility=flex, time_column=ts,
        grain=1h, start='2026-11-01', end='2026-11-03'
SELECT ts, page FROM raw.clicks WHERE ts >= {since} AND ts < {until} AND page <> 'health'
