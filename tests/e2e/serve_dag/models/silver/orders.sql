@config materialized=incremental, live=true, incremental_strategy=append,
        incremental_filter=WHERE _sluice_seq > {watermark}
SELECT order_id, amount, region, _sluice_seq FROM landing.orders
