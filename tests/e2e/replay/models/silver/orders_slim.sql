-- drops the order time: no anchor for a source whose boundary is a time
@config materialized=incremental, live=true, incremental_strategy=append,
        incremental_filter=WHERE _sluice_seq > {watermark}
SELECT order_id, amount, _sluice_seq FROM landing.orders
