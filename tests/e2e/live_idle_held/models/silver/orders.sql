@config materialized=incremental, live=true, incremental_strategy=merge,
        unique_key=order_id, incremental_filter=WHERE _sluice_seq > {watermark}
@assert amount >= 0

SELECT order_id, amount, _sluice_seq FROM landing.orders
