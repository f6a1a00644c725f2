-- paid orders, merged by id: the filter casts a PostgreSQL special value
@config materialized=incremental, unique_key=id,
        incremental_filter=WHERE placed_at > (SELECT coalesce(max(placed_at), '-infinity'::timestamptz) FROM {this})
SELECT id, customer, amount, placed_at FROM silver.orders WHERE status = 'paid'
