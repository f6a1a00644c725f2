-- Orders, one row per order_id, upserted as new versions arrive.
@config materialized=incremental, incremental_strategy=merge, unique_key=order_id,
        incremental_filter=WHERE updated_at > (SELECT coalesce(max(updated_at), TIMESTAMP '1970-01-01') FROM {this})
@column order_id   the order's id in the shop, one row each
@column amount     what the customer paid, in euros
@column status     paid, cancelled or refunded
@column updated_at when the shop last changed the order
@assert not_null(order_id)
@assert unique(order_id)
@assert accepted_values(status, [paid, cancelled, refunded])
@assert warn: amount < 100
SELECT order_id, customer_id, CAST(amount AS DECIMAL(10, 2)) AS amount, status,
       CAST(updated_at AS TIMESTAMP) AS updated_at
FROM seeds.raw_orders
