@config materialized=incremental, temporality=temporal, time_column=hour, grain=1h,
        start='2026-11-01'
@upstream plain contract=through
@upstream orders contract=exact
@upstream clicks contract=whole
SELECT CAST({since} AS TIMESTAMP) AS hour FROM landing.plain WHERE id > 0 AND {since} < {until}
