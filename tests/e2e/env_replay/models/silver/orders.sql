-- every order once, with its time: an environment can take its older rows
-- from the main table and replay only the newer ones
@config materialized=incremental, live=true, incremental_strategy=append,
        incremental_filter=WHERE _sluice_seq > {watermark}
SELECT order_id, amount, region, ts, _sluice_seq FROM landing.orders
