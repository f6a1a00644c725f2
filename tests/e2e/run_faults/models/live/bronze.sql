@config materialized=incremental, live=true, incremental_strategy=append,
        incremental_filter=WHERE _sluice_seq > {watermark}
SELECT id, account, amount, _sluice_seq FROM landing.events
