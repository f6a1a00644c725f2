@config materialized=incremental, live=true, incremental_strategy=append,
        incremental_filter=WHERE _sluice_seq > {watermark}

SELECT id, _sluice_seq FROM landing.events
