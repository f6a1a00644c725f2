-- each item of an order, from a set-returning function in a LATERAL join
@config materialized=table
SELECT o.id, i.item->>'sku' AS sku, (i.item->>'qty')::int AS qty
FROM silver.orders AS o
CROSS JOIN LATERAL jsonb_array_elements(o.items) AS i(item)
