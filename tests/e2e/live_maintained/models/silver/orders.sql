@config materialized=incremental, live=true, incremental_strategy=merge,
        unique_key=order_id, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT order_id, amount, region, qty, _sluice_seq FROM landing.orders
