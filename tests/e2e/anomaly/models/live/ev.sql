@config materialized=incremental, live=true, anomaly=warn,
        incremental_filter=WHERE _sluice_seq > {watermark}
SELECT id, _sluice_seq FROM landing.events
