-- casts with ::, and fields of a jsonb document with ->> and ->
@config materialized=table
@assert not_null(channel)
SELECT id, customer, status, amount::numeric(10, 2) AS amount, placed_at::date AS day, placed_at,
       payload->>'channel' AS channel, (payload->'items')::jsonb AS items
FROM raw.orders
