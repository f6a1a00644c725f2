-- the event time is a field of the payload; named by its landing table
@config materialized=incremental, temporality=temporal, time_column=hour, grain=1h,
        start='2026-11-01'
@upstream landing.clicks contract=encapsulate
SELECT CAST({since} AS TIMESTAMP) AS hour, count(*) AS clicks
FROM landing.clicks WHERE _sluice_landed_at IS NOT NULL AND CAST(payload->>'ts' AS TIMESTAMP) >= {since}
  AND CAST(payload->>'ts' AS TIMESTAMP) < {until}
