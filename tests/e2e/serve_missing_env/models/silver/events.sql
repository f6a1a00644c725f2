@config materialized=incremental, live=true, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT id, amount * 2 AS amount, _sluice_seq FROM landing.events
