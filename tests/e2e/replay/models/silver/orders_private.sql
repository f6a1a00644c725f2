@config materialized=incremental, live=true, incremental_strategy=append, replay_anchor=never,
        incremental_filter=WHERE _sluice_seq > {watermark}
SELECT order_id, amount, ts, _sluice_seq FROM landing.orders
