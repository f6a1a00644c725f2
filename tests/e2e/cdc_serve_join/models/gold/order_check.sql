-- each order beside the sum of its lines, recomputed for the orders that
-- changed on either side; every source transaction keeps them equal
@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=id
SELECT o.id, o.total, coalesce(sum(i.amount) FILTER (WHERE NOT i._sluice_deleted), 0) AS lines_total,
       greatest(o._sluice_seq, coalesce(max(i._sluice_seq), 0)) AS _sluice_seq
FROM silver.orders o LEFT JOIN silver.items i ON i.order_id = o.id
WHERE o.id IN (SELECT id FROM silver.orders WHERE _sluice_seq > {watermark:silver.orders})
   OR o.id IN (SELECT order_id FROM silver.items WHERE _sluice_seq > {watermark:silver.items})
GROUP BY o.id, o.total, o._sluice_seq
