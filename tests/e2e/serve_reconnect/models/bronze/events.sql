-- append: an event applied twice would show here as a duplicate
@config materialized=incremental, live=true,
        incremental_filter=WHERE _sluice_seq > {watermark}
SELECT id, account, amount, _sluice_seq FROM landing.events
